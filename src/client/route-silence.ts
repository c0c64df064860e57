/**
 * A route that does not answer is learned once (issue 49), beside the route that only throttles
 * (./route-patience.ts) and the silent websocket (./ws-end-clock.ts). A request that got no
 * response headers (or no first byte of its body) within its bound is a "no answer" of its route
 * (./route.ts: method + path template; a signed URL's host is a route of its own). Once a route has
 * not answered SILENCE_LEARNED_AFTER times while the server answered other requests (it is up,
 * this route is not), the run knows it (a run-wide fact, src/facts): every later request to the
 * route concludes at once with the 'hung' diagnostic naming the first evidence, never its own wait.
 * A route that answers again starts over.
 *
 * The bound itself comes from what the server showed (`answerBoundMs`): a multiple of the slowest
 * answer this thread saw on the route, never below a floor nor above the option's ceiling, so a
 * hang is named quickly against a fast server and a slow server still gets its time.
 */
import { redactText } from '../evidence/redact.ts';
import { type FactOf, type FactStore, runFacts } from '../facts/run-facts.ts';

/** No-answers of one route (while the server answered others) before the run knows it. */
export const SILENCE_LEARNED_AFTER = 2;

/** Bounds of the first answer: a multiple of the slowest answer seen, never below the floor. */
export const ANSWER_BOUND_MULTIPLE = 10;
export const ANSWER_BOUND_FLOOR_MS = 8_000;
let floorMs = ANSWER_BOUND_FLOOR_MS;
/** Answers of a route seen before its own observations set its bound. */
export const ANSWER_BOUND_MIN_SAMPLES = 3;

/** The slowest answer (to headers) and how many this thread saw, per route. */
const observed = new Map<string, { slowestMs: number; samples: number }>();

/** A route answered (its headers arrived) after `ms`: the measure its later bounds come from. */
export function observeAnswer(route: string, ms: number): void {
  const seen = observed.get(route);
  observed.set(route, {
    slowestMs: Math.max(seen?.slowestMs ?? 0, ms),
    samples: (seen?.samples ?? 0) + 1,
  });
}

/**
 * How long a request of `route` waits for its first answer: `ceilingMs` (the option) until the
 * route answered ANSWER_BOUND_MIN_SAMPLES times, then ANSWER_BOUND_MULTIPLE × its slowest answer,
 * at least ANSWER_BOUND_FLOOR_MS and at most `ceilingMs`.
 */
export function answerBoundMs(route: string, ceilingMs: number): number {
  return boundFrom(observed.get(route), ceilingMs);
}

export function boundFrom(
  seen: { slowestMs: number; samples: number } | undefined,
  ceilingMs: number,
): number {
  if (!seen || seen.samples < ANSWER_BOUND_MIN_SAMPLES) return ceilingMs;
  return Math.min(ceilingMs, Math.max(floorMs, Math.ceil(ANSWER_BOUND_MULTIPLE * seen.slowestMs)));
}

/**
 * Tests: a lower floor (undefined: ANSWER_BOUND_FLOOR_MS again), so that showing what a learned
 * bound does not cut (a body byte later than the floor) waits a second, not eight.
 */
export function setAnswerBoundFloorForTests(ms?: number): void {
  floorMs = ms ?? ANSWER_BOUND_FLOOR_MS;
}

/** Forgets the observed answers (tests). */
export function resetObservedAnswers(): void {
  observed.clear();
}

export class RouteSilence {
  readonly key: `route:${string}`;

  constructor(
    /** "GET /v1/speak/takes/{take_id}" */
    readonly route: string,
    /**
     * Requests the whole run got answered so far (every thread): what came after a no-answer's
     * request was sent says the server was up while this route was silent.
     */
    private readonly servedTotal: () => number,
    private readonly facts: FactStore = runFacts(),
  ) {
    this.key = `route:${route}`;
  }

  /** The fact that the route does not answer, if the run learned it. */
  unanswered(): FactOf<'unanswered'> | undefined {
    return this.facts.find(this.key, 'unanswered');
  }

  /** The route answered: its no-answers start over (written only when some are open). */
  answered(): void {
    if (this.streak().length > 0) this.facts.record({ key: this.key, type: 'answered-again' });
  }

  /**
   * A request of the route got no answer within `boundMs` (`diagnostic`: the request's own
   * sentence; `servedBefore`: the run's answered count when it was sent). Returns the fact when the
   * run now knows the route does not answer: SILENCE_LEARNED_AFTER no-answers in a row while other
   * requests were answered after the first of them was sent (a server that answers nothing at all
   * is an outage of the server, not of this route). One no-answer alone concludes nothing.
   */
  noAnswer(diagnostic: string, boundMs: number, servedBefore = 0): FactOf<'unanswered'> | undefined {
    const known = this.unanswered();
    if (known) return known;
    // Redacted here too: the sentence is printed (outage lines, reports) and may hold a signed URL.
    const sentence = redactText(diagnostic);
    this.facts.record({ key: this.key, type: 'no-answer', sentence, boundMs, servedBefore });
    const streak = this.streak();
    const first = streak[0];
    if (!first || streak.length < SILENCE_LEARNED_AFTER) return undefined;
    const served = this.servedTotal() - (first.servedBefore ?? 0);
    if (served <= 0) return undefined;
    const spanMs = Date.now() - (first.atMs ?? Date.now());
    this.facts.record({
      key: this.key,
      type: 'unanswered',
      consequence: { kind: 'blocks' },
      sentence: `${this.route} did not answer ${streak.length} requests while ${served} other request${served === 1 ? ' was' : 's were'} answered; the first: ${redactText(first.sentence ?? 'no answer')}`,
      outage: { route: this.route, statuses: [], answers: streak.length, spanMs, servedElsewhere: served },
    });
    // Two threads may conclude together: the first fact recorded is the run's.
    return this.unanswered();
  }

  /** The route's no-answers since it last answered. */
  private streak(): FactOf<'no-answer'>[] {
    const mine = this.facts.all().filter((f) => f.key === this.key);
    const last = mine.map((f) => f.type).lastIndexOf('answered-again');
    return mine.slice(last + 1).filter((f): f is FactOf<'no-answer'> => f.type === 'no-answer');
  }
}
