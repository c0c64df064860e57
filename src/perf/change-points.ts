/**
 * Change points in a history of runs: E-Divisive (Matteson & James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014), the method behind MongoDB's
 * signal processing and Apache Otava (formerly Hunter), here for one series of figures.
 *
 * Divisive: within a segment, the split τ maximising the scaled energy distance between the values
 * before and after it,
 *   Q(τ) = (m·n / (m+n)) · ( 2/(m·n) Σ|x−y|^α − 1/C(m,2) Σ|x−x'|^α − 1/C(n,2) Σ|y−y'|^α ),
 * is the candidate. Its significance comes from a permutation test: the segment's values are
 * shuffled `permutations` times and the best Q of each shuffle compared with the observed one; the
 * p-value is (#shuffles with Q ≥ observed + 1) / (permutations + 1). Of all segments, the one with
 * the largest candidate Q is tested first; a significant split is kept and the two halves are
 * searched again, until the best candidate is not significant. Shuffles use a seeded generator: the
 * same history always gives the same change points.
 */
import { median, seededRandom } from '../figures/stats.ts';

export interface ChangePoint {
  /** Index of the first value after the change. */
  index: number;
  /** Permutation p-value. */
  p: number;
  /** Medians before and after, within the segment where it was found. */
  before: number;
  after: number;
}

export interface EDivisiveOptions {
  /** Significance level of the permutation test (default 0.05). */
  alpha?: number;
  permutations?: number;
  /** Fewest values on either side of a split (default 3). */
  minSize?: number;
  /** Exponent of the distance, 0 < α < 2 (default 1). */
  exponent?: number;
  seed?: number;
}

/** The best split of `values` and its Q, or undefined when it is too short to split. */
function bestSplit(
  values: number[],
  minSize: number,
  exponent: number,
): { tau: number; q: number } | undefined {
  const T = values.length;
  if (T < 2 * minSize) return undefined;
  const d = (a: number, b: number) => Math.abs(a - b) ** exponent;
  let best: { tau: number; q: number } | undefined;
  for (let tau = minSize; tau <= T - minSize; tau++) {
    const m = tau;
    const n = T - tau;
    let between = 0;
    for (let i = 0; i < m; i++) for (let j = m; j < T; j++) between += d(values[i]!, values[j]!);
    let withinX = 0;
    for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) withinX += d(values[i]!, values[j]!);
    let withinY = 0;
    for (let i = m; i < T; i++) for (let j = i + 1; j < T; j++) withinY += d(values[i]!, values[j]!);
    const energy =
      (2 / (m * n)) * between -
      (m > 1 ? withinX / ((m * (m - 1)) / 2) : 0) -
      (n > 1 ? withinY / ((n * (n - 1)) / 2) : 0);
    const q = ((m * n) / (m + n)) * energy;
    if (!best || q > best.q) best = { tau, q };
  }
  return best;
}

function shuffle(values: number[], random: () => number): number[] {
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The change points of `series`, in index order. */
export function eDivisive(series: number[], o: EDivisiveOptions = {}): ChangePoint[] {
  const alpha = o.alpha ?? 0.05;
  const permutations = o.permutations ?? 199;
  const minSize = o.minSize ?? 3;
  const exponent = o.exponent ?? 1;
  const random = seededRandom(o.seed ?? 1);
  const found: ChangePoint[] = [];
  // Segments as [start, end) over the series; each with its best candidate split.
  let segments: { start: number; end: number }[] = [{ start: 0, end: series.length }];
  for (;;) {
    let pick: { segment: { start: number; end: number }; tau: number; q: number } | undefined;
    for (const segment of segments) {
      const split = bestSplit(series.slice(segment.start, segment.end), minSize, exponent);
      if (split && (!pick || split.q > pick.q)) pick = { segment, ...split };
    }
    if (!pick || pick.q <= 0) break;
    const values = series.slice(pick.segment.start, pick.segment.end);
    let atLeast = 0;
    for (let r = 0; r < permutations; r++) {
      const q = bestSplit(shuffle(values, random), minSize, exponent)?.q ?? Number.NEGATIVE_INFINITY;
      if (q >= pick.q) atLeast++;
    }
    const p = (atLeast + 1) / (permutations + 1);
    if (p > alpha) break;
    const index = pick.segment.start + pick.tau;
    found.push({
      index,
      p,
      before: median(series.slice(pick.segment.start, index)),
      after: median(series.slice(index, pick.segment.end)),
    });
    segments = segments.flatMap((s) =>
      s === pick!.segment
        ? [
            { start: s.start, end: index },
            { start: index, end: s.end },
          ]
        : [s],
    );
  }
  return found.sort((a, b) => a.index - b.index);
}
