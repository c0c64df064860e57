/**
 * The webhook call checks on hand-made calls: each passes what a right server sends and throws a
 * Finding naming the fault otherwise.
 */
import { describe, expect, it } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import {
  type AudioAtDone,
  assertArrivedWithin,
  assertAudioFetchableAtDone,
  assertCalled,
  assertCalledByRunEnd,
  assertCalledOnce,
  assertCalledWhenDone,
  assertCallRecorded,
  assertDoneBodyOfTake,
  assertDoneCalledOnceWhenDone,
  assertLastCallShown,
  assertNotCalledAgain,
  assertNotDelayedBySlowSink,
  assertStatusCallOfTake,
  assertStatusesCalled,
  calledStatuses,
  callRecordProblems,
  callsOf,
  callTimeline,
  slowSinkAllowanceMs,
  statusesNotCalled,
} from '../../src/checks/webhook-calls.ts';
import { findingOf } from '../support/finding-of.ts';

const call = (hook: string, status: string, receivedMs = 0) => ({
  hook,
  json: { take_id: 't1', status },
  receivedMs,
});

describe('reading the calls', () => {
  const calls = [call('status', 'started', 10), call('done', 'ready', 30), call('status', 'ready', 20)];

  it('selects one hook, reads the statuses and makes a timeline', () => {
    expect(callsOf(calls, 'status').map((c) => c.receivedMs)).toEqual([10, 20]);
    expect(calledStatuses(calls)).toEqual(['started', 'ready', 'ready']);
    expect(calledStatuses([{ json: 'not an object' }])).toEqual(['?']);
    expect(callTimeline(callsOf(calls, 'status'))).toEqual([
      { atMs: 10, status: 'started' },
      { atMs: 20, status: 'ready' },
    ]);
  });
});

describe('how often the done hook was called', () => {
  it('wants a done call by the end of the run, whenever it came', () => {
    const o = { seen: 'take polled ready', waitedMs: 42_400, leastMs: 30_000 };
    expect(() => assertCalledByRunEnd(1, 'take t1', o)).not.toThrow();
    const finding = findingOf(() => assertCalledByRunEnd(0, 'take t1', o));
    expect(finding.message).toBe(
      "take t1: done_webhook was never called: none arrived in the 42 s from when it was seen done (take polled ready) to the end of the run (the contract gives no time; the 30 s the run waits at least are speakcheck's)",
    );
    expect(finding.facts).toMatchObject({ expected: 'a call by the end of the run', actual: '0 calls' });
  });

  it('wants exactly one, carrying a done status', () => {
    expect(() => assertDoneCalledOnceWhenDone([call('done', 'ready')], 'take t1')).not.toThrow();
    expect(
      findingOf(() => assertDoneCalledOnceWhenDone([call('done', 'ready'), call('done', 'ready')], 'take t1'))
        .message,
    ).toBe('take t1: done_webhook was called 2 times (statuses ["ready","ready"]); expected exactly once');
    expect(findingOf(() => assertDoneCalledOnceWhenDone([], 'take t1')).facts.actual).toBe(0);
    expect(findingOf(() => assertDoneCalledOnceWhenDone([call('done', 'started')], 'take t1')).message).toBe(
      'take t1: done_webhook called while the take was started, not done',
    );
  });

  it('counts calls of any hook: once, not again, at all', () => {
    expect(() => assertCalledOnce(1, 'take t1', 'a {"post_url"} done_webhook')).not.toThrow();
    expect(() => assertCalledOnce(0, 'take t1', 'a {"post_url"} done_webhook')).toThrow(
      'take t1: a {"post_url"} done_webhook called 0 times; expected once',
    );
    expect(() => assertNotCalledAgain(0, 'voice v1', 'done_webhook')).not.toThrow();
    expect(() => assertNotCalledAgain(1, 'voice v1', 'done_webhook')).not.toThrow();
    expect(() => assertNotCalledAgain(2, 'voice v1', 'done_webhook')).toThrow(
      /called 2 times; expected once/,
    );
    expect(() => assertCalled(1, 'voice v1', 'done_webhook', 'voice polled done')).not.toThrow();
    expect(() => assertCalled(0, 'voice v1', 'done_webhook', 'voice polled done')).toThrow(
      'voice v1: done_webhook was never called (voice polled done)',
    );
  });

  it("wants the done call's item done", () => {
    expect(() => assertCalledWhenDone({ status: 'error' }, 'voice v1', 'voice')).not.toThrow();
    expect(() => assertCalledWhenDone({ status: 'started' }, 'voice v1', 'voice')).toThrow(
      'voice v1: done_webhook called while the voice was started, not done',
    );
  });
});

describe('a status call against the take it was registered for', () => {
  it('is about this take; a done status is the one the run saw', () => {
    const what = 'main take t1: status call #2';
    expect(() =>
      assertStatusCallOfTake({ take_id: 't1', status: 'started' }, 't1', what, 'ready'),
    ).not.toThrow();
    expect(() =>
      assertStatusCallOfTake({ take_id: 't1', status: 'ready' }, 't1', what, 'ready'),
    ).not.toThrow();
    expect(() => assertStatusCallOfTake({ take_id: 't1', status: 'ready' }, 't1', what)).not.toThrow();
    expect(
      findingOf(() => assertStatusCallOfTake({ take_id: 't0', status: 'started' }, 't1', what)),
    ).toMatchObject({
      message:
        'main take t1: status call #2: the body is about take "t0", not the take the hook was registered for',
      facts: { expected: 't1', actual: 't0' },
    });
    expect(
      findingOf(() => assertStatusCallOfTake({ take_id: 't1', status: 'error' }, 't1', what, 'ready'))
        .message,
    ).toBe('main take t1: status call #2: the body says "error", the run saw the take end ready');
  });
});

describe('the done body', () => {
  it('is about this take, in a done status', () => {
    expect(assertDoneBodyOfTake({ take_id: 't1', status: 'ready' }, 't1')).toBe('ready');
    expect(() => assertDoneBodyOfTake({ take_id: 't2', status: 'ready' }, 't1')).toThrow(
      'done_webhook body is about take "t2", expected t1',
    );
    expect(
      findingOf(() => assertDoneBodyOfTake({ take_id: 't1', status: 'progress_50' }, 't1')).facts,
    ).toEqual({
      where: 'done_webhook body /status',
      expected: 'ready | error | timeout',
      actual: 'progress_50',
    });
  });
});

describe('the audio right after the done call', () => {
  const good: AudioAtDone = { format: 'wav', redirectStatus: 307, fetchStatus: 200, bytes: 100 };

  it('passes every format fetched, and names each one that was not', () => {
    expect(() => assertAudioFetchableAtDone([good, { ...good, format: 'mp3' }], 't1')).not.toThrow();
    const f = findingOf(() =>
      assertAudioFetchableAtDone(
        [
          good,
          { format: 'mp3', redirectStatus: 404, fetchStatus: null, bytes: 0 },
          { ...good, format: 'ogg', problem: 'not an Ogg container' },
        ],
        't1',
      ),
    );
    expect(f.message).toBe(
      'take t1: right after the done call, audio was not fetchable: mp3 → 404 (0 bytes); ogg → 307 then 200 (100 bytes): not an Ogg container',
    );
  });
});

describe('when the done call came', () => {
  it('within the bound of polling seeing the take done', () => {
    expect(() => assertArrivedWithin(-50, 10_000, 't1')).not.toThrow();
    expect(() => assertArrivedWithin(10_000, 10_000, 't1')).not.toThrow();
    expect(() => assertArrivedWithin(10_001, 10_000, 't1')).toThrow(
      'take t1: done call arrived 10001 ms after polling saw the take done',
    );
  });
});

describe('the status calls', () => {
  const calls = [call('status', 'started'), call('status', 'progress_50'), call('status', 'ready')];

  it('report every status seen but waiting, naming the ones that were not', () => {
    expect(() =>
      assertStatusesCalled(['waiting', 'started', 'progress_50', 'ready'], calls, 'take t1', 'polling saw'),
    ).not.toThrow();
    expect(() =>
      assertStatusesCalled(['started', 'progress_25', 'ready'], calls, 'take t1', 'polling saw'),
    ).toThrow(
      'take t1: polling saw ["progress_25"] but no status call reported it (called: ["started","progress_50","ready"])',
    );
    expect(() =>
      assertStatusesCalled(['started', 'ready'], [], 'websocket take t1', 'the websocket reported'),
    ).toThrow(
      'websocket take t1: the websocket reported ["started","ready"] but no status call reported them',
    );
  });

  it('names the statuses not reported yet, in the order seen, waiting aside', () => {
    expect(statusesNotCalled(['waiting', 'progress_25', 'started', 'ready'], calls.slice(1))).toEqual([
      'progress_25',
      'started',
    ]);
    expect(statusesNotCalled(['waiting', 'ready'], calls)).toEqual([]);
  });

  it('at the end of the run, say how long the run waited for them and that the time is ours', () => {
    const o = { seen: 'take polled ready', waitedMs: 41_600, leastMs: 30_000 };
    expect(() =>
      assertStatusesCalled(['started', 'ready'], calls, 'take t1', 'polling saw', o),
    ).not.toThrow();
    expect(
      findingOf(() => assertStatusesCalled(['started', 'ready'], calls.slice(1), 'take t1', 'polling saw', o))
        .message,
    ).toBe(
      'take t1: polling saw ["started"] but no status call reported it (called: ["progress_50","ready"]) in the 42 s from when the take was seen done (take polled ready) to the end of the run (the contract gives no time; the 30 s the run waits at least are speakcheck\'s)',
    );
  });
});

describe("the take's record of its last call", () => {
  const delivered = { postUrl: 'http://127.0.0.1:1/hooks/k/done', answeredStatus: 200 };
  const record = { post_url: delivered.postUrl, timestamp_ms: 2000, status_code: 200 };

  it('shows a last call answered 200', () => {
    expect(() => assertLastCallShown(record, 't1')).not.toThrow();
    expect(() => assertLastCallShown({ post_url: delivered.postUrl }, 't1')).toThrow(
      'take t1: done_webhook does not show the last call (timestamp_ms, status_code 200)',
    );
    expect(() => assertLastCallShown(undefined, 't1')).toThrow(Finding);
  });

  it('names the delivered call: its URL, a time after the take was made, what the hook answered', () => {
    expect(callRecordProblems(record, 1000, delivered)).toEqual([]);
    expect(
      callRecordProblems(
        { post_url: 'http://elsewhere/', timestamp_ms: 999.5, status_code: 500 },
        1000,
        delivered,
      ),
    ).toEqual([
      'post_url is not the URL given',
      'timestamp_ms is not the time of a call made after the take was created',
      'status_code is not 200, what the hook answered',
    ]);
    const take = { takeId: 't1', timestampMs: 3000, path: '/v1/speak/takes/t1' };
    expect(() => assertCallRecorded(record, { ...take, timestampMs: 1000 }, delivered, 5000)).not.toThrow();
    const f = findingOf(() => assertCallRecorded(record, take, delivered, 5000));
    expect(f.message).toMatch(
      /^take t1: 5000 ms after its done call was answered 200, done_webhook shows .*: timestamp_ms is not the time/,
    );
    expect(f.facts.where).toBe('GET /v1/speak/takes/t1 /done_webhook');
  });
});

describe('a slow sink', () => {
  it('may cost half the baseline and two delays, no more', () => {
    expect(slowSinkAllowanceMs(2000, 4000)).toBe(11_000);
    expect(() => assertNotDelayedBySlowSink(11_000, 2000, 4000, 't1')).not.toThrow();
    expect(findingOf(() => assertNotDelayedBySlowSink(11_001, 2000, 4000, 't1')).facts).toEqual({
      expected: '<= 11000 ms',
      actual: 11_001,
    });
  });
});
