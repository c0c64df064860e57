/** `speakcheck perf compare`: load both sides, compare, write compare.md / compare.html / *.svg. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import {
  type CapacityComparison,
  capacityHtml,
  capacityMarkdown,
  compareCapacities,
} from './capacity-compare.ts';
import { comparisonCharts } from './charts.ts';
import { type Comparison, compareRuns, comparisonOutcome } from './compare.ts';
import { renderComparisonHtml } from './report-html.ts';
import { renderComparisonMarkdown } from './report-markdown.ts';
import { loadRunSet } from './run-set.ts';
import { CHART_LATENCY_STATS, type Tolerance } from './tracked.ts';

export interface PerfCompareResult {
  comparison: Comparison;
  /** `load capacity` runs on either side, bracket against bracket. */
  capacities: CapacityComparison[];
  files: { markdown: string; html: string; svgs: string[] };
}

export function perfCompare(
  baselinePath: string,
  currentPath: string,
  tolerance: Tolerance,
  outDir: string,
): PerfCompareResult {
  const baseline = loadRunSet(baselinePath);
  const current = loadRunSet(currentPath);
  const comparison = compareRuns(baseline.runs, current.runs, tolerance, { chartStats: CHART_LATENCY_STATS });
  const charts = comparisonCharts(comparison);
  const capacities = compareCapacities(baseline.runs, current.runs);
  const sources = {
    baseline: baselinePath,
    current: currentPath,
    baselineRuns: baseline.runs.length,
    currentRuns: current.runs.length,
  };
  mkdirSync(outDir, { recursive: true });
  const files = {
    markdown: join(outDir, 'compare.md'),
    html: join(outDir, 'compare.html'),
    svgs: ['latency', 'throughput', 'errors'].map((name) => join(outDir, `${name}.svg`)),
  };
  writeFileSync(files.markdown, renderComparisonMarkdown(comparison, sources) + capacityMarkdown(capacities));
  writeFileSync(files.html, renderComparisonHtml(comparison, charts, sources, capacityHtml(capacities)));
  writeFileSync(files.svgs[0]!, charts.latency);
  writeFileSync(files.svgs[1]!, charts.throughput);
  writeFileSync(files.svgs[2]!, charts.errors);
  return { comparison, capacities, files };
}

/**
 * The command's exit code: 1 for a regression, a likely one (2× or more, too few runs to test) or a
 * worse capacity; 5 when the runs cannot decide a change beyond the tolerance; 0 only when no
 * figure is worse or undecided (issue 51 item 7: never "no regression" for want of runs).
 */
export function perfCompareExitCode(r: Pick<PerfCompareResult, 'comparison' | 'capacities'>): ExitCode {
  const outcome = comparisonOutcome(r.comparison);
  if (outcome === 'regression' || outcome === 'likely regression') return EXIT.failed;
  if (r.capacities.some((c) => c.verdict === 'worse')) return EXIT.failed;
  return outcome === 'inconclusive' ? EXIT.inconclusive : EXIT.ok;
}
