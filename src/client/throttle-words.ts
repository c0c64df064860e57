/**
 * The run's traffic with the server's limit in words: the one sentence a not-concluded requirement
 * quotes, and the ERR-RATE-LIMIT-OBSERVED observation (the figures: ./back-pressure.ts ThrottleStats).
 */
import type { ThrottleStats } from './back-pressure.ts';

/** "throttled: 429 on 37 requests, waited 41 s" — the one sentence of a run that waited on the server's limit. */
export function throttleSentence(stats: ThrottleStats): string {
  const parts: string[] = [];
  if (stats.answered429 > 0) parts.push(`429 on ${stats.answered429} request${plural(stats.answered429)}`);
  if (stats.answered503 > 0) parts.push(`503 on ${stats.answered503} request${plural(stats.answered503)}`);
  const waited = Math.max(stats.heldS, stats.waitedS);
  return `throttled: ${parts.join(', ') || 'no 429 or 503'}, waited ${seconds(waited)} s`;
}

/** The observation of ERR-RATE-LIMIT-OBSERVED: what the run saw of the server's limit. */
export function rateLimitObservation(stats: ThrottleStats): string {
  if (stats.answered429 + stats.answered503 === 0)
    return `No 429 or 503 in ${stats.requests} requests: no rate limit observed${stats.rateRps ? ` (paced at ${stats.rateRps} requests/s by --max-rps)` : ''}.`;
  const retryAfter = stats.retryAfterS
    ? `Retry-After ${stats.retryAfterS.min === stats.retryAfterS.max ? `${stats.retryAfterS.min} s` : `${stats.retryAfterS.min}–${stats.retryAfterS.max} s`}${stats.retryAfterAbsent > 0 ? ` (absent on ${stats.retryAfterAbsent})` : ''}`
    : 'no Retry-After (backed off on its own)';
  return `In ${stats.requests} requests: 429 on ${stats.answered429}, 503 on ${stats.answered503}; ${retryAfter}; the run was held ${seconds(stats.heldS)} s, requests waited ${seconds(stats.waitedS)} s in all${stats.rateRps ? `; paced at ${stats.rateRps} requests/s at the end` : ''}${stats.gaveUp > 0 ? `; ${stats.gaveUp} request${plural(stats.gaveUp)} gave up` : ''}.`;
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}

function seconds(s: number): string {
  return s >= 10 ? String(Math.round(s)) : s.toFixed(1);
}
