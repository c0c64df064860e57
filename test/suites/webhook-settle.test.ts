/**
 * A done call that has not come when the webhooks file stops waiting is no violation there: the
 * contract says "When the result is ready, the service sends an HTTP POST to that URL" and gives no
 * time. The file's wait ends with what came (no Finding, suites/support/webhook-takes.ts), the file
 * concludes nothing for WEBHOOK-DONE-CALLED / WEBHOOK-VOICE-DONE and files a `called` entry
 * (suites/support/webhook-settle.ts), and the end-of-run judge passes a call that came late, after
 * its window too, and fails only an item never called once the window has passed. So for status
 * calls (WEBHOOK-STATUS-AGREES-POLLING / -WEBSOCKET): a status seen that no status call reported
 * yet is a `statuses-called` entry, passed when its calls came late, failed as never reported.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import { check, runWithChecks } from '../../src/harness/check.ts';
import type { RemoteWebhookSink, SpeakContext, WebhookCall } from '../../src/harness/index.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import {
  assertCalledBy,
  assertStatusesCalledBy,
  callsInWindow,
  DONE_CALL_WAIT_MS,
  doneCalledInFile,
  type FiledEntry,
  judgedByRunEnd,
  seenDoneMs,
  statusCallsJudgedLater,
  statusesCalledEntry,
  statusesCalledInFile,
  withoutDoneCall,
} from '../../suites/support/webhook-settle.ts';
import {
  ARRIVAL_BOUND_MS,
  type SeenStatuses,
  type TakeScenario,
  webhookTakes,
} from '../../suites/support/webhook-takes.ts';

const call = (
  receivedMs: number,
  json: unknown = { take_id: 'tk_1', status: 'ready' },
  hook = 'done',
): WebhookCall => ({
  token: 'tok',
  hook,
  index: 1,
  receivedMs,
  method: 'POST',
  headers: {},
  text: JSON.stringify(json),
  json,
  answeredStatus: 200,
});

/** A sink whose calls are `arrived` (pushed to as the test goes): waits poll it, as the real one's. */
function fakeSink(arrived: WebhookCall[]): Pick<RemoteWebhookSink, 'waitForCalls' | 'calls'> {
  return {
    calls: async () => [...arrived],
    waitForCalls: async (_token, predicate, timeoutMs, signal) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (predicate([...arrived])) return [...arrived];
        signal?.throwIfAborted();
        if (Date.now() >= deadline) throw new Error(`no calls within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

const entry = (fromMs: number, o: Partial<FiledEntry> = {}): FiledEntry => ({
  requirement: 'WEBHOOK-DONE-CALLED',
  subject: 'take tk_1',
  token: 'tok',
  hook: 'done',
  expect: 'called',
  fromMs,
  windowMs: DONE_CALL_WAIT_MS,
  why: 'take polled ready',
  ...o,
});

/** What `fn` concluded for `id`, as inside a covers() test of it. */
function concluded(id: string, fn: () => unknown): Conclusions[string] | undefined {
  const conclusions: Conclusions = {};
  runWithChecks({ ids: [id], conclusions }, fn);
  return conclusions[id];
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the webhooks file's wait for a done call", () => {
  const speak = { config: { timeouts: { readyMs: 45_000 } } } as unknown as SpeakContext;
  const never = async () => 'v1';

  test(`none ${ARRIVAL_BOUND_MS / 1000} s after done: it ends with what came, no Finding`, async () => {
    vi.useFakeTimers();
    const sink = fakeSink([]);
    const takes = webhookTakes(speak, () => sink as RemoteWebhookSink, never);
    const waited = takes.callsOnceDone(
      sink as RemoteWebhookSink,
      'tok',
      (calls) => calls.some((c) => c.hook === 'done'),
      Promise.resolve(),
    );
    const settled = waited.then(
      (calls) => ({ calls }),
      (error: unknown) => ({ error }),
    );
    await vi.advanceTimersByTimeAsync(ARRIVAL_BOUND_MS + 100);
    expect(await settled).toEqual({ calls: [] });
  });

  test('a call that came ends it at once, with the calls', async () => {
    const arrived = [call(Date.now())];
    const sink = fakeSink(arrived);
    const takes = webhookTakes(speak, () => sink as RemoteWebhookSink, never);
    const calls = await takes.callsOnceDone(
      sink as RemoteWebhookSink,
      'tok',
      (c) => c.length > 0,
      new Promise(() => undefined),
    );
    expect(calls).toEqual(arrived);
  });

  test("polling's failure ends it with that failure", async () => {
    const sink = fakeSink([]);
    const takes = webhookTakes(speak, () => sink as RemoteWebhookSink, never);
    const failed = new Error('never ready');
    await expect(
      takes.callsOnceDone(sink as RemoteWebhookSink, 'tok', () => false, Promise.reject(failed)),
    ).rejects.toBe(failed);
  });
});

describe('in the webhooks file', () => {
  test('no done call yet: WEBHOOK-DONE-CALLED is not observed, judged at the end of the run', () => {
    expect(
      concluded('WEBHOOK-DONE-CALLED', () =>
        doneCalledInFile('WEBHOOK-DONE-CALLED', 'take tk_1', 0, 'take polled ready'),
      ),
    ).toEqual([
      {
        kind: 'not-observed',
        reason: expect.stringMatching(
          /^take tk_1: no done call within 10 s .* judged at the end of the run$/,
        ),
        wouldJudge: expect.stringContaining('suites/webhooks-settled.spec.ts'),
      },
    ]);
  });

  test('a done call that came in time is judged there: held', () => {
    expect(
      concluded('WEBHOOK-VOICE-DONE', () =>
        doneCalledInFile('WEBHOOK-VOICE-DONE', 'voice v1', 1, 'voice polled ready'),
      ),
    ).toEqual([{ kind: 'held' }]);
  });

  test("what judges the done call's particulars concludes nothing without one", () => {
    const s = { takeId: 'tk_1', calls: [] as WebhookCall[] } as TakeScenario;
    let without = false;
    expect(
      concluded('WEBHOOK-DONE-ONCE', () => {
        without = withoutDoneCall(s, 'WEBHOOK-DONE-ONCE');
      }),
    ).toEqual([expect.objectContaining({ kind: 'not-observed' })]);
    expect(without).toBe(true);
    expect(withoutDoneCall({ ...s, calls: [call(1)] }, 'WEBHOOK-DONE-ONCE')).toBe(false);
  });

  test('the window starts when polling first saw the item done', () => {
    const entries = [
      { atMs: 10, status: 'waiting' },
      { atMs: 20, status: 'ready' },
      { atMs: 30, status: 'ready' },
    ];
    expect(seenDoneMs({ entries })).toBe(20);
    expect(seenDoneMs({ entries: entries.slice(0, 1) })).toBeUndefined();
  });
});

describe('at the end of the run', () => {
  test('a call 12 s after done, within the window: called', async () => {
    const fromMs = Date.now() - 40_000;
    const { calls, later } = await callsInWindow(fakeSink([call(fromMs + 12_000)]), entry(fromMs));
    expect(calls).toHaveLength(1);
    expect(() => assertCalledBy(entry(fromMs), [...calls, ...later])).not.toThrow();
  });

  test('a call after the window, before the judging: called all the same', async () => {
    const fromMs = Date.now() - 90_000;
    const { calls, later } = await callsInWindow(fakeSink([call(fromMs + 75_000)]), entry(fromMs));
    expect({ calls, later: later.length }).toEqual({ calls: [], later: 1 });
    expect(() => assertCalledBy(entry(fromMs), [...calls, ...later])).not.toThrow();
  });

  test('a call still due is waited for until the window ends, and counts', async () => {
    const arrived: WebhookCall[] = [];
    const fromMs = Date.now();
    setTimeout(() => arrived.push(call(Date.now())), 30);
    const { calls } = await callsInWindow(fakeSink(arrived), entry(fromMs, { windowMs: 5_000 }));
    expect(calls).toHaveLength(1);
    expect(Date.now() - fromMs).toBeLessThan(2_000);
  });

  test('none by the end of the window: never called, a violation', async () => {
    const fromMs = Date.now();
    const { calls, later } = await callsInWindow(fakeSink([]), entry(fromMs, { windowMs: 60 }));
    expect(Date.now() - fromMs).toBeGreaterThanOrEqual(55);
    const finding = (() => {
      try {
        assertCalledBy(entry(fromMs, { windowMs: 60 }), [...calls, ...later], fromMs + 42_000);
      } catch (error) {
        return error;
      }
    })();
    expect(finding).toBeInstanceOf(Finding);
    expect((finding as Finding).message).toMatch(
      /^take tk_1: done_webhook was never called: none arrived in the 42 s from when it was seen done \(take polled ready\) to the end of the run/,
    );
  });

  test("a voice's late call carries the Voice in a done status", () => {
    const voice = (status: string) => ({
      voice_id: 'v1',
      name: 'late',
      model: 'm',
      gender: 'female',
      default_style: null,
      default_prosody: null,
      example_take_id: 'tk_0',
      example_take: null,
      status_webhook: null,
      done_webhook: null,
      status,
      timestamp_ms: 1_700_000_000_000,
    });
    const voiceEntry = entry(0, { requirement: 'WEBHOOK-VOICE-DONE', subject: 'voice v1' });
    expect(() => assertCalledBy(voiceEntry, [call(12_000, voice('ready'))])).not.toThrow();
    expect(() => assertCalledBy(voiceEntry, [call(12_000, voice('waiting'))])).toThrow(
      /voice v1: done_webhook called while the voice was waiting, not done/,
    );
  });
});

describe('status calls not all come when the webhooks file stopped waiting', () => {
  const id = 'WEBHOOK-STATUS-AGREES-POLLING';
  const statusCall = (receivedMs: number, status: string) =>
    call(receivedMs, { take_id: 'tk_1', status }, 'status');
  const take = (statusCalls: WebhookCall[]): SeenStatuses => ({
    subject: 'take tk_1 (900 characters)',
    seen: ['waiting', 'started', 'progress_50', 'ready'],
    seenBy: 'polling saw',
    statusCalls,
  });
  const all = [statusCall(1, 'started'), statusCall(2, 'progress_50'), statusCall(3, 'ready')];
  const statusesEntry = (fromMs: number, o: Partial<FiledEntry> = {}): FiledEntry => ({
    ...statusesCalledEntry(id, {
      ...take(all.slice(0, 1)),
      token: 'tok',
      seenMs: fromMs,
      why: 'take polled ready',
    })!,
    fromMs,
    ...o,
  });

  test('every status reported in the file: held there, nothing filed', () => {
    expect(concluded(id, () => statusesCalledInFile(id, take(all)))).toEqual([{ kind: 'held' }]);
    expect(
      statusesCalledEntry(id, { ...take(all), token: 'tok', seenMs: 1, why: 'take polled ready' }),
    ).toBeUndefined();
  });

  test('a status not reported yet: no conclusion in the file, an entry for the end of the run', () => {
    let held: boolean | undefined;
    expect(concluded(id, () => (held = statusesCalledInFile(id, take(all.slice(0, 1)))))).toBeUndefined();
    expect(held).toBe(false);
    expect(statusCallsJudgedLater(id, take(all.slice(0, 1)))).toEqual([
      'take tk_1 (900 characters): polling saw ["progress_50","ready"] but no status call had reported them when the webhooks file stopped waiting; the contract gives the calls no time, so whether they come is judged at the end of the run',
      expect.stringContaining(
        `waited for at least ${DONE_CALL_WAIT_MS / 1000} s after the take was seen done`,
      ),
    ]);
    const filed = statusesEntry(5_000);
    expect(filed).toMatchObject({
      requirement: id,
      hook: 'status',
      expect: 'statuses-called',
      fromMs: 5_000,
      windowMs: DONE_CALL_WAIT_MS,
      why: 'take polled ready',
      awaited: { statuses: ['progress_50', 'ready'], seenBy: 'polling saw' },
    });
    // The sink keeps entries as JSON: the statuses survive the round trip.
    expect(JSON.parse(JSON.stringify(filed))).toEqual(filed);
    expect(judgedByRunEnd(filed)).toBe(true);
  });

  test('status calls 12 s after done, within the window: the wait ends once each has come, held', async () => {
    const fromMs = Date.now();
    const arrived = [statusCall(fromMs - 200, 'started')];
    setTimeout(() => arrived.push(statusCall(Date.now(), 'progress_50')), 20);
    setTimeout(() => arrived.push(statusCall(Date.now(), 'ready')), 40);
    const filed = statusesEntry(fromMs);
    const { calls, later } = await callsInWindow(fakeSink(arrived), filed);
    expect(Date.now() - fromMs).toBeLessThan(2_000);
    expect(calls).toHaveLength(3);
    expect(concluded(id, () => check(id, () => assertStatusesCalledBy(filed, [...calls, ...later])))).toEqual(
      [{ kind: 'held' }],
    );
    const late = [statusCall(fromMs + 12_000, 'progress_50'), statusCall(fromMs + 12_100, 'ready')];
    expect(() => assertStatusesCalledBy(filed, late)).not.toThrow();
  });

  test('one after the window, before the judging: reported all the same', async () => {
    const fromMs = Date.now() - 90_000;
    const arrived = [statusCall(fromMs + 1_000, 'progress_50'), statusCall(fromMs + 75_000, 'ready')];
    const { calls, later } = await callsInWindow(fakeSink(arrived), statusesEntry(fromMs));
    expect({ calls: calls.length, later: later.length }).toEqual({ calls: 1, later: 1 });
    expect(() => assertStatusesCalledBy(statusesEntry(fromMs), [...calls, ...later])).not.toThrow();
  });

  test('a status never reported by the end of the window: a violation naming it', async () => {
    const fromMs = Date.now();
    const filed = statusesEntry(fromMs, { windowMs: 60 });
    const { calls, later } = await callsInWindow(fakeSink([statusCall(fromMs + 5, 'ready')]), filed);
    expect(Date.now() - fromMs).toBeGreaterThanOrEqual(55);
    const finding = (() => {
      try {
        assertStatusesCalledBy(filed, [...calls, ...later], fromMs + 41_000);
      } catch (error) {
        return error;
      }
    })();
    expect(finding).toBeInstanceOf(Finding);
    expect((finding as Finding).message).toBe(
      'take tk_1 (900 characters): polling saw ["progress_50"] but no status call reported it (called: ["ready"]) in the 41 s from when the take was seen done (take polled ready) to the end of the run (the contract gives no time; the 0.06 s the run waits at least are speakcheck\'s)',
    );
  });

  test('a take not seen in progress can fail the requirement at the end, not pass it', () => {
    const notInProgress = { reason: 'polled as waiting → ready', wouldJudge: 'a slower server' };
    const filed = statusesEntry(0, {
      awaited: { statuses: ['ready'], seenBy: 'polling saw', heldNotObserved: notInProgress },
    });
    expect(
      concluded(id, () => check(id, () => assertStatusesCalledBy(filed, [statusCall(1, 'ready')]))),
    ).toEqual([{ kind: 'not-observed', ...notInProgress }]);
    expect(concluded(id, () => check(id, () => assertStatusesCalledBy(filed, [])))).toEqual([
      expect.objectContaining({ kind: 'violated' }),
    ]);
  });
});
