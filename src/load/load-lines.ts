/**
 * What `speakcheck load SCENARIO` prints around k6's own metric dump (issue 51 item 12): a header
 * first (the scenario, the target, the VUs and duration asked for), and after the threshold lines a
 * warning for each judged percentile that rests on too few samples, then one verdict line — so the
 * 40 lines of k6 in between are framed by what was run and what it means.
 */
import { EXIT } from '../exit-codes.ts';
import { appliedThresholds } from './scenario-slo.ts';
import { metricWithFigure } from './slo.ts';
import type { LoadSummary } from './summary.ts';

/**
 * Fewer samples than this and a p95 is a guess: the 95th percentile of n samples is the value only
 * n/20 samples lie above (one in 20 samples, none in fewer), so a single slow take moves it. 100
 * samples keep five above it.
 */
export const P95_MIN_SAMPLES = 100;

export interface LoadHeader {
  scenario: string;
  /** The base URL, or the reference stack the run started. */
  target: string;
  vus?: number;
  duration?: string;
}

export function loadHeaderLine(h: LoadHeader): string {
  const vus = h.vus === undefined ? "the scenario's VUs" : `${h.vus} VU${h.vus === 1 ? '' : 's'}`;
  const duration = h.duration === undefined ? "the scenario's duration" : h.duration;
  return `speakcheck load ${h.scenario}: ${h.target}, ${vus}, ${duration}; k6's metrics follow, then the thresholds and the verdict`;
}

/** A judged percentile (p90 and up) of fewer than P95_MIN_SAMPLES samples, per threshold. */
export function fewSamplesWarnings(summary: LoadSummary): string[] {
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const t of appliedThresholds(summary)) {
    if (!/\bp\(9\d(?:\.\d+)?\)/.test(t.expression) || seen.has(t.metric)) continue;
    seen.add(t.metric);
    const count = summary.metrics[t.metric]?.values.count;
    if (count === undefined || count >= P95_MIN_SAMPLES) continue;
    warnings.push(
      `warning: ${metricWithFigure(t.metric)} ${t.expression} rests on ${count} sample${count === 1 ? '' : 's'} (fewer than ${P95_MIN_SAMPLES}: one slow take moves it); a longer --duration or more --vus gives a steadier figure`,
    );
  }
  return warnings;
}

/** The last line: what the thresholds say, and what was run (the VUs k6 reached, how long). */
export function loadVerdictLine(summary: LoadSummary | undefined, exitCode: number): string {
  if (!summary) return `verdict: NO RESULT — k6 exited with ${exitCode} and wrote no summary`;
  const applied = appliedThresholds(summary);
  const vus = summary.metrics.vus_max?.values.max ?? summary.metrics.vus_max?.values.value;
  const ran = [
    ...(vus === undefined ? [] : [`${vus} VUs at most`]),
    ...(summary.testRunDurationMs === undefined
      ? []
      : [`${(summary.testRunDurationMs / 1000).toFixed(1)} s`]),
  ].join(', ');
  const failed = applied.filter((t) => !t.ok);
  if (exitCode === EXIT.thresholdsFailed || failed.length > 0)
    return `verdict: THRESHOLDS FAILED — ${failed.map((t) => `${metricWithFigure(t.metric)} ${t.expression}`).join('; ') || 'see summary.md'}${ran ? ` (${ran})` : ''}`;
  if (exitCode !== EXIT.ok) return `verdict: NO RESULT — k6 exited with ${exitCode}${ran ? ` (${ran})` : ''}`;
  return `verdict: THRESHOLDS HOLD — ${applied.length} threshold${applied.length === 1 ? '' : 's'} passed${ran ? ` (${ran})` : ''}`;
}
