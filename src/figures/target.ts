/**
 * A measured figure against a fixed target (`speakcheck bench`): met, missed, or — when the runs
 * are too few to tell a miss from noise — inconclusive (issue 51 item 7: evidence that cannot decide
 * says so, never "target met"). Run to run, a whole conformance run on the 2-core machine varies
 * by about 5–10 % (docs/benchmarks.md: 8.4–8.9 s); with fewer than BENCH_DECIDING_RUNS runs a
 * median within NOISE of the target is on either side by chance.
 */
import { median } from './stats.ts';

export const BENCH_DECIDING_RUNS = 3;
/** The share of the target within which too few runs cannot decide. */
export const NOISE = 0.1;

export type TargetOutcome = 'met' | 'missed' | 'inconclusive';

export function judgeTarget(
  values: readonly number[],
  target: number,
  want: 'at most' | 'at least',
): TargetOutcome {
  const m = median([...values]);
  const met = want === 'at most' ? m <= target : m >= target;
  if (values.length < BENCH_DECIDING_RUNS && Math.abs(m - target) <= NOISE * target) return 'inconclusive';
  return met ? 'met' : 'missed';
}

/** The worst of several outcomes: a miss, else an undecided one, else met. */
export function worstOutcome(outcomes: readonly TargetOutcome[]): TargetOutcome {
  if (outcomes.includes('missed')) return 'missed';
  return outcomes.includes('inconclusive') ? 'inconclusive' : 'met';
}
