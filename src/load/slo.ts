/**
 * The service-level objective, given as `--slo "first_playable_p95<300ms,errors<1%"` (or
 * SPEAK_LOAD_SLO, or the config file's `slo`): the capacity search holds each step to it, and a load
 * scenario holds its run to it instead of the reference's tuned limits (scenario-slo.ts). Terms,
 * joined by commas, all must hold:
 *
 *   <figure>_p<N> < <value>ms|s   a latency percentile of the step's takes (p50, p90, p95, p99)
 *   errors < <value>%              the share of failed takes
 *   achieved >= <value>%           takes ended per second / the offered rate (the server kept up)
 *
 * Figures: first_playable (websocket: time to first playable audio), end_of_take (websocket: the
 * end-of-take frame), take_latency (REST: accepted → ready), queue_wait (REST: accepted → started);
 * for the ttfb-wav scenario also wav_first_byte (POST sent → first wav byte) and wav_complete (→ last).
 */
import { DEFAULT_CAPACITY_SLO } from '../config/options.ts';
import { SpeakcheckError } from '../errors.ts';

export class SloError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_LOAD_SLO';
  override name = 'SloError';
}

/** The figures a capacity search measures in its steps. */
export const SLO_FIGURES = ['first_playable', 'end_of_take', 'take_latency', 'queue_wait'] as const;

/**
 * The k6 metric behind each SLO figure: the SLO speaks of what a listener hears (first_playable),
 * the metric of how it is measured (speak_ws_ttfc: time to the first chunk ffmpeg can play). The
 * terminal and the docs name both together (issue 51 item 12).
 */
export const FIGURE_METRICS: Record<(typeof SLO_FIGURES)[number], string> = {
  first_playable: 'speak_ws_ttfc',
  end_of_take: 'speak_ws_end_of_take',
  take_latency: 'speak_take_latency',
  queue_wait: 'speak_queue_wait',
};

/** `speak_ws_ttfc{mode:chunks}` → `speak_ws_ttfc{mode:chunks} (SLO first_playable)`; other metrics as they are. */
export function metricWithFigure(metric: string): string {
  const base = metric.replace(/\{.*$/, '');
  const figure = Object.entries(FIGURE_METRICS).find(([, name]) => name === base)?.[0];
  return figure ? `${metric} (SLO ${figure})` : metric;
}
/** Every figure a term may name: the capacity search's and the ttfb-wav scenario's. */
export const ALL_SLO_FIGURES = [...SLO_FIGURES, 'wav_first_byte', 'wav_complete'] as const;
export type SloFigure = (typeof ALL_SLO_FIGURES)[number];
const PERCENTILES = [50, 90, 95, 99] as const;

export type SloTerm =
  | { kind: 'latency'; figure: SloFigure; percentile: number; maxMs: number; text: string }
  | { kind: 'errors'; maxRate: number; text: string }
  | { kind: 'achieved'; minRatio: number; text: string };

export interface Slo {
  terms: SloTerm[];
  text: string;
}

/** The capacity search's defaults per mode: a listener's first audio for the websocket modes, a finished take for REST. */
export const DEFAULT_SLO = DEFAULT_CAPACITY_SLO;

/** What a caller accepts: which figures it measures, and whether it needs a latency term or takes `achieved`. */
export interface SloRules {
  figures: readonly SloFigure[];
  /** A capacity needs a latency term to find a knee; a scenario's SLO may be errors only. */
  needsLatency: boolean;
  /** `achieved>=`: the share of an arrival rate the server kept up with (capacity steps only). */
  achieved: boolean;
  /** Named in messages: "capacity", "ttfc-websocket". */
  what: string;
}

export const CAPACITY_SLO_RULES: SloRules = {
  figures: SLO_FIGURES,
  needsLatency: true,
  achieved: true,
  what: 'the capacity search',
};

function parseTerm(raw: string, rules: SloRules): SloTerm {
  const text = raw.trim();
  const latency = /^([a-z_]+)_p(\d+)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(text);
  if (latency) {
    const figure = latency[1] as SloFigure;
    if (!(ALL_SLO_FIGURES as readonly string[]).includes(figure)) {
      throw new SloError(
        `SLO term "${text}": unknown figure ${figure} (have: ${ALL_SLO_FIGURES.join(', ')})`,
      );
    }
    if (!rules.figures.includes(figure)) {
      throw new SloError(
        `SLO term "${text}": ${rules.what} does not measure ${figure} (it measures ${rules.figures.join(', ')})`,
      );
    }
    const percentile = Number(latency[2]);
    if (!(PERCENTILES as readonly number[]).includes(percentile)) {
      throw new SloError(
        `SLO term "${text}": percentile p${percentile} is not one of ${PERCENTILES.map((p) => `p${p}`).join(', ')}`,
      );
    }
    const value = Number(latency[3]);
    const maxMs = latency[4] === 's' ? value * 1000 : value;
    if (!(maxMs > 0)) throw new SloError(`SLO term "${text}": the limit must be above 0`);
    return { kind: 'latency', figure, percentile, maxMs, text };
  }
  const errors = /^errors\s*<\s*(\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (errors) {
    const maxRate = Number(errors[1]) / 100;
    if (!(maxRate > 0 && maxRate <= 1))
      throw new SloError(`SLO term "${text}": the error share must be in (0, 100] %`);
    return { kind: 'errors', maxRate, text };
  }
  const achieved = /^achieved\s*>=\s*(\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (achieved && !rules.achieved) {
    throw new SloError(
      `SLO term "${text}": achieved>= is for the capacity search's arrival rates, not ${rules.what}`,
    );
  }
  if (achieved) {
    const minRatio = Number(achieved[1]) / 100;
    if (!(minRatio > 0 && minRatio <= 1))
      throw new SloError(`SLO term "${text}": achieved must be in (0, 100] %`);
    return { kind: 'achieved', minRatio, text };
  }
  throw new SloError(
    `SLO term "${text}" not understood: use <figure>_p<N><<value>ms|s (e.g. first_playable_p95<300ms), errors<<value>% or achieved>=<value>%`,
  );
}

export function parseSlo(text: string, rules: SloRules = CAPACITY_SLO_RULES): Slo {
  const parts = text.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0)
    throw new SloError('the SLO is empty: give at least one term, e.g. first_playable_p95<300ms');
  const terms = parts.map((part) => parseTerm(part, rules));
  if (rules.needsLatency && !terms.some((t) => t.kind === 'latency')) {
    throw new SloError(
      `SLO "${text}" has no latency term: a capacity needs one (e.g. first_playable_p95<300ms)`,
    );
  }
  return { terms, text: terms.map((t) => t.text).join(',') };
}

/** What one step measured, as the SLO reads it. */
export interface StepFigures {
  /** figure → percentile → ms, e.g. latency.first_playable[95]. */
  latency: Partial<Record<SloFigure, Partial<Record<number, number>>>>;
  /** Samples behind the latency figures, per figure. */
  samples: Partial<Record<SloFigure, number>>;
  errorRate: number;
  offeredRate: number;
  achievedRate: number;
}

export interface SloVerdict {
  holds: boolean;
  /** One phrase per broken term ("first_playable_p95 = 412 ms ≥ 300 ms"). */
  broken: string[];
}

export function judgeSlo(slo: Slo, f: StepFigures): SloVerdict {
  const broken: string[] = [];
  for (const t of slo.terms) {
    if (t.kind === 'latency') {
      const value = f.latency[t.figure]?.[t.percentile];
      if (value === undefined) broken.push(`${t.figure}_p${t.percentile}: no samples`);
      else if (!(value < t.maxMs))
        broken.push(`${t.figure}_p${t.percentile} = ${value.toFixed(0)} ms ≥ ${t.maxMs} ms`);
    } else if (t.kind === 'errors') {
      if (!(f.errorRate < t.maxRate))
        broken.push(`errors = ${(f.errorRate * 100).toFixed(2)} % ≥ ${(t.maxRate * 100).toFixed(2)} %`);
    } else {
      const ratio = f.offeredRate > 0 ? f.achievedRate / f.offeredRate : 0;
      if (!(ratio >= t.minRatio))
        broken.push(
          `achieved ${f.achievedRate.toFixed(1)}/s = ${(ratio * 100).toFixed(1)} % of offered < ${(t.minRatio * 100).toFixed(0)} %`,
        );
    }
  }
  return { holds: broken.length === 0, broken };
}
