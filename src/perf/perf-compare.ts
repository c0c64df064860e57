/** `speakcheck perf compare`: load both sides, compare, write compare.md / compare.html / *.svg. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CapacityComparison,
  capacityHtml,
  capacityMarkdown,
  compareCapacities,
} from './capacity-compare.ts';
import { comparisonCharts } from './charts.ts';
import { type Comparison, compareRuns } from './compare.ts';
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
