/** compare.md: the verdict, the tolerance used, and one row per judged figure. */
import { statLabel } from '../load/summary.ts';
import type { Comparison, FigureComparison } from './compare.ts';

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

export function verdictLine(c: Comparison): string {
  if (c.regressions.length)
    return `REGRESSION: ${c.regressions.length} figure(s) worse than the tolerance allows`;
  return `no regression${c.improvements.length ? ` (${c.improvements.length} improvement(s))` : ''}`;
}

export function renderComparisonMarkdown(c: Comparison, s: ReportSources): string {
  const t = c.tolerance;
  const judged = c.figures.filter((f) => f.judged);
  const lines = [
    '# Performance comparison',
    '',
    `**${verdictLine(c)}**`,
    '',
    `- Baseline: \`${s.baseline}\` (${s.baselineRuns} run(s); medians)`,
    `- Current: \`${s.current}\` (${s.currentRuns} run(s); medians)`,
    `- Tolerance: a figure regresses when it moves the worse way by more than max(${(t.relative * 100).toFixed(0)} % of the baseline, ` +
      `${t.noiseFactor} × the runs' spread (1.4826 × MAD), ${t.minMs} ms for latencies / ${(t.minErrorRate * 100).toFixed(1)} points for error rates)`,
    '',
    '![Latency percentiles](latency.svg)',
    '![Throughput](throughput.svg)',
    '![Error rate](errors.svg)',
    '',
    '| scenario | figure | baseline | current | change | allowed | verdict |',
    '|---|---|---|---|---|---|---|',
    ...judged.map(
      (f) =>
        `| ${f.scenario} | \`${f.metric}\` ${statLabel(f.stat)} | ${formatValue(f, f.baseline)} | ${formatValue(f, f.current)} | ${changeText(f)} | ` +
        `${f.allowed === undefined ? '–' : `±${formatValue(f, f.allowed)}`} | ${f.verdict === 'regression' ? '**regression**' : f.verdict} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
