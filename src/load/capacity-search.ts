/**
 * The search for a capacity: the highest load (arrival rate, or concurrent streams) whose step
 * still holds the SLO. Pure: `measure(load)` runs one step and says whether the SLO held, so the
 * search is tested on a fake measurement and driven by k6 in capacity.ts.
 *
 * 1. Step up: from `start`, multiply by `growth` until a step breaks the SLO or `max` is reached.
 * 2. Bisect between the last good and the first bad load until the bracket is narrower than
 *    `precision` × the good load (and at least `granularity` wide), or the budget is spent.
 * A first step that already breaks is followed by steps down (÷ growth) to `min`.
 *
 * Confirmation (on unless `confirm: false`): one step is one sample of a noisy machine, and near the
 * knee a single burst elsewhere can break a step that holds on a re-run. So a step that breaks the
 * SLO is re-run before its load counts as broken, and when the bracket is narrow the last good load
 * is re-run too. A load's verdict is the majority of its runs, settled by two that agree or by a
 * third; a tie (one held, one broke, no budget for a third) counts as broken. A good load that a
 * re-run breaks moves the bracket down and the bisection goes on below it.
 *
 * Saturation check (arrival rates; `achieved` given): a broken step that ended fewer takes per
 * second than the last good load was offered says that good load held by chance (a server that ends
 * at most A takes/s when overloaded is not expected to hold more than A for long). Then the good load
 * is re-run at once, before the search spends steps above it; without the check one lucky step could
 * send the whole bisection above the knee until the budget ran out (parts mode, 2026-11-26: 64 takes/s
 * held once at p95 176 ms, the server then ended 55/s when offered 128, and ten steps went to 68–128).
 */

export interface StepOutcome<F = unknown> {
  load: number;
  holds: boolean;
  /** The step's figures, kept for the report and the curve. */
  figures: F;
  /** How long the step took, setup included. */
  elapsedMs: number;
  /** Takes the server ended per second (arrival rates only): the saturation check reads it. */
  achieved?: number;
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
  /** Re-run a breaking step, and the last good one, before trusting them (default true). */
  confirm?: boolean;
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

/** `confirm`: a re-run of a load already tried. */
export type SearchPhase = 'up' | 'down' | 'bisect' | 'confirm';

export interface SearchResult<F = unknown> {
  end: SearchEnd;
  /** The highest load that held the SLO (undefined when none did). */
  capacity?: number;
  /** The lowest load that broke it (undefined when none did). */
  firstBad?: number;
  steps: Array<StepOutcome<F> & { phase: SearchPhase }>;
  /** Whether the verdicts at `capacity` and `firstBad` were settled by re-runs (see above). */
  confirmed: { capacity: boolean; firstBad: boolean };
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
  const confirm = o.confirm ?? true;
  const steps: SearchResult<F>['steps'] = [];
  /** Every run's verdict, per load, in order. */
  const runs = new Map<number, boolean[]>();
  /** The most takes per second any run at a load ended (when measured). */
  const achieved = new Map<number, number>();
  /** Whether one more step (as long as the longest so far) still fits the budget. */
  const fits = (): boolean => {
    const longest = Math.max(0, ...steps.map((s) => s.elapsedMs));
    return steps.length < o.maxSteps && now() - startedAt + longest <= o.budgetMs;
  };
  const run = async (load: number, phase: SearchPhase): Promise<void> => {
    const outcome = await measure(load);
    steps.push({ ...outcome, phase });
    runs.set(load, [...(runs.get(load) ?? []), outcome.holds]);
    if (outcome.achieved !== undefined)
      achieved.set(load, Math.max(achieved.get(load) ?? 0, outcome.achieved));
  };
  /** The saturation check (header): an overloaded step ended fewer takes/s than `good` offers. */
  const suspect = (good: number, bad: number): boolean =>
    confirm && !isSettled(runs.get(good) ?? []) && (achieved.get(bad) ?? Number.POSITIVE_INFINITY) < good;
  const verdict = (load: number) => holdsByMajority(runs.get(load) ?? []);
  /** Re-runs a load until its verdict is settled or the budget ends; returns the verdict. */
  const settle = async (load: number): Promise<boolean> => {
    while (confirm && !isSettled(runs.get(load) ?? []) && fits()) await run(load, 'confirm');
    return verdict(load);
  };
  /** One run; a break is confirmed before it counts. */
  const probe = async (load: number, phase: SearchPhase): Promise<boolean> => {
    await run(load, phase);
    return verdict(load) ? true : await settle(load);
  };
  const round = (v: number) => Number((Math.round(v / o.granularity) * o.granularity).toPrecision(12));

  // 1. Step up from the start while the steps hold.
  let load = Math.min(Math.max(o.start, o.min), o.max);
  let holds = await probe(load, 'up');
  while (holds && load < o.max && fits()) {
    load = Math.min(o.max, Math.max(round(load * o.growth), load + o.granularity));
    holds = await probe(load, 'up');
  }
  // 2. Step down while nothing below the first bad load held; bisect between the last good and
  // the first bad load; once narrow, confirm the last good.
  for (;;) {
    const { good, bad } = bracketOf(runs);
    if (bad === undefined) {
      // Held up to max: that claim is confirmed like a last good load.
      if (good === undefined || good < o.max || !confirm || isSettled(runs.get(good)!) || !fits()) break;
      await run(good, 'confirm');
      await settle(good);
      continue;
    }
    if (good === undefined) {
      if (bad <= o.min || !fits()) break;
      await probe(Math.max(o.min, round(bad / o.growth)), 'down');
      continue;
    }
    if (suspect(good, bad) && fits()) {
      await run(good, 'confirm');
      await settle(good);
      continue;
    }
    if (!isNarrow(good, bad, o)) {
      const mid = midpoint(good, bad, o.granularity);
      if (mid === undefined || !fits()) break;
      await probe(mid, 'bisect');
      continue;
    }
    if (!confirm || isSettled(runs.get(good) ?? []) || !fits()) break;
    await run(good, 'confirm');
    await settle(good);
    // A good load that the re-runs broke is now the first bad: the loop goes on below it.
  }
  const { good, bad } = bracketOf(runs);
  const result: SearchResult<F> = {
    end: endOf(good, bad, o),
    steps,
    confirmed: {
      capacity: good !== undefined && isSettled(runs.get(good)!),
      firstBad: bad !== undefined && isSettled(runs.get(bad)!),
    },
    elapsedMs: now() - startedAt,
  };
  if (good !== undefined) result.capacity = good;
  if (bad !== undefined) result.firstBad = bad;
  return result;
}

/** The majority of a load's runs held; a tie counts as broken (the SLO is a promise). */
export function holdsByMajority(verdicts: boolean[]): boolean {
  const held = verdicts.filter(Boolean).length;
  return verdicts.length > 0 && held > verdicts.length - held;
}

/** Two runs that agree, or three (a majority either way). */
export function isSettled(verdicts: boolean[]): boolean {
  return verdicts.length >= 3 || (verdicts.length === 2 && verdicts[0] === verdicts[1]);
}

/** The lowest load whose verdict is broken, and the highest good load below it. */
function bracketOf(runs: Map<number, boolean[]>): { good?: number; bad?: number } {
  const loads = [...runs.keys()];
  const bads = loads.filter((l) => !holdsByMajority(runs.get(l)!));
  const bad = bads.length > 0 ? Math.min(...bads) : undefined;
  const goods = loads.filter((l) => holdsByMajority(runs.get(l)!) && (bad === undefined || l < bad));
  const good = goods.length > 0 ? Math.max(...goods) : undefined;
  return { ...(good === undefined ? {} : { good }), ...(bad === undefined ? {} : { bad }) };
}

function isNarrow(good: number, bad: number, o: SearchOptions): boolean {
  return bad - good <= o.precision * good || midpoint(good, bad, o.granularity) === undefined;
}

function endOf(good: number | undefined, bad: number | undefined, o: SearchOptions): SearchEnd {
  if (good !== undefined && bad !== undefined) return isNarrow(good, bad, o) ? 'found' : 'bracketed';
  if (good !== undefined) return good >= o.max ? 'holds-at-max' : 'budget';
  if (bad !== undefined) return bad <= o.min ? 'breaks-at-min' : 'budget';
  return 'budget';
}
