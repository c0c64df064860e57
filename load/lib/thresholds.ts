/**
 * Which thresholds a scenario holds its run to, and where each one came from: options data, built
 * before any VU runs and kept apart from the VU loop (k6's own style: `options.thresholds`). Pure
 * (the environment is a parameter), so Node tests import it as they do stream-figures.ts.
 *
 * Three kinds of limit, so a run against someone else's server is not judged by our stack's speed:
 *   - errors and completeness (error rates, takes completed, audio received): always held;
 *   - latency limits tuned to the reference stack (a sentence synthesized in ~20–25 ms): held only
 *     when THRESHOLDS=reference (the CLI sets it for the embedded and container stacks), or each one
 *     whose scenario knob (e.g. TTFC_CHUNKS_P95_MS) is given explicitly;
 *   - the user's SLO (SLO_JSON, set by the CLI from `--slo` / SPEAK_LOAD_SLO / the config file's
 *     `slo`): its latency terms replace the reference-tuned limits, its `errors<N%` the default error
 *     share.
 * Without THRESHOLDS (plain k6, k6-operator) a run judges errors and completeness only, plus the SLO.
 */

/** The latency figures an SLO term may name (src/load/slo.ts parses them; the same names). */
export type SloFigureName =
  | 'first_playable'
  | 'end_of_take'
  | 'take_latency'
  | 'queue_wait'
  | 'wav_first_byte'
  | 'wav_complete';

/** One SLO term as the CLI hands it over in SLO_JSON (src/load/slo.ts SloTerm). */
export type SloTermData =
  | { kind: 'latency'; figure: SloFigureName; percentile: number; maxMs: number; text: string }
  | { kind: 'errors'; maxRate: number; text: string };

export interface SloData {
  text: string;
  /** Where the SLO came from, in words: `--slo`, `SPEAK_LOAD_SLO`, `config file <path> (slo)`. */
  source: string;
  terms: SloTermData[];
}

/** A latency limit tuned to the reference stack, with the scenario knob that changes it. */
export interface ReferenceLimit {
  metric: string;
  /** `med` or `p(95)`, ... */
  stat: string;
  op: '<' | '<=';
  knob: string;
  defaultValue: number;
}

export interface ScenarioThresholdSpec {
  /** Error-share metrics: `rate<max` by default (max from `knob` when given), an SLO's errors term instead. */
  errorRates: Array<{ metric: string; defaultMax: number; knob?: string }>;
  /** Completeness: takes completed, audio received; held against every server. */
  completeness: Record<string, string[]>;
  /** Latency limits tuned to the reference stack. */
  reference: ReferenceLimit[];
  /** The metrics an SLO latency term on each figure applies to; a figure absent here is not measured. */
  figures: Partial<Record<SloFigureName, string[]>>;
  /** Always-true thresholds that only make k6 report a tagged sub-metric (judged nowhere). */
  exposed?: Record<string, string[]>;
}

/** One threshold the run holds, and its source in words (summary.json → speakcheck.thresholds). */
export interface PlannedThreshold {
  metric: string;
  expression: string;
  source: string;
}

export type ThresholdProfile = 'reference' | 'errors-only';

export interface ThresholdPlan {
  /** THRESHOLDS as given: reference limits apply (embedded/container stack) or not. */
  profile: ThresholdProfile;
  slo: { text: string; source: string } | null;
  /** How latency is judged, in words, for the summaries. */
  latency: string;
  applied: PlannedThreshold[];
}

export const SOURCE = {
  errors: 'default: errors and completeness',
  reference: 'reference-tuned (embedded/container stack)',
  knob: (name: string) => `scenario knob ${name}`,
} as const;

function given(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function numberFrom(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = given(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${name}=${raw} is not a number`);
  return value;
}

/** The threshold profile from THRESHOLDS; absent: errors-only (a server not ours). */
export function thresholdProfile(env: Record<string, string | undefined>): ThresholdProfile {
  const raw = given(env, 'THRESHOLDS') ?? 'errors-only';
  if (raw !== 'reference' && raw !== 'errors-only')
    throw new Error(`THRESHOLDS=${raw}: use reference or errors-only`);
  return raw;
}

export function sloFrom(env: Record<string, string | undefined>): SloData | undefined {
  const raw = given(env, 'SLO_JSON');
  if (raw === undefined) return undefined;
  const slo = JSON.parse(raw) as SloData;
  if (!Array.isArray(slo.terms)) throw new Error('SLO_JSON: no "terms" list');
  return slo;
}

const stat = (percentile: number) => (percentile === 50 ? 'med' : `p(${percentile})`);

/**
 * The run's thresholds (for `options.thresholds`) and the plan that says where each came from. An
 * SLO latency term on a figure the scenario does not measure is an error (the CLI refuses it first).
 */
export function planThresholds(
  spec: ScenarioThresholdSpec,
  env: Record<string, string | undefined>,
  scenario: string,
): { thresholds: Record<string, string[]>; plan: ThresholdPlan } {
  const profile = thresholdProfile(env);
  const slo = sloFrom(env);
  const applied: PlannedThreshold[] = [];
  const add = (metric: string, expression: string, source: string) =>
    applied.push({ metric, expression, source });

  const sloErrors = slo?.terms.find((t) => t.kind === 'errors');
  for (const e of spec.errorRates) {
    if (sloErrors) add(e.metric, `rate<${sloErrors.maxRate}`, slo!.source);
    else if (e.knob && given(env, e.knob) !== undefined)
      add(e.metric, `rate<${numberFrom(env, e.knob, e.defaultMax)}`, SOURCE.knob(e.knob));
    else add(e.metric, `rate<${e.defaultMax}`, SOURCE.errors);
  }
  for (const [metric, expressions] of Object.entries(spec.completeness))
    for (const expression of expressions) add(metric, expression, SOURCE.errors);

  const sloLatency = (slo?.terms ?? []).filter((t) => t.kind === 'latency');
  for (const term of sloLatency) {
    const metrics = spec.figures[term.figure];
    if (!metrics?.length) {
      throw new Error(
        `SLO term ${term.text}: ${scenario} does not measure ${term.figure} (it measures ${Object.keys(spec.figures).join(', ')})`,
      );
    }
    for (const metric of metrics) add(metric, `${stat(term.percentile)}<${term.maxMs}`, slo!.source);
  }
  let referenceHeld = 0;
  for (const limit of spec.reference) {
    const explicit = given(env, limit.knob) !== undefined;
    // The user's SLO replaces our stack's tuned limits; a knob given explicitly is the user's too.
    if (!explicit && (sloLatency.length > 0 || profile !== 'reference')) continue;
    const value = numberFrom(env, limit.knob, limit.defaultValue);
    add(
      limit.metric,
      `${limit.stat}${limit.op}${value}`,
      explicit ? SOURCE.knob(limit.knob) : SOURCE.reference,
    );
    if (!explicit) referenceHeld += 1;
  }
  const knobs = applied.filter(
    (t) => t.source.startsWith('scenario knob') && !t.expression.startsWith('rate'),
  );
  const latency = sloLatency.length
    ? `the user's SLO (${slo!.source}: ${sloLatency.map((t) => t.text).join(', ')})`
    : referenceHeld > 0
      ? 'limits tuned to the reference stack (a server not ours is judged on errors and completeness only)'
      : knobs.length > 0
        ? `scenario knobs only (${knobs.map((t) => t.source.replace('scenario knob ', '')).join(', ')})`
        : 'none: a server not ours is judged on errors and completeness only; give your SLO with --slo (e.g. first_playable_p95<800ms), or compare with a baseline (perf compare)';

  const thresholds: Record<string, string[]> = {};
  for (const [metric, expressions] of Object.entries(spec.exposed ?? {}))
    thresholds[metric] = [...expressions];
  for (const t of applied) thresholds[t.metric] = [...(thresholds[t.metric] ?? []), t.expression];
  // k6 reports a tagged sub-metric only when a threshold names it: the figures an SLO could judge
  // stay in every summary (perf compare reads them), judged or not.
  const figureMetrics = [...Object.values(spec.figures).flat(), ...spec.reference.map((l) => l.metric)];
  for (const metric of figureMetrics) thresholds[metric] ??= ['p(95)>=0'];
  return {
    thresholds,
    plan: { profile, slo: slo ? { text: slo.text, source: slo.source } : null, latency, applied },
  };
}
