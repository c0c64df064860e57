/**
 * The run's outages are data (src/facts/outages.ts: kind, route, figures, the evidence as learned);
 * their words — the outage line, what would judge what they kept from being concluded — are written
 * from that data in src/verdict/words.ts (issue 48).
 */
import { describe, expect, test } from 'vitest';
import { OUTAGE_WOULD_JUDGE } from '../../src/client/route-patience.ts';
import { runOutages } from '../../src/facts/outages.ts';
import { memoryFacts } from '../../src/facts/run-facts.ts';
import { outageLine, outageWords, UNANSWERED_WOULD_JUDGE } from '../../src/verdict/words.ts';

const figures = (route: string) => ({ route, statuses: [], answers: 2, spanMs: 4_000, servedElsewhere: 9 });

function factsOfEachKind() {
  const facts = memoryFacts();
  facts.record({
    key: 'route:GET /v1/speak/takes/{take_id}/flac',
    type: 'unavailable',
    consequence: { kind: 'not-concluded', wouldJudge: OUTAGE_WOULD_JUDGE },
    sentence: 'GET /v1/speak/takes/{take_id}/flac answered 429 to all 25 requests over 24 s',
    outage: { ...figures('GET /v1/speak/takes/{take_id}/flac'), statuses: [429], answers: 25 },
  });
  facts.record({
    key: 'route:GET /v1/speak/models',
    type: 'unanswered',
    consequence: { kind: 'blocks' },
    sentence: 'GET /v1/speak/models did not answer 2 requests',
    outage: figures('GET /v1/speak/models'),
  });
  facts.record({
    key: 'ws-silent-from-start:r1',
    type: 'silent',
    spreads: true,
    consequence: { kind: 'blocks' },
    sentence: 'an earlier request of this run (r1) got no message',
    outage: figures('WS request'),
  });
  // A second fact of a route already out: the route is named once.
  facts.record({
    key: 'route:GET /v1/speak/models',
    type: 'unanswered',
    consequence: { kind: 'blocks' },
    sentence: 'again',
    outage: figures('GET /v1/speak/models'),
  });
  return facts;
}

describe('outages: typed data from the facts, words from the data', () => {
  test('each outage carries its kind, its figures and the evidence, once per route', () => {
    const outages = runOutages(factsOfEachKind());
    expect(outages.map((o) => [o.kind, o.route])).toEqual([
      ['unavailable', 'GET /v1/speak/takes/{take_id}/flac'],
      ['unanswered', 'GET /v1/speak/models'],
      ['unanswered', 'WS request'],
    ]);
    expect(outages[0]).toMatchObject({ statuses: [429], answers: 25, spanMs: 4_000, servedElsewhere: 9 });
  });

  test('what would judge it follows the kind; the report keeps the same fields as before (no kind)', () => {
    const [unavailable, unanswered] = runOutages(factsOfEachKind()).map(outageWords);
    expect(unavailable?.wouldJudge).toBe(OUTAGE_WOULD_JUDGE);
    expect(unanswered?.wouldJudge).toBe(UNANSWERED_WOULD_JUDGE);
    expect(Object.keys(unanswered!).sort()).toEqual(
      ['answers', 'route', 'sentence', 'servedElsewhere', 'spanMs', 'statuses', 'wouldJudge'].sort(),
    );
  });

  test('the outage line says the evidence, redacted, and what would judge it', () => {
    const [outage] = runOutages(factsOfEachKind());
    const signed = { ...outage!, sentence: 'GET https://h/a?X-Amz-Signature=deadbeef did not answer' };
    const line = outageLine(signed);
    expect(line).toMatch(/^outage: GET https:\/\/h\/a\?/);
    expect(line).not.toContain('deadbeef');
    expect(line).toContain(`would be judged with ${OUTAGE_WOULD_JUDGE}`);
  });
});
