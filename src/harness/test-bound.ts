/**
 * A test's time bound: speakcheck's own limit for one test, which concludes nothing about the
 * server when it runs out (not concluded, ./disposition.ts). The bound counts the test's own time:
 * while the server's Retry-After holds the whole run (a 429, src/client/back-pressure.ts), the test
 * cannot go on, so that hold is added to its bound, and so is the time its own requests waited as
 * the server asked (a 503's Retry-After, a route throttled alone: src/client/own-waits.ts) —
 * back-pressure is never a verdict, and a rate-limited or load-shedding server must not leave a
 * test unjudged only because it asked the run to wait. The
 * run's budget (--max-time) still ends every test: at the deadline the run stops (src/run/run-stop.ts:
 * "not concluded", the budget named); the bound follows a moment later only as a backstop.
 */
import { runThrottle, type SharedThrottle } from '../client/back-pressure.ts';
import { OwnWaits, withOwnWaits } from '../client/own-waits.ts';
import { throttleSentence } from '../client/throttle-words.ts';
import { SpeakcheckError } from '../errors.ts';

/**
 * vitest's own timeout sits this far behind the test's bound: the bound is ours, and running out of
 * it concludes nothing (not concluded, the harness's limit); vitest's is only the backstop.
 */
const RUNNER_GRACE_MS = 10_000;
/** Past the run's deadline the run's own stop concludes the test; the bound waits this long behind it. */
const DEADLINE_GRACE_MS = 5_000;
/** The longest a Node timer waits (2^31 - 1 ms): a longer delay fires after 1 ms instead. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * vitest's timeout for a test of bound `boundMs`, fixed when the test is registered: the grace
 * behind the bound, and room for the waits the bound may be extended by (the rest of the run's
 * budget; without one, as long again as the bound, as withinBound allows).
 */
export function runnerTimeoutMs(boundMs: number, throttle: SharedThrottle = runThrottle()): number {
  const deadline = throttle.deadlineMs();
  const room = deadline === undefined ? boundMs : Math.max(0, deadline - Date.now());
  return Math.min(MAX_TIMER_MS, boundMs + RUNNER_GRACE_MS + room);
}

/**
 * Runs `body` within its bound. Past the bound (plus the time the server held the run meanwhile and
 * the time the body's own requests waited as it asked; at the run's deadline the run's stop
 * concludes first) the body is abandoned — it may still be waiting on the server — and the test
 * ends with TestBoundExceeded, naming what the run waited on.
 */
export async function withinBound(
  boundMs: number,
  name: string,
  body: () => unknown,
  throttle: SharedThrottle = runThrottle(),
): Promise<void> {
  const heldAtStart = throttle.heldPastMs();
  const own = new OwnWaits();
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    const expire = () => {
      const heldMs = throttle.heldMs() - heldAtStart;
      const ownWaitMs = own.ms();
      const deadline = throttle.deadlineMs();
      // Without a budget (the suites run by vitest directly) the waits at most double the bound,
      // within vitest's timeout (runnerTimeoutMs).
      const waitedMs = heldMs + ownWaitMs;
      const ownLeft =
        boundMs +
        (deadline === undefined ? Math.min(waitedMs, boundMs) : waitedMs) -
        (performance.now() - startedAt);
      const budgetLeft =
        deadline === undefined ? Number.POSITIVE_INFINITY : deadline + DEADLINE_GRACE_MS - Date.now();
      const left = Math.min(ownLeft, budgetLeft);
      if (left > 0) timer = setTimeout(expire, Math.min(left, MAX_TIMER_MS));
      else reject(new TestBoundExceeded(name, boundMs, { heldMs, ownWaitMs, budget: budgetLeft <= 0 }));
    };
    timer = setTimeout(expire, boundMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => withOwnWaits(own, body)), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** A test ran out of the time speakcheck gives it: not the server's failure, nothing concluded. */
export class TestBoundExceeded extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_TEST_BOUND';
  constructor(
    name: string,
    boundMs: number,
    o: { heldMs?: number; ownWaitMs?: number; budget?: boolean } = {},
  ) {
    const waited = throttleSentence(runThrottle().stats());
    const heldMs = o.heldMs ?? 0;
    const ownWaitMs = o.ownWaitMs ?? 0;
    const held = [
      ...(heldMs >= 1000 ? [`the ${seconds(heldMs)} s the server's Retry-After held the run`] : []),
      ...(ownWaitMs >= 1000 ? [`the ${seconds(ownWaitMs)} s its requests waited as the server asked`] : []),
    ]
      .map((part) => ` plus ${part}`)
      .join('');
    super(
      o.budget
        ? `"${name}" was still running when the run's budget (--max-time) ran out (speakcheck's limit, not the server's failure); the run so far: ${waited}`
        : `"${name}" did not finish within its bound of ${seconds(boundMs)} s${held} (speakcheck's limit for one test, not the server's failure); the run so far: ${waited}`,
    );
    this.name = 'TestBoundExceeded';
  }
}

function seconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}
