/** src/figures/stats.ts and src/perf/change-points.ts on inputs whose answers are known. */
import { describe, expect, it } from 'vitest';
import {
  bootstrapMedianCI,
  mannWhitneyU,
  runsNeeded,
  seededRandom,
  smallestP,
} from '../../src/figures/stats.ts';
import { eDivisive } from '../../src/perf/change-points.ts';
import { buildHistory, renderHistoryHtml } from '../../src/perf/history.ts';
import { ttfcRun } from '../load/helpers.ts';

describe('Mann-Whitney U', () => {
  it('exact p-values of complete separation: 2 / C(m+n, m)', () => {
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6])).toEqual({ u: 0, p: 0.1, method: 'exact' });
    expect(mannWhitneyU([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]).p).toBeCloseTo(2 / 252, 12);
    expect(smallestP(5, 5)).toBeCloseTo(2 / 252, 12);
    expect(runsNeeded(0.05)).toBe(4);
  });

  it('exact p-value of an interleaved case, worked out by hand', () => {
    // [1, 4, 6] vs [2, 3, 5, 7]: U = 0 + 2 + 3 = 5 of 12. The exact null counts of U for m=3, n=4
    // (C(7,3) = 35 orderings) are 1,1,2,3,4,4,5,4,4,3,2,1,1: P(U <= 5) = 15/35, two-sided 30/35.
    const r = mannWhitneyU([1, 4, 6], [2, 3, 5, 7]);
    expect(r.u).toBe(5);
    expect(r.p).toBeCloseTo(30 / 35, 12);
  });

  it('identical samples: p = 1 (ties: normal approximation)', () => {
    expect(mannWhitneyU([5, 5, 5, 5], [5, 5, 5, 5]).p).toBe(1);
    expect(mannWhitneyU([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]).p).toBe(1);
  });

  it('large samples with a shift: normal approximation, tiny p', () => {
    const random = seededRandom(7);
    const a = Array.from({ length: 40 }, () => 10 + random());
    const b = Array.from({ length: 40 }, () => 12 + random());
    const r = mannWhitneyU(a, b);
    expect(r.method).toBe('normal');
    expect(r.p).toBeLessThan(1e-6);
  });
});

describe('bootstrap confidence interval of the median', () => {
  it('is deterministic for a seed, brackets the median, and is a point for constant data', () => {
    const values = [10, 11, 12, 13, 14, 15, 16];
    const ci = bootstrapMedianCI(values, { seed: 3 });
    expect(bootstrapMedianCI(values, { seed: 3 })).toEqual(ci);
    expect(ci!.low).toBeLessThanOrEqual(13);
    expect(ci!.high).toBeGreaterThanOrEqual(13);
    expect(ci!.low).toBeGreaterThanOrEqual(10);
    expect(bootstrapMedianCI([4, 4, 4])).toEqual({ low: 4, high: 4 });
    expect(bootstrapMedianCI([4])).toBeUndefined();
  });
});

describe('E-Divisive change points', () => {
  const noisy = (level: number, n: number, random: () => number) =>
    Array.from({ length: n }, () => level + (random() - 0.5));

  it('finds the step in a synthetic history at the run where it happened', () => {
    const random = seededRandom(11);
    const series = [...noisy(10, 12, random), ...noisy(15, 12, random)];
    const found = eDivisive(series);
    expect(found.map((c) => c.index)).toEqual([12]);
    expect(found[0]!.p).toBeLessThan(0.05);
    expect(found[0]!.before).toBeCloseTo(10, 0);
    expect(found[0]!.after).toBeCloseTo(15, 0);
  });

  it('finds two steps, and none in a flat noisy history', () => {
    const random = seededRandom(5);
    const two = [...noisy(10, 10, random), ...noisy(20, 10, random), ...noisy(12, 10, random)];
    expect(eDivisive(two).map((c) => c.index)).toEqual([10, 20]);
    expect(eDivisive(noisy(10, 30, seededRandom(9)))).toEqual([]);
  });

  it('perf history names the run and calls a latency rise worse', () => {
    const runs = Array.from({ length: 16 }, (_, i) => ({
      label: `2026-11-${String(i + 1).padStart(2, '0')}-ttfc-websocket`,
      file: `r${i}/summary.json`,
      summary: ttfcRun(i < 9 ? 10 + (i % 3) / 10 : 30 + (i % 3) / 10, 40),
    }));
    const h = buildHistory(runs);
    const med = h.figures.find((f) => f.metric === 'speak_ws_ttfc{mode:chunks}' && f.stat === 'med')!;
    expect(med.changes.map((c) => [c.index, c.run, c.direction])).toEqual([
      [9, '2026-11-10-ttfc-websocket', 'worse'],
    ]);
    const p95 = h.figures.find((f) => f.metric === 'speak_ws_ttfc{mode:chunks}' && f.stat === 'p(95)')!;
    expect(p95.changes).toEqual([]);
    const html = renderHistoryHtml(h);
    expect(html).toMatch(/^<!doctype html>\n[\s\S]*<title>speakcheck performance history<\/title>/);
    expect(html).toContain('<li class="worse">from run 10 (<code>2026-11-10-ttfc-websocket</code>)');
    expect(html).not.toContain('xmlns=');
    // The first-playable-audio trend with its change point is among the key figures, drawn first.
    const keyPart = html.slice(html.indexOf('<h2>Key figures</h2>'), html.indexOf('<h2>Every other figure'));
    expect(keyPart).toContain('<li class="worse">from run 10');
    expect(keyPart).toContain('speak_ws_ttfc{mode:chunks}');
  });
});
