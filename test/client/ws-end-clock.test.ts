/**
 * The end-of-request clock on its own, on fake timers: which bound ends a request when, and with
 * which sentence. (ws-stream.test.ts drives it through a real connection.)
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EndOfRequestClock } from '../../src/client/ws-end-clock.ts';
import {
  earlyConclusions,
  newStreamedRequest,
  type Pending,
  type RequestOutcome,
  resetEarlyConclusions,
  type StreamTimeouts,
} from '../../src/client/ws-request.ts';

const TIMEOUTS: StreamTimeouts = {
  firstMessageMs: 100,
  endOfTakeMs: 1_000,
  settleMs: 50,
  silenceGraceMs: 200,
  doneAfterMarkerMs: 500,
};

function pending(shown: Partial<Pick<Pending, 'doneSeen' | 'markerSeen' | 'anyMessage'>> = {}): Pending {
  return {
    request: newStreamedRequest(7, 'parts', 0),
    timeouts: TIMEOUTS,
    resolve: () => undefined,
    doneSeen: false,
    markerSeen: false,
    anyMessage: false,
    ...shown,
  };
}

interface Ended {
  outcome: RequestOutcome;
  diagnostic: string;
  seq?: number;
}

/** A clock whose ends are collected; `at` the fake time each came. */
function clockOn(p: Pending) {
  const ends: Array<Ended & { at: number }> = [];
  const clock = new EndOfRequestClock(p, (outcome, diagnostic, seq) =>
    ends.push({ outcome, diagnostic, ...(seq === undefined ? {} : { seq }), at: Date.now() }),
  );
  return { clock, ends };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  resetEarlyConclusions();
});
afterEach(() => {
  vi.useRealTimers();
  resetEarlyConclusions();
});

describe('end-of-request clock', () => {
  it('no message within firstMessageMs of being first in line: a timeout naming what came instead', () => {
    const { clock, ends } = clockOn(pending());
    clock.startInLine(() => '; 1 message(s) named request_id 7 with another JSON type');
    vi.advanceTimersByTime(99);
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ends).toEqual([
      {
        outcome: 'timeout',
        diagnostic:
          'no message for request 7 within 100 ms of it being first in line; 1 message(s) named request_id 7 with another JSON type',
        at: 100,
      },
    ]);
  });

  it('a first message came: the request may run until endOfTakeMs from being first in line', () => {
    const p = pending();
    const { clock, ends } = clockOn(p);
    clock.startInLine(() => '');
    p.anyMessage = true;
    vi.advanceTimersByTime(999);
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ outcome: 'timeout', at: 1_000 });
    expect(ends[0]!.diagnostic).toMatch(
      /^request 7 did not end within 1000 ms: statuses none \(no done status\)/,
    );
  });

  it('done and end marker but audio missing: stragglers are awaited settleMs once, from the first call', () => {
    const { clock, ends } = clockOn(pending({ doneSeen: true, markerSeen: true, anyMessage: true }));
    clock.awaitStragglers(4);
    vi.advanceTimersByTime(30);
    clock.awaitStragglers(5); // a later frame does not push the bound out
    vi.advanceTimersByTime(20);
    expect(ends).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ outcome: 'ended', seq: 4, at: 50 });
    expect(ends[0]!.diagnostic).toContain('still incomplete 50 ms after its done status and end marker');
  });

  it('done without end marker: each message re-arms the grace; silence ends it, and the next request at once', () => {
    const first = clockOn(pending({ doneSeen: true, anyMessage: true }));
    first.clock.rearmSilenceGrace();
    vi.advanceTimersByTime(150);
    first.clock.rearmSilenceGrace(); // another message of the request
    vi.advanceTimersByTime(199);
    expect(first.ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(first.ends).toHaveLength(1);
    expect(first.ends[0]).toMatchObject({ outcome: 'ended', at: 350 });
    expect(first.ends[0]!.diagnostic).toContain('showed its done status, then nothing for 200 ms');
    expect(earlyConclusions().get('done-without-end-marker')).toBe(first.ends[0]!.diagnostic);

    const next = clockOn(pending({ doneSeen: true, anyMessage: true }));
    next.clock.rearmSilenceGrace();
    vi.advanceTimersByTime(0);
    expect(next.ends).toHaveLength(1);
    expect(next.ends[0]!.diagnostic).toContain(
      'concluded at once: an earlier request of this run already showed it',
    );
  });

  it('end marker without done status: the longer grace, doneAfterMarkerMs', () => {
    const { clock, ends } = clockOn(pending({ markerSeen: true, anyMessage: true }));
    clock.rearmSilenceGrace();
    vi.advanceTimersByTime(499);
    expect(ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ends[0]!.diagnostic).toContain(
      'sent its end-of-take marker, then nothing for 500 ms: no done Take status (ready) arrived',
    );
  });

  it('neither end, or both: no grace runs', () => {
    const none = clockOn(pending({ anyMessage: true }));
    none.clock.rearmSilenceGrace();
    const both = clockOn(pending({ doneSeen: true, markerSeen: true, anyMessage: true }));
    both.clock.rearmSilenceGrace();
    vi.advanceTimersByTime(10_000);
    expect(none.ends).toEqual([]);
    expect(both.ends).toEqual([]);
  });

  it('stop: no bound ends the request any more', () => {
    const { clock, ends } = clockOn(pending({ doneSeen: true, anyMessage: true }));
    clock.startInLine(() => '');
    clock.awaitStragglers(1);
    clock.rearmSilenceGrace();
    clock.stop();
    vi.advanceTimersByTime(10_000);
    expect(ends).toEqual([]);
  });
});
