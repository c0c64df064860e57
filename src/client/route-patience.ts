/**
 * A route that never serves is learned once (issue 37). Back-pressure is never a verdict
 * (./back-pressure.ts), but a route the server only ever answers with 429/503 while it serves the
 * rest of the run would cost every later request to it its own bound. So, per route (./route.ts):
 * once it answered only 429/503 for ROUTE_PATIENCE_MS (counted to the end of the Retry-After it
 * just asked for: the route refuses at least that long), at least ROUTE_PATIENCE_ATTEMPTS of those
 * answers with a Retry-After the client honoured, while other requests of the run were served (the server is up), the
 * route is "unavailable" for the rest of the run (a run-wide fact: src/facts), and every later
 * request to it concludes at once with the 'throttled' diagnostic (not concluded, never failed),
 * naming the evidence in one sentence.
 *
 * Fair to a brief overload: the patience is per route and starts again at any answer of the route
 * that is not back-pressure; a server throttling the whole run (nothing else served) never makes a
 * route unavailable.
 */
import { type FactOf, type FactStore, type RouteOutageData, runFacts } from '../facts/run-facts.ts';

/**
 * What would conclude what an unavailable route kept from being judged: the consequence of the fact
 * recorded here, which the conclusions it leaves and the outage line (src/verdict/words.ts) say.
 */
export const OUTAGE_WOULD_JUDGE =
  '--max-rps under the server’s limit, a longer --max-time, or the server fixed to serve this route';

/**
 * How long a route may answer only back-pressure before it is unavailable for the run: one
 * request's whole back-pressure bound (PER_REQUEST_THROTTLE_MS, 25 s), so the first request to
 * run out of its bound on a route that served nothing meanwhile is the last one to wait. (Any
 * longer and a route fetched once per suite file, as the audio formats are, would never be learned:
 * each request gives up at 25 s.)
 */
export const ROUTE_PATIENCE_MS = 25_000;
/** And with at least this many of those answers carrying a Retry-After that was honoured. */
export const ROUTE_PATIENCE_ATTEMPTS = 3;
/**
 * A route's 429s in a row (while no other route got one and the rest of the run was served) from
 * which its limit is its own, not the run's: its later 429s hold only the request that got them, not
 * the whole run (./back-pressure.ts). The first is always the run's: it cannot tell yet.
 */
export const ROUTE_ALONE_AFTER = 2;

/** What the patience needs to know of the run and the time (injectable for tests). */
export interface PatienceClock {
  nowMs(): number;
  /** Requests the whole run got answered (not back-pressure) so far. */
  servedTotal(): number;
}

export class RoutePatience {
  readonly key: `route:${string}`;

  constructor(
    /** "GET /v1/speak/takes/{take_id}/flac" */
    readonly route: string,
    private readonly clock: PatienceClock,
    private readonly facts: FactStore = runFacts(),
  ) {
    this.key = `route:${route}`;
  }

  /** The fact that made the route unavailable, if the run learned it. */
  unavailable(): FactOf<'unavailable'> | undefined {
    return this.facts.find(this.key, 'unavailable');
  }

  /** The route answered: its patience starts again (written only when a streak is open). */
  served(): void {
    if (this.streak().length > 0) this.facts.record({ key: this.key, type: 'served' });
  }

  /**
   * A 429/503 of the route. Returns the unavailability fact when this answer used up the route's
   * patience (recorded for the run), else undefined.
   */
  throttled(
    status: number,
    retryAfterMs: number | undefined,
    run429Before?: number,
  ): FactOf<'unavailable'> | undefined {
    const retryAfterHonoured = retryAfterMs !== undefined;
    const known = this.unavailable();
    if (known) return known;
    this.facts.record({
      key: this.key,
      type: 'throttled',
      status,
      retryAfterHonoured,
      servedBefore: this.clock.servedTotal(),
      ...(run429Before !== undefined ? { run429Before } : {}),
    });
    const streak = this.streak();
    const first = streak[0];
    if (!first) return undefined;
    const spanMs = this.clock.nowMs() - (first.atMs ?? this.clock.nowMs());
    // The route refuses at least until the end of the wait it just asked for.
    const refusedMs = spanMs + (retryAfterMs ?? 0);
    const honoured = streak.filter((f) => f.retryAfterHonoured).length;
    // The rest of the run was served: the server is up, this route is not. Counted over the run (a
    // route fetched only at the end of a run may have had nothing else served beside its streak);
    // the route's own answers are left out where they were recorded (those that ended a streak).
    const ownServed = this.facts.ofType('served').filter((f) => f.key === this.key).length;
    const servedElsewhere = Math.max(0, this.clock.servedTotal() - ownServed);
    if (refusedMs < ROUTE_PATIENCE_MS || honoured < ROUTE_PATIENCE_ATTEMPTS || servedElsewhere === 0)
      return undefined;
    const statuses = [...new Set(streak.map((f) => f.status))].sort();
    const outage: RouteOutageData = {
      route: this.route,
      statuses,
      answers: streak.length,
      spanMs,
      servedElsewhere,
    };
    this.facts.record({
      key: this.key,
      type: 'unavailable',
      consequence: { kind: 'not-concluded', wouldJudge: OUTAGE_WOULD_JUDGE },
      sentence: `${this.route} answered ${statuses.join('/')} to all ${streak.length} requests over ${Math.round(spanMs / 1000)} s while ${servedElsewhere} other request${servedElsewhere === 1 ? ' was' : 's were'} served`,
      outage,
    });
    // Two threads may conclude together: the first fact recorded is the run's.
    return this.unavailable();
  }

  /**
   * Whether the route is throttled alone (its limit, not the run's): its current streak holds at
   * least ROUTE_ALONE_AFTER 429s, every 429 the run got since the streak's first was this route's
   * (`run429Now`: the run's 429s, the latest of this route included), and other requests were
   * served since the streak began. A run-wide limit refuses other routes too, so it never is.
   */
  throttledAlone(run429Now: number): boolean {
    const streak = this.streak().filter((f) => f.status === 429);
    const first = streak[0];
    if (!first || streak.length < ROUTE_ALONE_AFTER || first.run429Before === undefined) return false;
    if (run429Now - first.run429Before !== streak.length) return false;
    return this.clock.servedTotal() - (first.servedBefore ?? this.clock.servedTotal()) > 0;
  }

  /** The route's throttled answers since its last served one (the current streak). */
  private streak(): FactOf<'throttled'>[] {
    const mine = this.facts.all().filter((f) => f.key === this.key);
    const lastServed = mine.map((f) => f.type).lastIndexOf('served');
    return mine.slice(lastServed + 1).filter((f) => f.type === 'throttled');
  }
}
