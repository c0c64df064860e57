/**
 * Which figures `perf compare` tracks, in which direction they are better, and the smallest change
 * that can count at all (k6 times websocket frames with Date.now(): 1 ms steps).
 */
import type { MetricType } from '../load/summary.ts';

export type MetricKind = 'latency' | 'throughput' | 'errors' | 'ratio';

export interface TrackedRule {
  kind: MetricKind;
  type: MetricType;
  pattern: RegExp;
  /** The k6 stats compared (`med`, `p(95)`, `rate`). */
  stats: string[];
  better: 'lower' | 'higher';
}

/** The first rule whose type and pattern match a metric decides how it is judged. */
export const TRACKED_RULES: TrackedRule[] = [
  // Real-time factors (audio seconds per wall second): higher is better; the median is judged.
  {
    kind: 'ratio',
    type: 'trend',
    pattern: /^speak_(ws_rtf|ws_min_cum_rtf|wav_rtf)(\{.*\})?$/,
    stats: ['med'],
    better: 'higher',
  },
  // Jitter: the gaps between audio frames, tail included.
  {
    kind: 'latency',
    type: 'trend',
    pattern: /^speak_ws_chunk_gap(\{.*\})?$/,
    stats: ['med', 'p(95)', 'max'],
    better: 'lower',
  },
  // speak_warmup_*: the warm-up phase's takes, kept out of every figure on purpose (never tracked).
  { kind: 'latency', type: 'trend', pattern: /^speak_(?!warmup_)/, stats: ['med', 'p(95)'], better: 'lower' },
  {
    kind: 'throughput',
    type: 'counter',
    pattern: /^speak_(takes_accepted|takes_completed|audio_seconds|ws_takes)(\{.*\})?$/,
    stats: ['rate'],
    better: 'higher',
  },
  // Error rates, and the share of takes whose playback would stall (underrun).
  {
    kind: 'errors',
    type: 'rate',
    pattern: /^speak_(\w*errors|ws_underrun)(\{.*\})?$/,
    stats: ['rate'],
    better: 'lower',
  },
];

/** Percentiles drawn in the latency chart (p99 is shown, not judged: too few samples in short runs). */
export const CHART_LATENCY_STATS = ['med', 'p(95)', 'p(99)'];

export interface Tolerance {
  /** Significance level of the Mann-Whitney U test (0.05). */
  alpha: number;
  /** Relative change below which a significant difference is still `~` (0.1 = 10 %). */
  relative: number;
  /** Latency changes below this many ms never count. */
  minMs: number;
  /** Error-rate changes below this absolute fraction never count (0.005 = 0.5 points). */
  minErrorRate: number;
}

export const DEFAULT_TOLERANCE: Tolerance = { alpha: 0.05, relative: 0.1, minMs: 2, minErrorRate: 0.005 };

export function absoluteFloor(kind: MetricKind, t: Tolerance): number {
  return kind === 'latency' ? t.minMs : kind === 'errors' ? t.minErrorRate : 0;
}
