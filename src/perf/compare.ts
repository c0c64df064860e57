/**
 * The comparison itself, pure, in the manner of benchstat: per tracked figure the median of each
 * side's runs with a bootstrap 95 % confidence interval, the two-sided Mann-Whitney U p-value of the
 * two sets of runs, and a verdict: `worse` / `better` only when the difference is significant
 * (p < alpha) AND larger than the practical floor (relative tolerance × baseline, and an absolute
 * floor: 2 ms for latencies, 0.5 points for error rates); otherwise `~`. A side with fewer runs than
 * the test needs to ever reach p < alpha gets a warning (with 1–3 runs a side, nothing can be
 * significant at 0.05).
 *
 * Too few runs never read as "no change" (issue 51 item 7: a tenfold slowdown with one run per side
 * was `~` and "no regression", exit 0). Where the run counts cannot reach p < alpha at all, a change
 * beyond the practical floor is `inconclusive` (more runs would decide), and one by a factor of
 * LIKELY_FACTOR or more is `likely worse` / `likely better`: what a performance engineer calls a
 * regression before the statistics can, reported with the caveat. The comparison's outcome
 * (comparisonOutcome) ranks them: regression > likely regression > inconclusive > no regression.
 */

import {
  bootstrapMedianCI,
  type Interval,
  mannWhitneyU,
  median,
  runsNeeded,
  smallestP,
} from '../figures/stats.ts';
import type { LoadSummary } from '../load/summary.ts';
import {
  absoluteFloor,
  type MetricKind,
  type Tolerance,
  TRACKED_RULES,
  type TrackedRule,
} from './tracked.ts';

export { median };

export type Verdict =
  | 'worse'
  | 'better'
  /** No significant (or no material) difference. */
  | '~'
  /** Too few runs for any p < alpha, and the change is LIKELY_FACTOR-fold or more the wrong way. */
  | 'likely worse'
  | 'likely better'
  /** Too few runs for any p < alpha, and the change exceeds the practical floor: more runs would decide. */
  | 'inconclusive'
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
  /** Bootstrap confidence intervals of each side's median (undefined with one run). */
  baselineCI?: Interval;
  currentCI?: Interval;
  /** Two-sided Mann-Whitney U p-value of the two sides' runs. */
  p?: number;
  /** current − baseline (medians). */
  delta?: number;
  /** The practical floor: smaller changes are `~` whatever their p-value. */
  allowed?: number;
  verdict: Verdict;
}

export interface Comparison {
  figures: FigureComparison[];
  /** Figures judged `worse`. */
  regressions: FigureComparison[];
  /** Figures judged `better`. */
  improvements: FigureComparison[];
  tolerance: Tolerance;
  /** Figures judged `likely worse` (too few runs to test, at least LIKELY_FACTOR-fold worse). */
  likelyRegressions: FigureComparison[];
  /** Figures judged `inconclusive`. */
  inconclusive: FigureComparison[];
  /** Sides with too few runs for any difference to be significant, per scenario. */
  warnings: string[];
}

/**
 * A change this many times the baseline (or a fraction 1/this of it) is "likely" even where no test
 * can be significant: run-to-run noise of a load test on a quiet machine is tens of percent, not
 * a doubling. Only where the run counts make significance impossible; else the test decides.
 */
export const LIKELY_FACTOR = 2;

export type ComparisonOutcome = 'regression' | 'likely regression' | 'inconclusive' | 'no regression';

/** The comparison's answer, worst first: what its headline says and its exit code means. */
export function comparisonOutcome(c: Comparison): ComparisonOutcome {
  if (c.regressions.length) return 'regression';
  if (c.likelyRegressions.length) return 'likely regression';
  if (c.inconclusive.length) return 'inconclusive';
  return 'no regression';
}

/** How many times worse (>1) or better (<1) current is than baseline, in the figure's direction. */
function factor(f: { better: 'lower' | 'higher' }, baseline: number, current: number): number {
  const [bad, good] = f.better === 'lower' ? [current, baseline] : [baseline, current];
  if (good === 0) return bad === 0 ? 1 : Number.POSITIVE_INFINITY;
  return bad / good;
}

export interface Key {
  scenario: string;
  metric: string;
  stat: string;
  rule: TrackedRule;
}

export interface FigureValue {
  /** scenario|metric|stat */
  id: string;
  key: Key;
  value: number;
}

/** The tracked figures of one run (latency figures also at `chartStats`). */
export function runFigures(run: LoadSummary, chartStats: string[] = []): FigureValue[] {
  const out: FigureValue[] = [];
  for (const m of Object.values(run.metrics)) {
    const rule = TRACKED_RULES.find((r) => r.type === m.type && r.pattern.test(m.name));
    if (!rule) continue;
    // A sub-metric that a threshold names but no sample reached: nothing was measured.
    if (m.type === 'trend' && !m.values.count) continue;
    if (m.type === 'rate' && !((m.values.passes ?? 0) + (m.values.fails ?? 0))) continue;
    for (const stat of new Set([...rule.stats, ...(rule.kind === 'latency' ? chartStats : [])])) {
      const value = m.values[stat];
      if (value === undefined || !Number.isFinite(value)) continue;
      out.push({
        id: `${run.scenario}|${m.name}|${stat}`,
        key: { scenario: run.scenario, metric: m.name, stat, rule },
        value,
      });
    }
  }
  return out;
}

/** scenario|metric|stat → values across runs, for every tracked figure. */
function collect(
  runs: LoadSummary[],
  chartStats: string[] = [],
): Map<string, { key: Key; values: number[] }> {
  const out = new Map<string, { key: Key; values: number[] }>();
  for (const run of runs) {
    for (const f of runFigures(run, chartStats)) {
      const entry = out.get(f.id) ?? { key: f.key, values: [] };
      entry.values.push(f.value);
      out.set(f.id, entry);
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
      verdict: judged ? '~' : 'charted only',
    };
    if (baselineRuns.length) figure.baseline = median(baselineRuns);
    if (currentRuns.length) figure.current = median(currentRuns);
    const seed = hashSeed(id);
    const baselineCI = bootstrapMedianCI(baselineRuns, { seed });
    const currentCI = bootstrapMedianCI(currentRuns, { seed: seed + 1 });
    if (baselineCI) figure.baselineCI = baselineCI;
    if (currentCI) figure.currentCI = currentCI;
    if (!judged && figure.baseline !== undefined && figure.current !== undefined) {
      figure.delta = figure.current - figure.baseline;
    } else if (figure.baseline === undefined) figure.verdict = 'new in current';
    else if (figure.current === undefined) figure.verdict = 'missing in current';
    else {
      figure.delta = figure.current - figure.baseline;
      figure.p = mannWhitneyU(baselineRuns, currentRuns).p;
      figure.allowed = Math.max(
        absoluteFloor(key.rule.kind, tolerance),
        tolerance.relative * Math.abs(figure.baseline),
      );
      const worse = key.rule.better === 'lower' ? figure.delta : -figure.delta;
      const material = Math.abs(worse) > figure.allowed;
      if (figure.p < tolerance.alpha && material) figure.verdict = worse > 0 ? 'worse' : 'better';
      else if (material && smallestP(baselineRuns.length, currentRuns.length) >= tolerance.alpha) {
        // No test could decide at these run counts: not "~".
        const times = factor(key.rule, figure.baseline, figure.current);
        if (times >= LIKELY_FACTOR) figure.verdict = 'likely worse';
        else if (times <= 1 / LIKELY_FACTOR) figure.verdict = 'likely better';
        else figure.verdict = 'inconclusive';
      }
    }
    figures.push(figure);
  }
  figures.sort((x, y) =>
    `${x.scenario}|${x.metric}|${x.stat}`.localeCompare(`${y.scenario}|${y.metric}|${y.stat}`),
  );
  return {
    figures,
    regressions: figures.filter((f) => f.verdict === 'worse'),
    improvements: figures.filter((f) => f.verdict === 'better'),
    likelyRegressions: figures.filter((f) => f.verdict === 'likely worse'),
    inconclusive: figures.filter((f) => f.verdict === 'inconclusive'),
    tolerance,
    warnings: runCountWarnings(baseline, current, tolerance.alpha),
  };
}

/** A stable seed per figure: the report does not change between invocations. */
function hashSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function runCountWarnings(baseline: LoadSummary[], current: LoadSummary[], alpha: number): string[] {
  const count = (runs: LoadSummary[]) => {
    const out = new Map<string, number>();
    for (const r of runs) out.set(r.scenario, (out.get(r.scenario) ?? 0) + 1);
    return out;
  };
  const b = count(baseline);
  const c = count(current);
  const needed = runsNeeded(alpha);
  const warnings: string[] = [];
  for (const scenario of [...new Set([...b.keys(), ...c.keys()])].sort()) {
    const m = b.get(scenario) ?? 0;
    const n = c.get(scenario) ?? 0;
    if (m && n && smallestP(m, n) >= alpha) {
      warnings.push(
        `${scenario}: ${m} baseline and ${n} current run(s): no difference can be significant at p < ${alpha} ` +
          `(smallest possible p ${smallestP(m, n).toFixed(3)}); use at least ${needed} runs per side`,
      );
    }
  }
  return warnings;
}
