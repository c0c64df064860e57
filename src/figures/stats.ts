/**
 * The statistics behind `perf compare`, in the manner of Go's benchstat: a median per side with a
 * bootstrap confidence interval, and the two-sided Mann-Whitney U test (exact distribution for small
 * samples without ties, normal approximation with tie and continuity correction otherwise). All
 * randomness comes from a seeded generator, so a report is the same every time it is made.
 */

import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A seeded generator of floats in [0, 1) (pure-rand's xoroshiro128+): the same seed, the same report. */
export function seededRandom(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  return () => uniformFloat64(rng);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Interval {
  low: number;
  high: number;
}

/**
 * Percentile-bootstrap confidence interval of the median: `resamples` resamples with replacement,
 * the (1−confidence)/2 and (1+confidence)/2 quantiles of their medians. Undefined for fewer than 2
 * values (one run says nothing about its spread).
 */
export function bootstrapMedianCI(
  values: number[],
  o: { confidence?: number; resamples?: number; seed?: number } = {},
): Interval | undefined {
  if (values.length < 2) return undefined;
  const confidence = o.confidence ?? 0.95;
  const resamples = o.resamples ?? 2000;
  const random = seededRandom(o.seed ?? 1);
  const medians: number[] = [];
  const sample = new Array<number>(values.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) sample[i] = values[Math.floor(random() * values.length)]!;
    medians.push(median(sample));
  }
  medians.sort((a, b) => a - b);
  const at = (q: number) => medians[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { low: at((1 - confidence) / 2), high: at((1 + confidence) / 2) };
}

export interface MannWhitney {
  /** U of the first sample. */
  u: number;
  /** Two-sided p-value. */
  p: number;
  method: 'exact' | 'normal';
}

/** Midranks (1-based) of the pooled values; ties share the mean of their ranks. */
function midranks(pooled: number[]): { ranks: number[]; tieGroups: number[] } {
  const order = pooled.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  const ranks = new Array<number>(pooled.length);
  const tieGroups: number[] = [];
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.v === order[start]!.v) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    if (end > start) tieGroups.push(end - start + 1);
    start = end + 1;
  }
  return { ranks, tieGroups };
}

/** Number of ways U = u for sample sizes m, n (no ties), as counts for every u in 0..m·n. */
function exactUCounts(m: number, n: number): number[] {
  // f[i][j][u]: arrangements of i x's and j y's with U = u; built up by adding the largest value.
  let prev: number[][] = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i++) {
    const cur: number[][] = [[1]];
    for (let j = 1; j <= n; j++) {
      const size = i * j + 1;
      const counts = new Array<number>(size).fill(0);
      // The largest value is an x (it beats all j y's: U grows by j) or a y.
      const withX = prev[j]!;
      const withY = cur[j - 1]!;
      for (let u = 0; u < withX.length; u++) counts[u + j]! += withX[u]!;
      for (let u = 0; u < withY.length; u++) counts[u]! += withY[u]!;
      cur.push(counts);
    }
    prev = cur;
  }
  return prev[n]!;
}

/** Largest m·n for which the exact distribution is used (counts fit doubles exactly well beyond this). */
const EXACT_LIMIT = 400;

/** Two-sided Mann-Whitney U test of a against b. p = 1 when either side is empty. */
export function mannWhitneyU(a: number[], b: number[]): MannWhitney {
  const m = a.length;
  const n = b.length;
  if (m === 0 || n === 0) return { u: 0, p: 1, method: 'exact' };
  const { ranks, tieGroups } = midranks([...a, ...b]);
  const rankSumA = ranks.slice(0, m).reduce((s, r) => s + r, 0);
  const u = rankSumA - (m * (m + 1)) / 2;
  if (tieGroups.length === 0 && m * n <= EXACT_LIMIT) {
    const counts = exactUCounts(m, n);
    const total = counts.reduce((s, c) => s + c, 0);
    const low = Math.min(u, m * n - u);
    let tail = 0;
    for (let k = 0; k <= low; k++) tail += counts[k]!;
    return { u, p: Math.min(1, (2 * tail) / total), method: 'exact' };
  }
  const N = m + n;
  const tieTerm = tieGroups.reduce((s, t) => s + (t ** 3 - t), 0);
  const variance = ((m * n) / 12) * (N + 1 - tieTerm / (N * (N - 1)));
  if (variance <= 0) return { u, p: 1, method: 'normal' }; // every value equal
  const z = (Math.abs(u - (m * n) / 2) - 0.5) / Math.sqrt(variance);
  // Within the continuity correction of the centre: no evidence at all.
  if (z <= 0) return { u, p: 1, method: 'normal' };
  return { u, p: Math.min(1, 2 * (1 - normalCdf(z))), method: 'normal' };
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 erf, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * The smallest two-sided p the exact test can reach with m and n runs (all of one side below the
 * other): 2 / C(m+n, m). When it is not below alpha, no difference can be significant.
 */
export function smallestP(m: number, n: number): number {
  if (m === 0 || n === 0) return 1;
  let c = 1;
  for (let k = 1; k <= m; k++) c = (c * (n + k)) / k;
  return Math.min(1, 2 / c);
}

/** The fewest runs per side (the same on both) with which a difference can be significant at alpha. */
export function runsNeeded(alpha: number): number {
  let k = 1;
  while (smallestP(k, k) >= alpha) k++;
  return k;
}
