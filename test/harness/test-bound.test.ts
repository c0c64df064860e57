/**
 * A test's bound is its own time: the server's Retry-After holds the whole run, and that hold is
 * added to the bound (a rate-limited server must not leave a test unjudged for asking the run to
 * wait); the run's budget still ends it. CI on 2026-11-28: a list property ran out of its 120 s while
 * a server answering 429 with Retry-After 10 s held the run, and the run said NOT CONCLUDED.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { SharedThrottle } from '../../src/client/back-pressure.ts';
import { waitAsAsked } from '../../src/client/own-waits.ts';
import {
  MAX_TIMER_MS,
  runnerTimeoutMs,
  TestBoundExceeded,
  withinBound,
} from '../../src/harness/test-bound.ts';

const never = () => new Promise<never>(() => {});

/** A throttle of a run with an hour's budget (a run's holds may extend a bound up to its budget). */
function budgeted(): SharedThrottle {
  const throttle = new SharedThrottle();
  throttle.reset({ deadlineMs: Date.now() + 3_600_000 });
  return throttle;
}

/** Where a bounded body stands: still running, done, or ended by its bound (with the error). */
function watch(p: Promise<void>) {
  const state: { settled?: 'done' | 'bound'; error?: unknown } = {};
  p.then(
    () => {
      state.settled = 'done';
    },
    (error) => {
      state.settled = 'bound';
      state.error = error;
    },
  );
  return state;
}

describe("a test's bound counts its own time, not the server's holds", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('without a hold, the bound ends a body that never settles, and not before', async () => {
    const throttle = new SharedThrottle();
    const state = watch(withinBound(1000, 'hangs', never, throttle));
    await vi.advanceTimersByTimeAsync(999);
    expect(state.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    expect(state.error).toBeInstanceOf(TestBoundExceeded);
    expect(String((state.error as Error).message)).toMatch(
      /^"hangs" did not finish within its bound of 1\.0 s \(/,
    );
  });

  test("a 429's hold during the test is added to its bound, and the sentence names it", async () => {
    const throttle = new SharedThrottle();
    const state = watch(withinBound(10_000, 'throttled', never, throttle));
    await vi.advanceTimersByTimeAsync(2000);
    throttle.noteThrottled(429, 5000, 5000);
    await vi.advanceTimersByTimeAsync(8000);
    expect(state.settled, 'the bound alone has passed; the hold has not been given back yet').toBeUndefined();
    await vi.advanceTimersByTimeAsync(4999);
    expect(state.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    expect((state.error as Error).message).toContain(
      "within its bound of 10 s plus the 5.0 s the server's Retry-After held the run",
    );
  });

  test('a body that finishes within the extension is done, not bounded', async () => {
    const throttle = budgeted();
    let finish: () => void = () => {};
    const body = () => new Promise<void>((resolve) => (finish = resolve));
    const state = watch(withinBound(1000, 'finishes', body, throttle));
    throttle.noteThrottled(429, 3000, 3000);
    await vi.advanceTimersByTimeAsync(3500);
    expect(state.settled).toBeUndefined();
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.settled).toBe('done');
  });

  test("a hold over before the test started is not this test's; one under way counts for what is left", async () => {
    const over = new SharedThrottle();
    over.noteThrottled(429, 5000, 5000);
    await vi.advanceTimersByTimeAsync(5000);
    const after = watch(withinBound(1000, 'after', never, over));
    await vi.advanceTimersByTimeAsync(1000);
    expect(after.settled).toBe('bound');

    const underWay = budgeted();
    underWay.noteThrottled(429, 5000, 5000);
    await vi.advanceTimersByTimeAsync(2000);
    const during = watch(withinBound(1000, 'during', never, underWay));
    await vi.advanceTimersByTimeAsync(3999);
    expect(during.settled, 'the bound and the 3 s of the hold still ahead').toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(during.settled).toBe('bound');
  });

  test("past the run's deadline the run's stop concludes; the bound follows a moment later as a backstop", async () => {
    const throttle = new SharedThrottle();
    throttle.reset({ deadlineMs: Date.now() + 3000 });
    const state = watch(withinBound(1000, 'budget', never, throttle));
    throttle.noteThrottled(429, 60_000, 60_000);
    await vi.advanceTimersByTimeAsync(3000 + 4999);
    expect(state.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    expect((state.error as Error).message).toMatch(
      /^"budget" was still running when the run's budget \(--max-time\) ran out/,
    );
  });

  test("the time the body's own requests waited as the server asked (a 503's Retry-After) is added", async () => {
    const body = async () => {
      await waitAsAsked(3000);
      await never();
    };
    const state = watch(withinBound(1000, 'shed', body, budgeted()));
    await vi.advanceTimersByTimeAsync(3999);
    expect(state.settled, 'the bound and the 3 s the server asked for').toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    expect((state.error as Error).message).toMatch(
      /^"shed" did not finish within its bound of 1\.0 s plus the 3\.0 s its requests waited as the server asked \(/,
    );
  });

  test('requests waiting side by side count once; waits outside the test not at all', async () => {
    const outside = waitAsAsked(5000); // another test's request, before this one started
    const body = async () => {
      await Promise.all([waitAsAsked(2000), waitAsAsked(2000)]);
      await never();
    };
    const state = watch(withinBound(1000, 'side by side', body, budgeted()));
    await vi.advanceTimersByTimeAsync(2999);
    expect(state.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    await vi.advanceTimersByTimeAsync(2000);
    await outside;
  });

  test('without a budget the holds at most double the bound (within vitest timeout)', async () => {
    const throttle = new SharedThrottle();
    const state = watch(withinBound(1000, 'no budget', never, throttle));
    throttle.noteThrottled(429, 60_000, 60_000);
    await vi.advanceTimersByTimeAsync(1999);
    expect(state.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('bound');
    expect(runnerTimeoutMs(1000, throttle)).toBeGreaterThan(2000);
  });
});

describe("vitest's own timeout: only the backstop behind the bound", () => {
  test('no budget: room for holds as long as the bound, and ten seconds behind', () => {
    expect(runnerTimeoutMs(120_000, new SharedThrottle())).toBe(250_000);
  });

  test('never longer than a Node timer takes (a longer one fires at once)', () => {
    const throttle = new SharedThrottle();
    throttle.reset({ deadlineMs: Date.now() + 30 * 24 * 3600 * 1000 });
    expect(runnerTimeoutMs(120_000, throttle)).toBe(MAX_TIMER_MS);
  });

  test("a budget: room for the holds up to the run's end", () => {
    const throttle = new SharedThrottle();
    throttle.reset({ deadlineMs: Date.now() + 600_000 });
    const timeout = runnerTimeoutMs(120_000, throttle);
    expect(timeout).toBeGreaterThan(130_000 + 599_000);
    expect(timeout).toBeLessThanOrEqual(130_000 + 600_000);
  });
});
