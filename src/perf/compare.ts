/**
 * The comparison itself, pure: medians of repeated runs per tracked figure, a noise-aware allowance,
 * and a verdict per figure. A figure regresses when it moved in its worse direction by more than
 * max(absolute floor, relative tolerance × baseline, noiseFactor × spread of either side's runs).
 */
import type { LoadSummary } from '../load/summary.ts';
import {
  absoluteFloor,
  type MetricKind,
  type Tolerance,
  TRACKED_RULES,
  type TrackedRule,
} from './tracked.ts';

export type Verdict =
  | 'regression'
  | 'improvement'
  | 'within tolerance'
  | 'missing in current'
  | 'new in current'
  | 'charted only';

export interface FigureComparison {
  scenario: string;
  metric: string;
  stat: string;
  kind: MetricKind;
  better: 'lower' | 'higher';
  /** False for figures drawn in the charts but not judged (latency p99). */
  judged: boolean;
  baseline?: number;
  current?: number;
  baselineRuns: number[];
  currentRuns: number[];
  /** current − baseline (medians). */
  delta?: number;
  /** The change allowed in the worse direction before it is a regression. */
  allowed?: number;
  verdict: Verdict;
}

export interface Comparison {
  figures: FigureComparison[];
  regressions: FigureComparison[];
  improvements: FigureComparison[];
  tolerance: Tolerance;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Robust spread of repeated runs: 1.4826 × median absolute deviation (≈ σ for normal noise); 0 for one run. */
export function spread(values: number[]): number {
  if (values.length < 2) return 0;
  const m = median(values);
  return 1.4826 * median(values.map((v) => Math.abs(v - m)));
}

interface Key {
  scenario: string;
  metric: string;
  stat: string;
  rule: TrackedRule;
}

/** scenario|metric|stat → values across runs, for every tracked figure. */
function collect(
  runs: LoadSummary[],
  chartStats: string[] = [],
): Map<string, { key: Key; values: number[] }> {
  const out = new Map<string, { key: Key; values: number[] }>();
  for (const run of runs) {
    for (const m of Object.values(run.metrics)) {
      const rule = TRACKED_RULES.find((r) => r.type === m.type && r.pattern.test(m.name));
      if (!rule) continue;
      // A sub-metric that a threshold names but no sample reached: nothing was measured.
      if (m.type === 'trend' && !m.values.count) continue;
      if (m.type === 'rate' && !((m.values.passes ?? 0) + (m.values.fails ?? 0))) continue;
      for (const stat of new Set([...rule.stats, ...(rule.kind === 'latency' ? chartStats : [])])) {
        const value = m.values[stat];
        if (value === undefined || !Number.isFinite(value)) continue;
        const id = `${run.scenario}|${m.name}|${stat}`;
        const entry = out.get(id) ?? {
          key: { scenario: run.scenario, metric: m.name, stat, rule },
          values: [],
        };
        entry.values.push(value);
        out.set(id, entry);
      }
    }
  }
  return out;
}

export function compareRuns(
  baseline: LoadSummary[],
  current: LoadSummary[],
  tolerance: Tolerance,
  o: { chartStats?: string[] } = {},
): Comparison {
  const b = collect(baseline, o.chartStats);
  const c = collect(current, o.chartStats);
  const figures: FigureComparison[] = [];
  for (const id of new Set([...b.keys(), ...c.keys()])) {
    const key = (b.get(id) ?? c.get(id))!.key;
    const baselineRuns = b.get(id)?.values ?? [];
    const currentRuns = c.get(id)?.values ?? [];
    const judged = key.rule.stats.includes(key.stat);
    const figure: FigureComparison = {
      scenario: key.scenario,
      metric: key.metric,
      stat: key.stat,
      kind: key.rule.kind,
      better: key.rule.better,
      judged,
      baselineRuns,
      currentRuns,
      verdict: judged ? 'within tolerance' : 'charted only',
    };
    if (baselineRuns.length) figure.baseline = median(baselineRuns);
    if (currentRuns.length) figure.current = median(currentRuns);
    if (!judged && figure.baseline !== undefined && figure.current !== undefined) {
      figure.delta = figure.current - figure.baseline;
    } else if (figure.baseline === undefined) figure.verdict = 'new in current';
    else if (figure.current === undefined) figure.verdict = 'missing in current';
    else {
      figure.delta = figure.current - figure.baseline;
      figure.allowed = Math.max(
        absoluteFloor(key.rule.kind, tolerance),
        tolerance.relative * Math.abs(figure.baseline),
        tolerance.noiseFactor * Math.max(spread(baselineRuns), spread(currentRuns)),
      );
      const worse = key.rule.better === 'lower' ? figure.delta : -figure.delta;
      if (worse > figure.allowed) figure.verdict = 'regression';
      else if (-worse > figure.allowed) figure.verdict = 'improvement';
    }
    figures.push(figure);
  }
  figures.sort((x, y) =>
    `${x.scenario}|${x.metric}|${x.stat}`.localeCompare(`${y.scenario}|${y.metric}|${y.stat}`),
  );
  return {
    figures,
    regressions: figures.filter((f) => f.verdict === 'regression'),
    improvements: figures.filter((f) => f.verdict === 'improvement'),
    tolerance,
  };
}
