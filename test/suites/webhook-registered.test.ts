/**
 * Every done call is judged against the item it was registered for (suites/support/webhook-registered.ts):
 * a call carrying another take's body fails naming the take; a call that agrees passes. An item no
 * call came for is not judged at all: a loop over none must not record a pass.
 */
import { describe, expect, test } from 'vitest';
import { runWithChecks } from '../../src/harness/check.ts';
import type { WebhookCall } from '../../src/harness/index.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import {
  assertDoneCallsOfItem,
  assertFirstDoneCallEqualsGet,
  judgeDoneCallsAgainstGet,
  judgeDoneCallsOfItems,
  judgeStatusCallsOfItems,
  noCallYet,
  type RegisteredItem,
} from '../../suites/support/webhook-registered.ts';

const take = (id: string, status = 'error') => ({
  take_id: id,
  voice_id: 'v1',
  text: 'Hello.',
  override_language: null,
  style: null,
  prosody: null,
  status_webhook: null,
  done_webhook: null,
  status,
  timestamp_ms: 1_700_000_000_000,
  info: null,
});

const call = (json: unknown, index = 1, hook = 'done'): WebhookCall => ({
  token: 'tok',
  hook,
  index,
  receivedMs: 0,
  method: 'POST',
  headers: {},
  text: JSON.stringify(json),
  json,
  answeredStatus: 200,
});

const item = (calls: WebhookCall[], seenStatus = 'error'): RegisteredItem => ({
  kind: 'take',
  id: 'tk_2',
  label: 'post_url take tk_2',
  calls,
  seenStatus,
});

describe('done calls against the take they were registered for', () => {
  test('a call with its own take passes', () => {
    expect(() => assertDoneCallsOfItem(item([call(take('tk_2'))]))).not.toThrow();
  });

  test("another take's body fails, naming the take", () => {
    expect(() => assertDoneCallsOfItem(item([call(take('tk_2')), call(take('tk_1'), 2)]))).toThrow(
      /post_url take tk_2: done_webhook body is about take "tk_1", expected tk_2/,
    );
  });

  test('a status other than the one the run saw fails', () => {
    expect(() => assertDoneCallsOfItem(item([call(take('tk_2', 'timeout'))]))).toThrow(
      /the body says "timeout", the run saw the take end error/,
    );
  });
});

/** What `fn` concluded, per id, as inside a covers() test of `ids`. */
function concluded(ids: string[], fn: () => unknown): Conclusions {
  const conclusions: Conclusions = {};
  runWithChecks({ ids, conclusions }, fn);
  return conclusions;
}

describe('only an item a call came for is judged on it', () => {
  const noCalls = item([]);

  test('an item without a done call concludes nothing for WEBHOOK-DONE-BODY-TAKE', () => {
    let judged = -1;
    const c = concluded(['WEBHOOK-DONE-BODY-TAKE'], () => {
      judged = judgeDoneCallsOfItems([noCalls]);
    });
    expect(judged).toBe(0);
    expect(c['WEBHOOK-DONE-BODY-TAKE']).toBeUndefined();
  });

  test('an item with a done call is judged: held', () => {
    const c = concluded(['WEBHOOK-DONE-BODY-TAKE'], () =>
      judgeDoneCallsOfItems([noCalls, item([call(take('tk_2'))])]),
    );
    expect(c['WEBHOOK-DONE-BODY-TAKE']).toEqual([{ kind: 'held' }]);
  });

  test('an item with only done calls concludes nothing for WEBHOOK-STATUS-CALLED', () => {
    let judged = -1;
    const c = concluded(['WEBHOOK-STATUS-CALLED'], () => {
      judged = judgeStatusCallsOfItems([item([call(take('tk_2'))])]);
    });
    expect(judged).toBe(0);
    expect(c['WEBHOOK-STATUS-CALLED']).toBeUndefined();
  });

  test('an item with a status call is judged on it', () => {
    const c = concluded(['WEBHOOK-STATUS-CALLED'], () =>
      judgeStatusCallsOfItems([item([call(take('tk_1', 'started'), 1, 'status')])]),
    );
    expect(c['WEBHOOK-STATUS-CALLED']?.[0]?.kind).toBe('violated');
  });

  test('why none was judged names the takes and who judges the calls later', () => {
    const [reason] = noCallYet([noCalls], 'status');
    expect(reason).toMatch(
      /post_url take tk_2: no status call had come when the webhooks file stopped waiting/,
    );
    expect(reason).toMatch(/WEBHOOK-STATUS-AGREES-POLLING's, judged at the end of the run/);
  });
});

describe('the done call against GET made right after it', () => {
  const id = 'WEBHOOK-DONE-BODY-EQUALS-GET';
  const body = take('tk_2');

  test('an item with both is compared: held when they agree', () => {
    const c = concluded([id], () =>
      judgeDoneCallsAgainstGet([{ ...item([call(body)]), getAfterDone: body }]),
    );
    expect(c[id]).toEqual([{ kind: 'held' }]);
  });

  test('an item with both is compared: violated when they differ', () => {
    const get = { ...body, text: 'Goodbye.' };
    const c = concluded([id], () => judgeDoneCallsAgainstGet([{ ...item([call(body)]), getAfterDone: get }]));
    expect(c[id]?.[0]?.kind).toBe('violated');
  });

  test('no item with a done call and a GET after it: not observed, saying why for each', () => {
    const websocket = { ...item([call(body)]), label: 'websocket take tk_3' };
    const c = concluded([id], () => judgeDoneCallsAgainstGet([item([]), websocket]));
    expect(c[id]).toHaveLength(1);
    expect(c[id]?.[0]).toMatchObject({
      kind: 'not-observed',
      reason: expect.stringMatching(
        /post_url take tk_2: no done call within 10 s of it being seen done; websocket take tk_3: no GET was made right after its done call/,
      ),
    });
  });

  test('asked to compare an item without both sides, it is a bug of speakcheck, never a pass', () => {
    expect(() => assertFirstDoneCallEqualsGet(item([call(body)]))).toThrow(
      /judge only comparedWithGet items/,
    );
  });
});
