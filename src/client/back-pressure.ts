/**
 * Back-pressure: a 429 (RFC 6585 §4) or a 503 (RFC 9110 §15.6.4) is the server asking the client to
 * slow down, not an answer about the request. speak-v1.md leaves rate limits open ("Rate limits ...:
 * not shown"), so a conformant hosted server may throttle at any time; what the checks judge is
 * the answer the server gives once it is willing to answer.
 *
 * One run-wide throttle: the suites run as worker threads of one process, and the preflight and the
 * global setup run in its main thread; all of them share one SharedArrayBuffer (handed to every
 * worker thread through node:worker_threads environment data, which a thread copies when it starts)
 * holding a GCRA pacer (the run's current request rate), a run-wide hold (until when a 429's
 * Retry-After asked everyone to wait), AIMD state and the run's counters. A 429 halves the run's
 * rate (at most once a second) and holds every thread; each second without one gives a quarter
 * back (at least 1 request/s), up to `--max-rps` when given. So the whole run slows down while the server throttles and
 * stops provoking it, and `--max-rps` keeps it under a known limit from the first request.
 */

import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { ClientDiagnostic } from './diagnostics.ts';
import { waitAsAsked } from './own-waits.ts';
import { RoutePatience } from './route-patience.ts';

/** The statuses that are back-pressure, never an answer a check sees. */
export function isBackPressure(status: number | null): boolean {
  return status === 429 || status === 503;
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. The wait in ms from `nowMs`, or
 * undefined when the header is absent or says neither (then the caller backs off on its own).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date always has letters (the day and month names); a bare number with a sign or a
  // fraction is neither form.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;

/**
 * Exponential backoff with jitter for a throttled answer without a usable Retry-After: attempt 0
 * waits 250–500 ms, each further attempt doubles the ceiling, capped at 30 s. At least half the
 * ceiling ("equal jitter"): never zero, and concurrent retries still spread out.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * The longest one request waits on back-pressure (holds and retries together) before giving up:
 * below the suites' hook bound (30 s, suites.vitest.config.ts), so a login in a beforeAll gives up
 * with the throttled diagnostic (not concluded) before vitest fails the hook.
 */
export const PER_REQUEST_THROTTLE_MS = 25_000;
/** The slowest the run is paced while throttled: one request every two seconds. */
const MIN_RATE_MILLI = 500n;
/**
 * The increase per second without a 429: a quarter of the rate, at least 1 request/s. Purely
 * additive (+1/s) took a run throttled at its start 40 s to get back to speed (measured: a full
 * run behind a proxy answering 429 for its first 5 s, 49 s against 10 s); a quarter gets from
 * 2 to 100 requests/s in about 17 s and still backs off by half at the next 429.
 */
const INCREASE_MIN_MILLI = 1_000n;
/** Paced faster than this, the run is unpaced again (no --max-rps): the server's limit is far. */
const UNPACED_ABOVE_MILLI = 500_000n;
/** A burst of 429s answered to requests sent together counts as one decrease. */
const DECREASE_EVERY_US = 1_000_000n;

// Slots of the shared BigInt64Array. Times are µs since the epoch (the same clock in every thread).
const NEXT = 0; // GCRA: the earliest time the next request may start
const HOLD_UNTIL = 1; // no request starts before this (a 429's Retry-After)
const RATE = 2; // the run's request rate in milli-requests/s; 0: not paced
const MAX_RATE = 3; // --max-rps in milli-requests/s; 0: none
const LAST_CHANGE = 4; // last AIMD change
const WINDOW_START = 5; // the request-rate estimate: a one-second window
const WINDOW_COUNT = 6;
const LAST_WINDOW_RATE = 7; // milli-requests/s of the last complete window
const REQUESTS = 8; // every attempt sent, throttled or not
const ANSWERED_429 = 9;
const ANSWERED_503 = 10;
const HELD_US = 11; // wall-clock time the run was held (union of the holds)
const RETRY_AFTER_MIN = 12; // ms; -1: none seen
const RETRY_AFTER_MAX = 13;
const RETRY_AFTER_ABSENT = 14; // throttled answers without a usable Retry-After
const GAVE_UP = 15; // requests that ran out of their back-pressure bound
const DEADLINE = 16; // the run's --max-time, µs since the epoch; 0: none
const WAITED_US = 17; // time requests spent waiting on back-pressure, summed over requests
const ANSWERED = 18; // attempts answered with something other than back-pressure
const SLOTS = 19;

const ENVIRONMENT_KEY = 'speakcheck:run-throttle';

/** What the run saw of the server's limit, summed over every thread. */
export interface ThrottleStats {
  requests: number;
  answered429: number;
  answered503: number;
  /** Smallest and largest Retry-After seen, in seconds (undefined: none had one). */
  retryAfterS?: { min: number; max: number };
  /** Throttled answers without a usable Retry-After (the client backed off on its own). */
  retryAfterAbsent: number;
  /** Wall-clock seconds the whole run was held by the server's Retry-After. */
  heldS: number;
  /** Seconds requests spent waiting on back-pressure, summed over the requests. */
  waitedS: number;
  /** Requests that ran out of their back-pressure bound (not concluded). */
  gaveUp: number;
  /** The run's pace at the end, requests/s (undefined: not paced). */
  rateRps?: number;
}

const nowUs = (): bigint => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));

export class SharedThrottle {
  private readonly a: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS * 8)) {
    this.a = new BigInt64Array(buffer);
    if (this.a.length < SLOTS) throw new RangeError('the shared throttle buffer is too small');
    if (Atomics.load(this.a, RETRY_AFTER_MIN) === 0n && Atomics.load(this.a, REQUESTS) === 0n)
      Atomics.store(this.a, RETRY_AFTER_MIN, -1n);
  }

  /** A new run: every counter to zero, the pace from `--max-rps`, the budget's end. */
  reset(o: { maxRps?: number; deadlineMs?: number } = {}): void {
    for (let i = 0; i < SLOTS; i++) Atomics.store(this.a, i, 0n);
    Atomics.store(this.a, RETRY_AFTER_MIN, -1n);
    const max = o.maxRps === undefined ? 0n : BigInt(Math.max(1, Math.round(o.maxRps * 1000)));
    Atomics.store(this.a, MAX_RATE, max);
    Atomics.store(this.a, RATE, max);
    if (o.deadlineMs !== undefined) Atomics.store(this.a, DEADLINE, BigInt(Math.round(o.deadlineMs * 1000)));
  }

  /** The run's end (epoch ms) when a budget was set. */
  deadlineMs(): number | undefined {
    const d = Atomics.load(this.a, DEADLINE);
    return d === 0n ? undefined : Number(d) / 1000;
  }

  /**
   * Reserves the next start slot and returns how long (ms) to wait for it: after any run-wide hold,
   * and paced at the run's rate (GCRA: each start moves the next earliest start one interval on).
   */
  reserve(): number {
    const now = nowUs();
    this.countWindow(now);
    Atomics.add(this.a, REQUESTS, 1n);
    const base = max(now, Atomics.load(this.a, HOLD_UNTIL));
    const rate = Atomics.load(this.a, RATE);
    if (rate === 0n) return Number(base - now) / 1000;
    const interval = 1_000_000_000n / rate;
    for (;;) {
      const next = Atomics.load(this.a, NEXT);
      const start = max(base, next);
      if (Atomics.compareExchange(this.a, NEXT, next, start + interval) === next)
        return Number(start - now) / 1000;
    }
  }

  /** Waits for a start slot (see reserve). */
  async acquire(): Promise<void> {
    const waitMs = this.reserve();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  /** An answer that was not back-pressure: after a calm second, the rate grows back (see INCREASE_MIN_MILLI). */
  noteAnswer(): void {
    Atomics.add(this.a, ANSWERED, 1n);
    const rate = Atomics.load(this.a, RATE);
    if (rate === 0n) return;
    const now = nowUs();
    const last = Atomics.load(this.a, LAST_CHANGE);
    if (now - last < DECREASE_EVERY_US || now < Atomics.load(this.a, HOLD_UNTIL)) return;
    if (Atomics.compareExchange(this.a, LAST_CHANGE, last, now) !== last) return;
    const cap = Atomics.load(this.a, MAX_RATE);
    const step = rate / 4n > INCREASE_MIN_MILLI ? rate / 4n : INCREASE_MIN_MILLI;
    const raised = rate + step;
    if (cap === 0n && raised > UNPACED_ABOVE_MILLI) Atomics.store(this.a, RATE, 0n);
    else Atomics.store(this.a, RATE, cap > 0n && raised > cap ? cap : raised);
  }

  /**
   * A throttled answer. A 429 means the run as a whole exceeds the server's limit: the run's rate
   * halves (the first time: half the rate the run just went at) and, for `holdMs`, no thread starts
   * a request. A 503 is the server shedding load: only the request that got it waits (a run-wide
   * hold on every shed request would stall the run against a server that sheds one in twenty).
   */
  noteThrottled(status: number, retryAfterMs: number | undefined, holdMs: number, runWide = true): void {
    Atomics.add(this.a, status === 429 ? ANSWERED_429 : ANSWERED_503, 1n);
    if (retryAfterMs === undefined) Atomics.add(this.a, RETRY_AFTER_ABSENT, 1n);
    else this.noteRetryAfter(retryAfterMs);
    // A 429 of a route throttled alone (./route-patience.ts throttledAlone) is that route's limit:
    // only its request waits, like a 503's.
    if (status !== 429 || !runWide) return;
    const now = nowUs();
    this.hold(now, now + BigInt(Math.round(holdMs * 1000)));
    const last = Atomics.load(this.a, LAST_CHANGE);
    if (now - last < DECREASE_EVERY_US) return;
    if (Atomics.compareExchange(this.a, LAST_CHANGE, last, now) !== last) return;
    const rate = Atomics.load(this.a, RATE);
    const from = rate === 0n ? this.recentRateMilli(now) : rate;
    const halved = from / 2n;
    Atomics.store(this.a, RATE, halved < MIN_RATE_MILLI ? MIN_RATE_MILLI : halved);
    // Paced from now on: the next slot starts after the hold.
    Atomics.store(this.a, NEXT, max(Atomics.load(this.a, NEXT), now + BigInt(Math.round(holdMs * 1000))));
  }

  /** Time one request spent waiting on back-pressure (for the summed figure). */
  noteWaited(ms: number): void {
    Atomics.add(this.a, WAITED_US, BigInt(Math.round(ms * 1000)));
  }

  noteGaveUp(): void {
    Atomics.add(this.a, GAVE_UP, 1n);
  }

  stats(): ThrottleStats {
    const n = (slot: number) => Number(Atomics.load(this.a, slot));
    const min = n(RETRY_AFTER_MIN);
    const rate = n(RATE);
    return {
      requests: n(REQUESTS),
      answered429: n(ANSWERED_429),
      answered503: n(ANSWERED_503),
      ...(min >= 0 ? { retryAfterS: { min: min / 1000, max: n(RETRY_AFTER_MAX) / 1000 } } : {}),
      retryAfterAbsent: n(RETRY_AFTER_ABSENT),
      heldS: n(HELD_US) / 1e6,
      waitedS: n(WAITED_US) / 1e6,
      gaveUp: n(GAVE_UP),
      ...(rate > 0 ? { rateRps: rate / 1000 } : {}),
    };
  }

  /**
   * Wall-clock ms the whole run has been held by the server's Retry-After so far, over every thread
   * (a hold already announced counts in full: no request starts before it ends).
   */
  heldMs(): number {
    return Number(Atomics.load(this.a, HELD_US)) / 1000;
  }

  /** How much of the current run-wide hold is still ahead, ms (0: none). */
  holdLeftMs(): number {
    const left = Atomics.load(this.a, HOLD_UNTIL) - nowUs();
    return left > 0n ? Number(left) / 1000 : 0;
  }

  /**
   * The run-wide hold time already behind, ms: heldMs without what is still ahead of a hold under
   * way. A wait or test counts the holds it went through as the growth of this from its start (or
   * from its item's creation). Read again when another thread's 429 changed it between the reads.
   */
  heldPastMs(): number {
    for (;;) {
      const held = this.heldMs();
      const left = this.holdLeftMs();
      if (this.heldMs() === held) return held - left;
    }
  }

  /** The 429s the run got so far, over every thread. */
  answered429(): number {
    return Number(Atomics.load(this.a, ANSWERED_429));
  }

  /** Attempts the server answered with something other than back-pressure, over every thread. */
  answered(): number {
    return Number(Atomics.load(this.a, ANSWERED));
  }

  /** Extends the run-wide hold to `until`, adding only the part not already held to the held time. */
  private hold(now: bigint, until: bigint): void {
    for (;;) {
      const current = Atomics.load(this.a, HOLD_UNTIL);
      if (until <= current) return;
      if (Atomics.compareExchange(this.a, HOLD_UNTIL, current, until) === current) {
        Atomics.add(this.a, HELD_US, until - max(current, now));
        return;
      }
    }
  }

  private noteRetryAfter(ms: number): void {
    const value = BigInt(Math.round(ms));
    for (;;) {
      const min = Atomics.load(this.a, RETRY_AFTER_MIN);
      if (min !== -1n && min <= value) break;
      if (Atomics.compareExchange(this.a, RETRY_AFTER_MIN, min, value) === min) break;
    }
    for (;;) {
      const top = Atomics.load(this.a, RETRY_AFTER_MAX);
      if (top >= value) break;
      if (Atomics.compareExchange(this.a, RETRY_AFTER_MAX, top, value) === top) break;
    }
  }

  /** Counts a start into the one-second window of the rate estimate. */
  private countWindow(now: bigint): void {
    const start = Atomics.load(this.a, WINDOW_START);
    if (now - start >= 1_000_000n && Atomics.compareExchange(this.a, WINDOW_START, start, now) === start) {
      const count = Atomics.exchange(this.a, WINDOW_COUNT, 0n);
      if (start > 0n) Atomics.store(this.a, LAST_WINDOW_RATE, (count * 1_000_000_000n) / (now - start));
    }
    Atomics.add(this.a, WINDOW_COUNT, 1n);
  }

  /** The request rate the run just went at (milli-requests/s): the last window or the current one. */
  private recentRateMilli(now: bigint): bigint {
    const last = Atomics.load(this.a, LAST_WINDOW_RATE);
    const start = Atomics.load(this.a, WINDOW_START);
    const elapsed = now - start;
    const current = elapsed > 100_000n ? (Atomics.load(this.a, WINDOW_COUNT) * 1_000_000_000n) / elapsed : 0n;
    const estimate = last > current ? last : current;
    // Not enough history (the first requests were throttled): start from 4 requests/s.
    return estimate > 0n ? estimate : 4_000n;
  }
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

/**
 * The run-wide throttle of this process: the one in the thread's environment data (set by the
 * main thread before the suites' worker threads started), else a new one, published for the
 * threads started later.
 */
export function runThrottle(): SharedThrottle {
  const shared = getEnvironmentData(ENVIRONMENT_KEY);
  if (shared instanceof SharedArrayBuffer) return cachedThrottle(shared);
  const buffer = new SharedArrayBuffer(SLOTS * 8);
  setEnvironmentData(ENVIRONMENT_KEY, buffer);
  return cachedThrottle(buffer);
}

let cached: SharedThrottle | undefined;
function cachedThrottle(buffer: SharedArrayBuffer): SharedThrottle {
  if (cached?.buffer !== buffer) cached = new SharedThrottle(buffer);
  return cached;
}

/**
 * One request's back-pressure, attempt after attempt (HTTP in ./http.ts, the websocket upgrade in
 * ./ws-connect.ts): paced by the run-wide throttle before each attempt; after a throttled answer,
 * waits as the server asked, or throws the 'throttled' ClientDiagnostic when that wait would pass
 * the request's bound or the run's budget.
 */
export class BackPressure {
  private readonly answers: Array<{ status: number; retryAfter: string | undefined }> = [];
  private waitedMs = 0;
  private readonly patience: RoutePatience | undefined;

  constructor(
    /** "GET http://…" as the diagnostic names the request. */
    private readonly what: string,
    private readonly url: string,
    private readonly boundMs: number = PER_REQUEST_THROTTLE_MS,
    private readonly throttle: SharedThrottle = runThrottle(),
    /**
     * The request's route (./route.ts): a route that never serves is learned once for the run
     * (./route-patience.ts). Undefined: no route patience.
     */
    route?: string,
  ) {
    this.patience =
      route === undefined
        ? undefined
        : new RoutePatience(route, {
            nowMs: () => Date.now(),
            servedTotal: () => throttle.answered(),
          });
  }

  /**
   * Before each attempt: a route the run learned to be unavailable concludes at once; else the
   * run's pace and any run-wide hold.
   */
  async beforeAttempt(): Promise<void> {
    const unavailable = this.answers.length === 0 ? this.patience?.unavailable() : undefined;
    if (unavailable)
      throw this.unavailableDiagnostic(unavailable.sentence ?? 'the route is unavailable', true);
    const asked = performance.now();
    await this.throttle.acquire();
    if (this.answers.length > 0) this.waitedMs += performance.now() - asked;
  }

  /** The server answered (not back-pressure). */
  answered(): void {
    this.patience?.served();
    this.throttle.noteAnswer();
    if (this.waitedMs > 0) this.throttle.noteWaited(this.waitedMs);
  }

  /** A 429 or 503: resolves when the request may go again, or throws the throttled diagnostic. */
  async throttled(status: number, retryAfter: string | undefined): Promise<void> {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const waitMs = retryAfterMs ?? backoffMs(this.answers.length);
    this.answers.push({ status, retryAfter });
    const deadline = this.throttle.deadlineMs();
    const pastBound = this.waitedMs + waitMs > this.boundMs;
    const pastBudget = deadline !== undefined && Date.now() + waitMs > deadline;
    const run429Before = this.throttle.answered429();
    const unavailable = this.patience?.throttled(status, retryAfterMs, run429Before);
    // A route whose 429s are the run's only ones while the rest is served has a limit of its own:
    // holding every thread for it would slow the whole run down for one route (issue 49).
    const alone = status === 429 && this.patience?.throttledAlone(run429Before + 1) === true;
    this.throttle.noteThrottled(status, retryAfterMs, Math.min(waitMs, this.boundMs), !alone);
    if (unavailable) {
      this.throttle.noteGaveUp();
      this.throttle.noteWaited(this.waitedMs);
      throw this.unavailableDiagnostic(unavailable.sentence ?? 'the route is unavailable', false);
    }
    if (pastBound || pastBudget) {
      this.throttle.noteGaveUp();
      this.throttle.noteWaited(this.waitedMs);
      throw new ClientDiagnostic(
        'throttled',
        `${this.summary()} to ${this.what}; waited ${(this.waitedMs / 1000).toFixed(1)} s, ${
          pastBound
            ? `and ${(waitMs / 1000).toFixed(1)} s more would pass the request's bound of ${this.boundMs / 1000} s`
            : "and the run's budget (--max-time) ends before the server lets it through"
        }`,
        this.url,
      );
    }
    // A 429 holds the whole run (noteThrottled), waited out in the next beforeAttempt; a 503, or a
    // 429 of a route throttled alone, only this request.
    if (status === 429 && !alone) return;
    const sleptAt = performance.now();
    await waitAsAsked(waitMs); // counted in the test's own waits (./own-waits.ts)
    this.waitedMs += performance.now() - sleptAt;
  }

  /** The route is unavailable this run: the one sentence of its evidence, and whether this request was sent. */
  private unavailableDiagnostic(sentence: string, notSent: boolean): ClientDiagnostic {
    return new ClientDiagnostic(
      'throttled',
      notSent
        ? `${sentence}; ${this.what} was not sent (the route is unavailable for the rest of the run)`
        : `${sentence}; ${this.what} gave up after ${this.summary()}: the route is unavailable for the rest of the run`,
      this.url,
    );
  }

  /** "throttled: 429 ×3 (Retry-After: 1)" */
  private summary(): string {
    const byStatus = new Map<number, number>();
    for (const a of this.answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    const statuses = [...byStatus].map(([status, n]) => `${status} ×${n}`).join(', ');
    const last = this.answers.at(-1)?.retryAfter;
    return `throttled: ${statuses} (${last === undefined ? 'no Retry-After' : `Retry-After: ${last}`})`;
  }
}
