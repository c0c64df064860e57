/** Status values and their order: a take or voice only ever moves forward. */
import { latitude } from '../latitude/index.ts';

export const STATUS_RANK: Record<string, number> = {
  waiting: 0,
  started: 1,
  progress_25: 2,
  progress_50: 3,
  progress_75: 4,
  ready: 5,
  error: 5,
  timeout: 5,
};

const DONE_STATUSES: ReadonlySet<string> = new Set(['ready', 'error', 'timeout']);

export function isDone(status: string): boolean {
  return DONE_STATUSES.has(status);
}

/** The progress status after `done` of `total` parts, or undefined when no new one is due. */
export function progressAfter(
  done: number,
  total: number,
): 'progress_25' | 'progress_50' | 'progress_75' | undefined {
  if (done >= total || total <= 1) return undefined;
  const fraction = done / total;
  // Latitude statuses-as-shown: only the statuses speak-v1.md shows (progress_50, no 25/75).
  if (latitude.has('statuses-as-shown')) return fraction >= 0.5 ? 'progress_50' : undefined;
  if (fraction >= 0.75) return 'progress_75';
  if (fraction >= 0.5) return 'progress_50';
  if (fraction >= 0.25) return 'progress_25';
  return undefined;
}
