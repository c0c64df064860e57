/**
 * The search for a capacity: the highest load (arrival rate, or concurrent streams) whose step
 * still holds the SLO. Pure: `measure(load)` runs one step and says whether the SLO held, so the
 * search is tested on a fake measurement and driven by k6 in capacity.ts.
 *
 * 1. Step up: from `start`, multiply by `growth` until a step breaks the SLO or `max` is reached.
 * 2. Bisect between the last good and the first bad load until the bracket is narrower than
 *    `precision` × the good load (and at least `granularity` wide), or the budget is spent.
 * A first step that already breaks is followed by steps down (÷ growth) to `min`.
 */

export interface StepOutcome<F = unknown> {
  load: number;
  holds: boolean;
  /** The step's figures, kept for the report and the curve. */
  figures: F;
  /** How long the step took, setup included. */
  elapsedMs: number;
}

export interface SearchOptions {
  start: number;
  min: number;
  max: number;
  growth: number;
  /** Stop bisecting when (bad - good) ≤ precision × good. */
  precision: number;
  /** The smallest load difference worth a step (1 for streams, 0.5 takes/s). */
  granularity: number;
  /** Wall-time budget of the whole search. */
  budgetMs: number;
  /** Safety bound on steps. */
  maxSteps: number;
  now?: () => number;
}

export type SearchEnd =
  /** A bracket [good, bad] narrowed to the precision. */
  | 'found'
  /** A bracket exists, but the budget or the step bound ended the bisection early. */
  | 'bracketed'
  /** Every step held the SLO up to max: the capacity is at least max. */
  | 'holds-at-max'
  /** Even min breaks the SLO. */
  | 'breaks-at-min'
  /** The budget ended before any bracket. */
  | 'budget';

export interface SearchResult<F = unknown> {
  end: SearchEnd;
  /** The highest load that held the SLO (undefined when none did). */
  capacity?: number;
  /** The lowest load that broke it (undefined when none did). */
  firstBad?: number;
  steps: Array<StepOutcome<F> & { phase: 'up' | 'down' | 'bisect' }>;
  elapsedMs: number;
}

/** Rounds to the granularity, and keeps the result strictly inside (lo, hi) when possible. */
export function midpoint(lo: number, hi: number, granularity: number): number | undefined {
  const mid = Math.round((lo + hi) / 2 / granularity) * granularity;
  const value = Number(mid.toPrecision(12));
  if (value <= lo || value >= hi) return undefined;
  return value;
}

export async function searchCapacity<F>(
  measure: (load: number) => Promise<StepOutcome<F>>,
  o: SearchOptions,
): Promise<SearchResult<F>> {
  const now = o.now ?? Date.now;
  const startedAt = now();
  const steps: SearchResult<F>['steps'] = [];
  let good: number | undefined;
  let bad: number | undefined;
  /** Whether one more step (as long as the longest so far) still fits the budget. */
  const fits = (): boolean => {
    const longest = Math.max(0, ...steps.map((s) => s.elapsedMs));
    return steps.length < o.maxSteps && now() - startedAt + longest <= o.budgetMs;
  };
  const run = async (load: number, phase: 'up' | 'down' | 'bisect') => {
    const outcome = await measure(load);
    steps.push({ ...outcome, phase });
    if (outcome.holds) good = good === undefined ? load : Math.max(good, load);
    else bad = bad === undefined ? load : Math.min(bad, load);
    return outcome.holds;
  };
  const round = (v: number) => Number((Math.round(v / o.granularity) * o.granularity).toPrecision(12));

  // 1. Step up (or down when the start already breaks).
  let load = Math.min(Math.max(o.start, o.min), o.max);
  let holds = await run(load, 'up');
  if (holds) {
    while (holds && load < o.max) {
      if (!fits()) break;
      load = Math.min(o.max, Math.max(round(load * o.growth), load + o.granularity));
      holds = await run(load, 'up');
    }
  } else {
    while (!holds && load > o.min) {
      if (!fits()) break;
      load = Math.max(o.min, round(load / o.growth));
      holds = await run(load, 'down');
    }
  }
  // 2. Bisect between the last good and the first bad load.
  while (good !== undefined && bad !== undefined && bad - good > o.precision * good) {
    const mid = midpoint(good, bad, o.granularity);
    if (mid === undefined || !fits()) break;
    await run(mid, 'bisect');
  }
  const result: SearchResult<F> = { end: endOf(good, bad, o), steps, elapsedMs: now() - startedAt };
  if (good !== undefined) result.capacity = good;
  if (bad !== undefined) result.firstBad = bad;
  return result;
}

function endOf(good: number | undefined, bad: number | undefined, o: SearchOptions): SearchEnd {
  if (good !== undefined && bad !== undefined) {
    const narrow = bad - good <= o.precision * good || midpoint(good, bad, o.granularity) === undefined;
    return narrow ? 'found' : 'bracketed';
  }
  if (good !== undefined) return good >= o.max ? 'holds-at-max' : 'budget';
  if (bad !== undefined) return bad <= o.min ? 'breaks-at-min' : 'budget';
  return 'budget';
}
