/** compare.md: the verdict, the tolerance used, and one row per judged figure. */

import { runsNeeded } from '../figures/stats.ts';
import { statLabel } from '../load/summary.ts';
import { type Comparison, comparisonOutcome, type FigureComparison, LIKELY_FACTOR } from './compare.ts';

export interface ReportSources {
  baseline: string;
  current: string;
  baselineRuns: number;
  currentRuns: number;
}

export function formatValue(f: FigureComparison, value: number | undefined): string {
  if (value === undefined) return '–';
  if (f.kind === 'errors') return `${(value * 100).toFixed(2)} %`;
  if (f.kind === 'latency') return `${value.toFixed(2)} ms`;
  if (f.kind === 'ratio') return `${value.toFixed(2)}×`;
  return `${value.toFixed(3)}/s`;
}

export function changeText(f: FigureComparison): string {
  if (f.delta === undefined || f.baseline === undefined) return '–';
  const sign = f.delta > 0 ? '+' : '';
  const pct = f.baseline !== 0 ? ` (${sign}${((f.delta / f.baseline) * 100).toFixed(1)} %)` : '';
  return `${sign}${formatValue(f, f.delta)}${pct}`;
}

/** The runs per side each side had and the runs per side that would let a test decide. */
function runCounts(c: Comparison, figures: FigureComparison[]): string {
  const f = figures[0]!;
  return `${f.baselineRuns.length} baseline and ${f.currentRuns.length} current run(s) cannot be significant at p < ${c.tolerance.alpha}; ${runsNeeded(c.tolerance.alpha)} runs per side would decide`;
}

/** The headline (terminal, compare.md, compare.html): one of comparisonOutcome's four answers. */
export function verdictLine(c: Comparison): string {
  const size = (f: FigureComparison) =>
    f.delta === undefined || !f.baseline ? Number.POSITIVE_INFINITY : Math.abs(f.delta / f.baseline);
  const worst = (figures: FigureComparison[]) => {
    const f = [...figures].sort((a, b) => size(b) - size(a))[0]!;
    return `${f.scenario} ${f.metric} ${statLabel(f.stat)} ${changeText(f)}`;
  };
  switch (comparisonOutcome(c)) {
    case 'regression':
      return `REGRESSION: ${c.regressions.length} figure(s) significantly worse (p < ${c.tolerance.alpha})`;
    case 'likely regression':
      return (
        `LIKELY REGRESSION: ${c.likelyRegressions.length} figure(s) ${LIKELY_FACTOR}× or more worse, e.g. ${worst(c.likelyRegressions)} ` +
        `— not confirmed: ${runCounts(c, c.likelyRegressions)}`
      );
    case 'inconclusive':
      return (
        `INCONCLUSIVE: ${c.inconclusive.length} figure(s) changed beyond the tolerance, e.g. ${worst(c.inconclusive)}, ` +
        `but ${runCounts(c, c.inconclusive)}`
      );
    default:
      return `no regression${c.improvements.length ? ` (${c.improvements.length} figure(s) significantly better)` : ''}`;
  }
}

/** `12.00 ms [11.00, 13.50]`: the median and its bootstrap 95 % interval. */
export function withInterval(
  f: FigureComparison,
  value: number | undefined,
  ci: FigureComparison['baselineCI'],
): string {
  if (value === undefined) return '–';
  return ci
    ? `${formatValue(f, value)} [${formatValue(f, ci.low)}, ${formatValue(f, ci.high)}]`
    : formatValue(f, value);
}

export function pText(f: FigureComparison): string {
  return f.p === undefined ? '–' : f.p < 0.001 ? '<0.001' : f.p.toFixed(3);
}

/** The explanation of the verdicts, shared by compare.md and compare.html. */
export function methodLine(c: Comparison): string {
  const t = c.tolerance;
  return (
    `each side: median of its runs [bootstrap 95 % confidence interval]; p: two-sided Mann-Whitney U over the runs; ` +
    `worse / better when p < ${t.alpha} and the change exceeds max(${(t.relative * 100).toFixed(0)} % of the baseline, ` +
    `${t.minMs} ms for latencies / ${(t.minErrorRate * 100).toFixed(1)} points for rates); otherwise ~; ` +
    `where the run counts cannot reach p < ${t.alpha} at all, a change beyond that is inconclusive, ` +
    `or likely worse / likely better when ${LIKELY_FACTOR}× or more`
  );
}

export function renderComparisonMarkdown(c: Comparison, s: ReportSources): string {
  const judged = c.figures.filter((f) => f.judged);
  const lines = [
    '# Performance comparison',
    '',
    `**${verdictLine(c)}**`,
    '',
    ...c.warnings.map((w) => `> **Warning**: ${w}`),
    '',
    `- Baseline: \`${s.baseline}\` (${s.baselineRuns} run(s))`,
    `- Current: \`${s.current}\` (${s.currentRuns} run(s))`,
    `- Method: ${methodLine(c)}`,
    '',
    '![Latency percentiles](latency.svg)',
    '![Throughput](throughput.svg)',
    '![Error rate](errors.svg)',
    '',
    '| scenario | figure | baseline | current | change | p | verdict |',
    '|---|---|---|---|---|---|---|',
    ...judged.map(
      (f) =>
        `| ${f.scenario} | \`${f.metric}\` ${statLabel(f.stat)} | ${withInterval(f, f.baseline, f.baselineCI)} | ` +
        `${withInterval(f, f.current, f.currentCI)} | ${changeText(f)} | ${pText(f)} | ${f.verdict === 'worse' || f.verdict === 'likely worse' ? `**${f.verdict}**` : f.verdict} |`,
    ),
    '',
  ];
  return lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n');
}
