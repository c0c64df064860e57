/** SLO flags: what parses, what is refused with a precise sentence, and how a step is judged. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SLO, judgeSlo, parseSlo, SloError, type StepFigures } from '../../src/load/slo.ts';

const step = (p95: number, errorRate = 0, achieved = 10): StepFigures => ({
  latency: { first_playable: { 50: p95 / 2, 90: p95 * 0.9, 95: p95, 99: p95 * 1.2 } },
  samples: { first_playable: 80 },
  errorRate,
  offeredRate: 10,
  achievedRate: achieved,
});

describe('parseSlo', () => {
  it('reads the documented example and both defaults', () => {
    expect(parseSlo('first_playable_p95<300ms,errors<1%').terms).toEqual([
      {
        kind: 'latency',
        figure: 'first_playable',
        percentile: 95,
        maxMs: 300,
        text: 'first_playable_p95<300ms',
      },
      { kind: 'errors', maxRate: 0.01, text: 'errors<1%' },
    ]);
    expect(parseSlo(DEFAULT_SLO.websocket).terms).toHaveLength(3);
    const rest = parseSlo(DEFAULT_SLO.rest).terms[0]!;
    expect(rest).toMatchObject({ figure: 'take_latency', maxMs: 2000 });
  });

  it('accepts seconds, spaces and every listed percentile', () => {
    expect(parseSlo(' end_of_take_p99 < 1.5s , achieved >= 95% ').terms).toMatchObject([
      { figure: 'end_of_take', percentile: 99, maxMs: 1500 },
      { kind: 'achieved', minRatio: 0.95 },
    ]);
  });

  it.each([
    ['', /empty/],
    ['errors<1%', /no latency term/],
    ['ttfb_p95<300ms', /unknown figure ttfb/],
    ['first_playable_p97<300ms', /p97 is not one of/],
    ['first_playable_p95<300', /not understood/],
    ['errors<0%', /error share/],
    ['first_playable_p95>300ms', /not understood/],
  ])('refuses %j', (text, why) => {
    expect(() => parseSlo(text)).toThrow(SloError);
    expect(() => parseSlo(text)).toThrow(why);
  });
});

describe('judgeSlo', () => {
  const slo = parseSlo('first_playable_p95<300ms,errors<1%,achieved>=90%');
  it('holds when every term holds', () => {
    expect(judgeSlo(slo, step(120))).toEqual({ holds: true, broken: [] });
  });
  it('names each broken term with its value', () => {
    const v = judgeSlo(slo, step(300, 0.02, 8));
    expect(v.holds).toBe(false);
    expect(v.broken).toEqual([
      'first_playable_p95 = 300 ms ≥ 300 ms',
      'errors = 2.00 % ≥ 1.00 %',
      'achieved 8.0/s = 80.0 % of offered < 90 %',
    ]);
  });
  it('breaks when the figure has no samples at all', () => {
    const v = judgeSlo(slo, { ...step(10), latency: {} });
    expect(v.broken).toEqual(['first_playable_p95: no samples']);
  });
});
