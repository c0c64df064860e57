/**
 * Waiting out lifetimes (issue 31): an access token, a signed audio URL and a websocket URL must be
 * refused once their lifetime has passed. Two modes (`--expiry`, RunConfig.expiry.mode):
 *   quick (strict, lenient): a lifetime up to --max-expiry-wait is waited out; a longer one leaves
 *     the requirement not judged, naming what would judge it (--profile acceptance, waits N s);
 *   full (acceptance): every known lifetime is waited out, as long as the wait ends within the run
 *     budget (--max-time); the waits run side by side (suites/expiry.spec.ts) while the rest of
 *     the suites run, and the terminal shows a countdown (announceExpiryWait → the reporter).
 * No vitest import here: the reporter (main process) reads the announcements with it.
 * A lifetime the run cannot find out (no JWT exp, no X-Amz-Expires, no flag) is never guessed: the
 * requirement is not judged and the flag that would judge it is named.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Target } from '../config/types.ts';
import type { RunPlan } from './run-plan.ts';

/**
 * How long past a lifetime a refusal is demanded, and how long before its end "still accepted" is
 * tried: a server's clock may be off from ours, and stamps are whole seconds (JWT exp, X-Amz-Date).
 */
export const EXPIRY_MARGIN_MS = 2_000;
/**
 * The run's own stack (embedded or container, on this machine) shares our clock: past its lifetime
 * only the stamps' rounding is left (a JWT's exp and X-Amz-Date are floored to the second, so they
 * end no later than the lifetime after the request). Half a second instead of two takes 1.5 s off
 * the expiry file, which with the webhook windows bounds the main job (issue 42).
 */
export const OWN_STACK_EXPIRY_MARGIN_MS = 500;

/** How long past a lifetime a refusal is demanded against this target. */
export function expiryMarginMs(target: Target): number {
  return target === 'remote' ? EXPIRY_MARGIN_MS : OWN_STACK_EXPIRY_MARGIN_MS;
}
/** What a check after the wait may take (its requests), kept inside the run budget. */
const CHECK_SLACK_MS = 20_000;
/** The prefix of the worker's console line that announces a wait to the reporter's countdown. */
export const EXPIRY_WAIT_LOG = 'speakcheck-expiry-wait ';

export type ExpiryPlan =
  | { wait: true; expiresAtMs: number; lifetimeS: number }
  /** Not judged: the reason, and what would judge it. */
  | { wait: false; reason: string; wouldJudge: string };

/**
 * Whether the run waits this lifetime out. `expiresAtMs`: when the thing expires, if known;
 * `lifetimeS` for the messages; `source` says where the lifetime came from; `flag` is the option
 * that states it.
 */
export function planExpiry(o: {
  what: string;
  expiresAtMs: number | undefined;
  lifetimeS: number | undefined;
  source: string;
  flag: string;
  expiry: RunPlan['expiry'];
  nowMs?: number;
}): ExpiryPlan {
  const { what, expiry, source } = o;
  if (o.expiresAtMs === undefined || o.lifetimeS === undefined)
    return {
      wait: false,
      reason: `${what}: lifetime unknown (${source})`,
      wouldJudge: `${o.flag} S (the lifetime the server gives them) with --profile acceptance or --expiry full`,
    };
  const lifetimeS = Math.round(o.lifetimeS);
  const waitS = Math.ceil(lifetimeS + EXPIRY_MARGIN_MS / 1000);
  if (expiry.mode !== 'full') {
    if (lifetimeS <= expiry.maxWaitS) return { wait: true, expiresAtMs: o.expiresAtMs, lifetimeS };
    return {
      wait: false,
      reason: `${what} live ${lifetimeS} s (${source}), longer than the ${expiry.maxWaitS} s a quick run waits (--max-expiry-wait)`,
      wouldJudge: `--profile acceptance or --expiry full (waits ${waitS} s beside the rest of the run)`,
    };
  }
  const endMs = o.expiresAtMs + EXPIRY_MARGIN_MS + CHECK_SLACK_MS;
  if (expiry.deadlineMs !== undefined && endMs > expiry.deadlineMs) {
    const budgetS = expiry.maxTimeS ?? 0;
    const neededS = Math.ceil(budgetS + (endMs - expiry.deadlineMs) / 1000);
    return {
      wait: false,
      reason: `${what} live ${lifetimeS} s (${source}): the wait would end after the run budget of ${budgetS} s (--max-time)`,
      wouldJudge: `--max-time ${neededS} or more`,
    };
  }
  return { wait: true, expiresAtMs: o.expiresAtMs, lifetimeS };
}

/** Tells the reporter (main process) a wait ends at `untilMs`, for the terminal's countdown. */
export function announceExpiryWait(label: string, untilMs: number): void {
  console.log(`${EXPIRY_WAIT_LOG}${JSON.stringify({ label, untilMs })}`);
}

/** Reads an announcement back (the reporter); undefined for any other console line. */
export function parseExpiryWait(line: string): { label: string; untilMs: number } | undefined {
  if (!line.startsWith(EXPIRY_WAIT_LOG)) return undefined;
  try {
    const parsed = JSON.parse(line.slice(EXPIRY_WAIT_LOG.length)) as { label?: unknown; untilMs?: unknown };
    if (typeof parsed.label === 'string' && typeof parsed.untilMs === 'number')
      return { label: parsed.label, untilMs: parsed.untilMs };
  } catch {
    // not an announcement
  }
  return undefined;
}

/** Waits until `untilMs` (a lifetime's end is a moment, not an event: nothing to await but the clock). */
export async function waitUntil(label: string, untilMs: number): Promise<void> {
  announceExpiryWait(label, untilMs);
  await sleep(Math.max(0, untilMs - Date.now()));
}

/** How often an expired credential the server still accepts is tried again while its leeway lasts. */
export const LEEWAY_ASK_EVERY_MS = 2_000;

/**
 * The waits between tries when each try costs a credential of its own (a websocket URL may be
 * single-use): 2 s, 4 s, 8 s, … A server's leeway is a few seconds or a few minutes (RFC 7519
 * §4.1.4; JWT libraries: 0 to 5 minutes): the tries are close at first, and the credentials needed
 * grow with the logarithm of the leeway, not with the leeway (triesWithin).
 */
export const doublingWaitMs = (attempt: number): number => LEEWAY_ASK_EVERY_MS * 2 ** attempt;

/**
 * The most tries askPastExpiry makes from a lifetime's end to the end of a leeway of `leewayMs`
 * with these waits: as many credentials suffice for a try at the leeway's end. The first try comes
 * a margin past the lifetime and each ask takes time, so the real tries are never more.
 */
export function triesWithin(leewayMs: number, waitMs: (attempt: number) => number): number {
  let tries = 1;
  let atMs = 0;
  while (atMs < leewayMs) {
    atMs += waitMs(tries - 1);
    tries += 1;
  }
  return tries;
}

/** What an expired credential met, tried from its lifetime's end on (askPastExpiry). */
export type PastExpiry<T> =
  /** Refused (as `refused` says) `pastMs` after the lifetime's end. */
  | { kind: 'refused'; answer: T; pastMs: number }
  /** Still accepted once the leeway was over: a verdict. */
  | { kind: 'accepted'; answer: T; pastMs: number }
  /**
   * Still accepted when the test could try no longer, within the leeway: no verdict. `outOf`: the
   * test's time bound came, or its tries (`maxTries`) were all used.
   */
  | { kind: 'within-leeway'; answer: T; pastMs: number; outOf: 'time' | 'tries' };

/** How an expired credential is tried past its lifetime (askPastExpiry). */
export interface PastExpiryTries<T> {
  /** One try; `attempt` counts from 0 (a test with one credential per try picks it by the count). */
  ask: (attempt: number) => Promise<T>;
  refused: (answer: T) => boolean;
  /** The wait after try `attempt` (default: LEEWAY_ASK_EVERY_MS each time). */
  waitMs?: (attempt: number) => number;
  /** How many tries the test has at most (default: no limit but time). */
  maxTries?: number;
}

/**
 * Tries an expired credential (`ask`) from its lifetime's end on (the caller waited the margin), and
 * again (every LEEWAY_ASK_EVERY_MS, or as `waitMs` says) while the server accepts it, until it is
 * refused, the leeway is over, the tries are used up, or the next try would come after `stopAtMs`
 * (the test's own bound). Why a leeway: a server checking an expiry "MAY provide for some small
 * leeway, usually no more than a few minutes, to account for clock skew" (RFC 7519 §4.1.4), and its
 * clock is not ours: an acceptance within it is no violation, and one the test cannot wait out is no
 * verdict.
 */
export async function askPastExpiry<T>(
  o: PastExpiryTries<T> & {
    expiresAtMs: number;
    leewayMs: number;
    stopAtMs: number;
    /** How the wait between tries is made (tests: a fake clock's). */
    wait?: (ms: number) => Promise<unknown>;
  },
): Promise<PastExpiry<T>> {
  const wait = o.wait ?? sleep;
  const waitMs = o.waitMs ?? (() => LEEWAY_ASK_EVERY_MS);
  const leewayEndMs = o.expiresAtMs + o.leewayMs;
  for (let attempt = 0; ; attempt++) {
    const answer = await o.ask(attempt);
    const pastMs = Date.now() - o.expiresAtMs;
    if (o.refused(answer)) return { kind: 'refused', answer, pastMs };
    if (Date.now() >= leewayEndMs) return { kind: 'accepted', answer, pastMs };
    if (attempt + 1 >= (o.maxTries ?? Number.POSITIVE_INFINITY))
      return { kind: 'within-leeway', answer, pastMs, outOf: 'tries' };
    const nextMs = nextTryMs(Math.min(Date.now() + waitMs(attempt), leewayEndMs), o.stopAtMs);
    if (nextMs > o.stopAtMs) return { kind: 'within-leeway', answer, pastMs, outOf: 'time' };
    await wait(Math.max(0, nextMs - Date.now()));
  }
}

/**
 * When the next try comes: at `dueMs`, unless a long wait (a growing one) would carry it past the
 * test's bound while a whole LEEWAY_ASK_EVERY_MS is still left before it: then one last try at the
 * bound, so the test is not cut short by up to a wait. Waits of LEEWAY_ASK_EVERY_MS are never cut.
 */
function nextTryMs(dueMs: number, stopAtMs: number): number {
  return dueMs > stopAtMs && stopAtMs - Date.now() >= LEEWAY_ASK_EVERY_MS ? stopAtMs : dueMs;
}

/** "mm:ss" (or "h:mm:ss") left until `untilMs`. */
export function countdown(untilMs: number, nowMs = Date.now()): string {
  const total = Math.max(0, Math.ceil((untilMs - nowMs) / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}
