/** The three comparison charts: latency percentiles, throughput, error rate. */

import { type BarRow, renderBarChart } from '../figures/svg-chart.ts';
import { statLabel } from '../load/summary.ts';
import type { Comparison, FigureComparison } from './compare.ts';

export interface ComparisonCharts {
  latency: string;
  throughput: string;
  errors: string;
}

/** Untagged parents are left out of the charts when tagged sub-metrics (per mode, per rate) exist. */
function chartable(figures: FigureComparison[]): FigureComparison[] {
  const names = new Set(figures.map((f) => `${f.scenario}|${f.metric}`));
  return figures.filter((f) => {
    if (f.metric.includes('{')) return true;
    return ![...names].some((n) => n.startsWith(`${f.scenario}|${f.metric}{`));
  });
}

function rows(figures: FigureComparison[], scale = 1): BarRow[] {
  return figures.map((f) => ({
    label: `${f.scenario} · ${f.metric.replace(/^speak_/, '')} ${statLabel(f.stat)}`,
    baseline: f.baseline === undefined ? undefined : f.baseline * scale,
    current: f.current === undefined ? undefined : f.current * scale,
    regressed: f.verdict === 'worse' || f.verdict === 'likely worse',
  }));
}

export function comparisonCharts(c: Comparison): ComparisonCharts {
  const figures = chartable(c.figures);
  return {
    latency: renderBarChart({
      title: 'Latency percentiles',
      axisLabel: 'milliseconds (lower is better)',
      rows: rows(figures.filter((f) => f.kind === 'latency')),
    }),
    throughput: renderBarChart({
      title: 'Throughput',
      axisLabel: 'per second of test run (higher is better)',
      rows: rows(figures.filter((f) => f.kind === 'throughput')),
    }),
    errors: renderBarChart({
      title: 'Error rate',
      axisLabel: 'percent of requests (lower is better)',
      rows: rows(
        figures.filter((f) => f.kind === 'errors'),
        100,
      ),
      format: (v) => `${v.toFixed(v >= 10 ? 0 : 2)} %`,
    }),
  };
}
