/**
 * Every done call is judged against the item it was registered for (suites/support/webhook-registered.ts):
 * a call carrying another take's body fails naming the take; a call that agrees passes.
 */
import { describe, expect, test } from 'vitest';
import type { WebhookCall } from '../../src/harness/index.ts';
import { assertDoneCallsOfItem, type RegisteredItem } from '../../suites/support/webhook-registered.ts';

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

const call = (json: unknown, index = 1): WebhookCall => ({
  token: 'tok',
  hook: 'done',
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
