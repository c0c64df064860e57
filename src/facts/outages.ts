/**
 * The run's outages: each route the run learned to be unavailable (it answered only 429/503 for the
 * whole patience while other routes were served: src/client/route-patience.ts) or not to answer at
 * all (src/client/route-silence.ts), once, with what
 * would judge what it kept from being concluded. For the terminal's verdict area and the reports.
 */
import { type Fact, type FactStore, runFacts } from './run-facts.ts';

/** The fact type a route's unavailability is recorded as (key: `route:<METHOD> <template>`). */
export const UNAVAILABLE = 'unavailable';
/**
 * The fact type of a route that does not answer (no headers / no first byte within its bound,
 * src/client/route-silence.ts), same key and data; it blocks what needed the route.
 */
export const UNANSWERED = 'unanswered';

/** What would judge what a route that does not answer kept from being judged. */
export const UNANSWERED_WOULD_JUDGE =
  'the server fixed to answer this route (or a longer --request-timeout, if it is only slow)';

/** What a route-unavailable fact carries in its `data`. */
export interface RouteOutageData {
  /** "GET /v1/speak/takes/{take_id}/flac" */
  route: string;
  /** The statuses it answered, e.g. [429]. */
  statuses: number[];
  /** Throttled answers in the streak that made it unavailable. */
  answers: number;
  /** From the streak's first throttled answer to its conclusion. */
  spanMs: number;
  /** Requests the rest of the run got served (the server was up). */
  servedElsewhere: number;
}

export interface Outage extends RouteOutageData {
  /** The one sentence: "GET … answered 429 to all 17 requests over 31 s while 212 other requests were served". */
  sentence: string;
  /** What would judge what the outage kept from being concluded. */
  wouldJudge: string;
}

/** What would conclude what an unavailable route kept from being judged. */
export const OUTAGE_WOULD_JUDGE =
  '--max-rps under the server’s limit, a longer --max-time, or the server fixed to serve this route';

/** The run's outages, one per route, in the order they were learned. */
export function runOutages(facts: FactStore = runFacts()): Outage[] {
  const seen = new Set<string>();
  const outages: Outage[] = [];
  for (const f of facts.all()) {
    if (!isOutage(f)) continue;
    const data = f.data as unknown as RouteOutageData;
    if (seen.has(data.route)) continue;
    seen.add(data.route);
    outages.push({
      ...data,
      sentence: f.sentence ?? `${data.route} was unavailable`,
      wouldJudge:
        f.consequence?.kind === 'not-concluded'
          ? f.consequence.wouldJudge
          : f.type !== UNAVAILABLE
            ? UNANSWERED_WOULD_JUDGE
            : OUTAGE_WOULD_JUDGE,
    });
  }
  return outages;
}

/**
 * A fact that names a route as out for the run: unavailable (only back-pressure), unanswered, or a
 * websocket silent from its first request (src/client/ws-end-clock.ts, with the route in its data).
 */
function isOutage(f: Fact): boolean {
  if (f.type !== UNAVAILABLE && f.type !== UNANSWERED && f.type !== SILENT_FROM_START) return false;
  return typeof f.data?.route === 'string';
}

/** The websocket end clock's fact type of a silent request (only a from-start one carries a route). */
const SILENT_FROM_START = 'silent';

/** "outage: GET … answered 429 to all 17 requests over 31 s while …; would judge it: …" */
export function outageLine(o: Outage): string {
  return `outage: ${o.sentence}; what it kept from being concluded would be judged with ${o.wouldJudge}`;
}
