/**
 * A load scenario's thresholds are the user's SLO, not our stack's speed. Against a server not ours
 * (`--base-url`) the defaults judge errors and completeness only; the latency limits tuned to the
 * reference stack hold only when the run starts that stack (embedded or container); the user's SLO
 * (`--slo`, SPEAK_LOAD_SLO, the config file's `slo`) replaces them on any target. The k6 side builds
 * the thresholds from what this hands it (load/lib/thresholds.ts) and writes down which applied and
 * where each came from (summary.json → speakcheck.thresholds); this reads that back for the terminal
 * and summary.md.
 */
import type { ScenarioName } from './scenarios.ts';
import { metricWithFigure, parseSlo, type Slo, type SloFigure, type SloRules } from './slo.ts';
import type { LoadSummary, ThresholdResult } from './summary.ts';

/** The figures each scenario measures, as load/lib/thresholds.ts maps them to its metrics. */
export const SCENARIO_SLO_FIGURES: Record<ScenarioName, readonly SloFigure[]> = {
  'ttfc-websocket': ['first_playable', 'end_of_take'],
  'ttfb-wav': ['wav_first_byte', 'wav_complete'],
  'throughput-rest': ['take_latency', 'queue_wait'],
  ramp: ['first_playable'],
};

export function scenarioSloRules(scenario: ScenarioName): SloRules {
  return { figures: SCENARIO_SLO_FIGURES[scenario], needsLatency: false, achieved: false, what: scenario };
}

/** The SLO as given and where it came from (`--slo`, `SPEAK_LOAD_SLO`, `config file … (slo)`). */
export interface GivenSlo {
  text: string;
  source: string;
}

/** Parses the user's SLO for a scenario (SloError when a term is malformed or names a figure it does not measure). */
export function parseScenarioSlo(given: GivenSlo, scenario: ScenarioName): Slo {
  return parseSlo(given.text, scenarioSloRules(scenario));
}

/**
 * The k6 variables that choose the thresholds: THRESHOLDS=reference when the run started the
 * reference stack (its tuned limits apply), else errors-only; SLO_JSON the parsed SLO and its source.
 */
export function thresholdVars(
  o: { slo?: GivenSlo; scenario: ScenarioName },
  referenceStack: boolean,
): Record<string, string> {
  const vars: Record<string, string> = { THRESHOLDS: referenceStack ? 'reference' : 'errors-only' };
  if (o.slo) {
    const slo = parseScenarioSlo(o.slo, o.scenario);
    vars.SLO_JSON = JSON.stringify({ text: slo.text, source: o.slo.source, terms: slo.terms });
  }
  return vars;
}

/** summary.json → speakcheck.thresholds, as load/lib/thresholds.ts writes it. */
export interface ThresholdPlanBlock {
  profile: 'reference' | 'errors-only';
  slo: GivenSlo | null;
  latency: string;
  applied: Array<{ metric: string; expression: string; source: string }>;
}

export interface AppliedThreshold extends ThresholdResult {
  /** Where it came from in words; "k6 option" for a threshold outside the plan. */
  source: string;
}

export function thresholdPlan(summary: LoadSummary): ThresholdPlanBlock | undefined {
  const block = summary.extra.thresholds as ThresholdPlanBlock | undefined;
  return block && Array.isArray(block.applied) ? block : undefined;
}

/**
 * The thresholds k6 judged, each with its source; the always-true ones that only make k6 report a
 * sub-metric are left out.
 */
export function appliedThresholds(summary: LoadSummary): AppliedThreshold[] {
  const plan = thresholdPlan(summary);
  const sourceOf = (t: ThresholdResult) =>
    plan?.applied.find((a) => a.metric === t.metric && a.expression === t.expression)?.source;
  return summary.thresholds
    .filter((t) => sourceOf(t) !== undefined || !/>=0$/.test(t.expression))
    .map((t) => ({ ...t, source: sourceOf(t) ?? 'k6 option' }));
}

/** The lines the terminal prints after a run: how latency was judged, then each threshold. */
export function thresholdLines(summary: LoadSummary): string[] {
  const plan = thresholdPlan(summary);
  const lines: string[] = [];
  if (plan) lines.push(`latency thresholds: ${plan.latency}`);
  for (const t of appliedThresholds(summary)) {
    lines.push(`  ${t.ok ? 'pass' : 'FAIL'}  ${metricWithFigure(t.metric)} ${t.expression}  (${t.source})`);
  }
  return lines;
}
