/** Builders for load summaries in tests: the shape `parseSummary` returns, with only what a test needs. */
import type { LoadSummary, MetricFigures } from '../../src/load/summary.ts';

export function trend(name: string, values: Record<string, number>): MetricFigures {
  return { name, type: 'trend', time: true, values: { count: 100, ...values } };
}

export function counter(name: string, rate: number, count = rate * 10): MetricFigures {
  return { name, type: 'counter', time: false, values: { count, rate } };
}

export function errorRate(name: string, rate: number, total = 1000): MetricFigures {
  const passes = Math.round(rate * total);
  return { name, type: 'rate', time: false, values: { rate, passes, fails: total - passes } };
}

export function run(scenario: string, ...metrics: MetricFigures[]): LoadSummary {
  return {
    scenario,
    metrics: Object.fromEntries(metrics.map((m) => [m.name, m])),
    thresholds: [],
    extra: {},
    testRunDurationMs: 10_000,
  };
}

/** A ttfc-websocket run with the given chunks-mode TTFC median and p95. */
export function ttfcRun(med: number, p95: number, p99 = p95 + 2): LoadSummary {
  return run('ttfc-websocket', trend('speak_ws_ttfc{mode:chunks}', { med, 'p(95)': p95, 'p(99)': p99 }));
}
