/**
 * Reads the summary.json a load scenario's handleSummary writes (k6's summary data plus a
 * `speakcheck` block) into plain figures that the Markdown summary and `perf compare` share.
 */
import { readFileSync } from 'node:fs';
import { SpeakcheckError } from '../errors.ts';

export type MetricType = 'trend' | 'counter' | 'rate' | 'gauge';

export interface MetricFigures {
  /** Full k6 name, tags included: `speak_ws_ttfc{mode:chunks}`. */
  name: string;
  type: MetricType;
  /** True for Trends of durations (milliseconds). */
  time: boolean;
  values: Record<string, number>;
}

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
}

export interface LoadSummary {
  scenario: string;
  metrics: Record<string, MetricFigures>;
  thresholds: ThresholdResult[];
  /** Scenario-specific results (e.g. the ramp's crossing rate). */
  extra: Record<string, unknown>;
  testRunDurationMs: number | undefined;
}

export class SummaryFormatError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_LOAD_SUMMARY';
  override name = 'SummaryFormatError';
}

const TYPES = new Set(['trend', 'counter', 'rate', 'gauge']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses summary data; `where` names the source in error messages. */
export function parseSummary(raw: unknown, where = 'summary'): LoadSummary {
  if (!isRecord(raw) || !isRecord(raw.metrics)) throw new SummaryFormatError(`${where}: no "metrics" object`);
  const metrics: Record<string, MetricFigures> = {};
  const thresholds: ThresholdResult[] = [];
  for (const [name, m] of Object.entries(raw.metrics)) {
    if (!isRecord(m) || typeof m.type !== 'string' || !TYPES.has(m.type) || !isRecord(m.values)) {
      throw new SummaryFormatError(`${where}: metric "${name}" lacks type/values`);
    }
    const values: Record<string, number> = {};
    for (const [stat, v] of Object.entries(m.values)) if (typeof v === 'number') values[stat] = v;
    metrics[name] = { name, type: m.type as MetricType, time: m.contains === 'time', values };
    if (isRecord(m.thresholds)) {
      for (const [expression, t] of Object.entries(m.thresholds)) {
        thresholds.push({ metric: name, expression, ok: isRecord(t) && t.ok === true });
      }
    }
  }
  const speakcheck = isRecord(raw.speakcheck) ? raw.speakcheck : {};
  const { scenario, ...extra } = speakcheck;
  const state = isRecord(raw.state) ? raw.state : {};
  return {
    scenario: typeof scenario === 'string' ? scenario : 'unknown',
    metrics,
    thresholds,
    extra,
    testRunDurationMs: typeof state.testRunDurationMs === 'number' ? state.testRunDurationMs : undefined,
  };
}

export function readSummaryFile(path: string): LoadSummary {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SummaryFormatError(`${path}: not readable JSON (${(err as Error).message})`);
  }
  return parseSummary(raw, path);
}

/** The metric's median: k6 calls it `med`. */
export function statLabel(stat: string): string {
  return stat === 'med' ? 'p50' : stat.replace(/^p\((\d+(?:\.\d+)?)\)$/, 'p$1');
}
