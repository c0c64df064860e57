/**
 * The run's outages: each route the run learned to be unavailable (it answered only 429/503 for the
 * whole patience while other routes were served: src/client/route-patience.ts) or not to answer at
 * all (src/client/route-silence.ts; a websocket silent from its first request, src/client/ws-end-clock.ts),
 * once, as data: what kind of outage, the route and its figures, and the evidence the client wrote
 * when the run learned it. The words (the outage line, what would judge what it kept from being
 * concluded) are written from these in src/verdict/words.ts; nothing reads them back.
 */
import { type Fact, type FactStore, type RouteOutageData, runFacts } from './run-facts.ts';

export type { RouteOutageData };

/**
 * `unavailable`: the route answered only back-pressure for its whole patience; `unanswered`: it did
 * not answer at all (no headers, no first message) while the server answered others.
 */
export type OutageKind = 'unavailable' | 'unanswered';

export interface Outage extends RouteOutageData {
  kind: OutageKind;
  /** The evidence as the run learned it (the fact's sentence): shown, never read back. */
  sentence: string;
}

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
      return { ...f.outage, kind: 'unavailable', sentence: f.sentence };
    case 'unanswered':
    case 'server-silent':
      return { ...f.outage, kind: 'unanswered', sentence: f.sentence };
    case 'silent':
      return f.outage ? { ...f.outage, kind: 'unanswered', sentence: f.sentence } : undefined;
    default:
      return undefined;
  }
}
