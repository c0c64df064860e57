/**
 * The run's outages: each route the run learned to be unavailable (it answered only 429/503 for the
 * whole patience while other routes were served: src/client/route-patience.ts) or not to answer at
 * all (src/client/route-silence.ts), once, with what
 * would judge what it kept from being concluded. For the terminal's verdict area and the reports.
 */
import { redactText } from '../evidence/redact.ts';
import { type Fact, type FactStore, type RouteOutageData, runFacts } from './run-facts.ts';

export type { RouteOutageData };

/** What would judge what a route that does not answer kept from being judged. */
export const UNANSWERED_WOULD_JUDGE =
  'the server fixed to answer this route (or a longer --request-timeout, if it is only slow)';

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
    const outage = outageOf(f);
    if (!outage || seen.has(outage.route)) continue;
    seen.add(outage.route);
    outages.push(outage);
  }
  return outages;
}

/**
 * The outage a fact names, if it names one: a route unavailable (only back-pressure), a route that
 * does not answer, or a websocket silent from its first request (src/client/ws-end-clock.ts).
 */
function outageOf(f: Fact): Outage | undefined {
  switch (f.type) {
    case 'unavailable':
      return { ...f.outage, sentence: f.sentence, wouldJudge: f.consequence.wouldJudge };
    case 'unanswered':
      return { ...f.outage, sentence: f.sentence, wouldJudge: UNANSWERED_WOULD_JUDGE };
    case 'silent':
      return f.outage ? { ...f.outage, sentence: f.sentence, wouldJudge: UNANSWERED_WOULD_JUDGE } : undefined;
    default:
      return undefined;
  }
}

/** "outage: GET … answered 429 to all 17 requests over 31 s while …; would judge it: …" */
export function outageLine(o: Outage): string {
  // A second net: an outage's sentence may quote a request (a signed URL carries its signature).
  return `outage: ${redactText(o.sentence)}; what it kept from being concluded would be judged with ${o.wouldJudge}`;
}
