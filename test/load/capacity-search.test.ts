/**
 * The capacity search on a fake measurement with a known knee: the SLO holds up to a true capacity
 * and breaks above it. The search must bracket the knee within its precision, step down when the
 * start already breaks, say so when even the maximum holds, and stop within its budget.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  holdsByMajority,
  isSettled,
  midpoint,
  type SearchOptions,
  searchCapacity,
} from '../../src/load/capacity-search.ts';
import { searchOptions } from '../support/search-options.ts';

const base: SearchOptions = searchOptions();

/**
 * A measurement whose SLO holds at or below `knee`; each step "takes" stepMs of a fake clock.
 * `flipFirstRun(load)` makes the first run at that load say the opposite (a burst of noise).
 * `throughput`: the takes per second the server ends when overloaded; each step reports
 * min(load, throughput) as achieved (none when undefined).
 */
function fake(
  knee: number,
  stepMs = 10_000,
  flipFirstRun: (load: number) => boolean = () => false,
  throughput?: number,
) {
  let clock = 0;
  const loads: number[] = [];
  return {
    loads,
    now: () => clock,
    measure: async (load: number) => {
      clock += stepMs;
      const first = !loads.includes(load);
      loads.push(load);
      const truth = load <= knee;
      return {
        load,
        holds: first && flipFirstRun(load) ? !truth : truth,
        figures: { load },
        elapsedMs: stepMs,
        ...(throughput === undefined ? {} : { achieved: Math.min(load, throughput) }),
      };
    },
  };
}

describe('searchCapacity', () => {
  it('steps up x2 until the SLO breaks, then bisects to within 10 % of the knee', async () => {
    const f = fake(44);
    const r = await searchCapacity(f.measure, { ...base, now: f.now });
    // 64 breaks and is re-run before it counts.
    expect(f.loads.slice(0, 6)).toEqual([4, 8, 16, 32, 64, 64]);
    expect(r.steps[5]!.phase).toBe('confirm');
    expect(r.end).toBe('found');
    expect(r.confirmed).toEqual({ capacity: true, firstBad: true });
    expect(r.capacity).toBeLessThanOrEqual(44);
    expect(r.firstBad).toBeGreaterThan(44);
    expect(r.firstBad! - r.capacity!).toBeLessThanOrEqual(0.1 * r.capacity!);
    expect(r.steps.filter((s) => s.phase === 'bisect').length).toBeGreaterThan(0);
  });

  it('brackets any knee within the precision (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 1, max: 400, noNaN: true }), async (knee) => {
        const f = fake(knee);
        const r = await searchCapacity(f.measure, { ...base, now: f.now, budgetMs: 1e9 });
        expect(r.end).toBe('found');
        expect(r.capacity!).toBeLessThanOrEqual(knee);
        expect(r.firstBad!).toBeGreaterThan(knee);
        // Narrow: within the precision, or no granular load left between them.
        const narrow =
          r.firstBad! - r.capacity! <= 0.1 * r.capacity! ||
          midpoint(r.capacity!, r.firstBad!, 0.5) === undefined;
        expect(narrow).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('steps down when the first step already breaks', async () => {
    const f = fake(1.5);
    const r = await searchCapacity(f.measure, { ...base, now: f.now });
    expect(f.loads.slice(0, 5)).toEqual([4, 4, 2, 2, 1]);
    expect(r.steps[2]!.phase).toBe('down');
    expect(r.capacity).toBe(1.5);
    expect(r.firstBad).toBe(2);
  });

  it('says the capacity is at least the maximum when every step holds', async () => {
    const f = fake(10_000);
    const r = await searchCapacity(f.measure, { ...base, max: 64, now: f.now });
    expect(r.end).toBe('holds-at-max');
    expect(r.capacity).toBe(64);
    expect(r.firstBad).toBeUndefined();
  });

  it('says when even the minimum breaks', async () => {
    const f = fake(0);
    const r = await searchCapacity(f.measure, { ...base, now: f.now });
    expect(r.end).toBe('breaks-at-min');
    expect(r.capacity).toBeUndefined();
  });

  it('never starts a step that would overrun the budget', async () => {
    const f = fake(300, 30_000);
    const r = await searchCapacity(f.measure, { ...base, budgetMs: 100_000, now: f.now });
    expect(r.elapsedMs).toBeLessThanOrEqual(100_000);
    expect(r.steps.length).toBe(3);
    expect(r.end).toBe('budget');
  });

  it('reports a bracket the budget left wide as bracketed, not found', async () => {
    const f = fake(44, 10_000);
    const r = await searchCapacity(f.measure, { ...base, budgetMs: 60_000, now: f.now });
    // 4, 8, 16, 32, 64 and its confirmation fill the 60 s: 32 – 64 is wider than 10 %.
    expect(r.steps).toHaveLength(6);
    expect(r.capacity).toBe(32);
    expect(r.firstBad).toBe(64);
    expect(r.end).toBe('bracketed');
    expect(r.confirmed).toEqual({ capacity: false, firstBad: true });
  });

  it('re-runs a step that broke by chance below the knee, and goes on up', async () => {
    const f = fake(44, 10_000, (load) => load === 16);
    const r = await searchCapacity(f.measure, { ...base, now: f.now });
    // 16 broke once, held twice: the majority holds.
    expect(f.loads.slice(0, 6)).toEqual([4, 8, 16, 16, 16, 32]);
    expect(r.capacity).toBeLessThanOrEqual(44);
    expect(r.firstBad).toBeGreaterThan(44);
    expect(r.end).toBe('found');
  });

  it('re-runs the last good load, and bisects below it when the re-runs break', async () => {
    // 48 holds by chance on its first run; its confirmation breaks twice.
    const f = fake(36, 10_000, (load) => load === 48);
    const r = await searchCapacity(f.measure, { ...base, now: f.now, budgetMs: 1e9, maxSteps: 200 });
    const at48 = r.steps.filter((s) => s.load === 48).map((s) => s.holds);
    expect(at48).toEqual([true, false, false]);
    expect(r.capacity).toBeLessThanOrEqual(36);
    expect(r.firstBad).toBeGreaterThan(36);
    expect(r.firstBad).toBeLessThanOrEqual(48);
    expect(r.confirmed.capacity).toBe(true);
  });

  it('re-runs a good load at once when an overloaded step ended fewer takes/s than it offers', async () => {
    // The knee is 56 and the server ends 55/s overloaded; 64 holds by chance on its first run. 128
    // then breaks having ended 55/s < 64: 64 is re-run before anything above it is tried.
    const f = fake(56, 10_000, (load) => load === 64, 55);
    const r = await searchCapacity(f.measure, { ...base, now: f.now, budgetMs: 1e9, maxSteps: 200 });
    const trace = JSON.stringify(r.steps.map((s) => [s.load, s.holds, s.phase]));
    expect(f.loads.slice(0, 9), trace).toEqual([4, 8, 16, 32, 64, 128, 128, 64, 64]);
    expect(
      f.loads.filter((l) => l > 64),
      trace,
    ).toEqual([128, 128]);
    expect(r.end).toBe('found');
    expect(r.capacity!, trace).toBeLessThanOrEqual(56);
    expect(r.firstBad!, trace).toBeGreaterThan(56);
    // Without the figure the search cannot know: it bisects above 64 first, as before.
    const blind = fake(56, 10_000, (load) => load === 64);
    await searchCapacity(blind.measure, { ...base, now: blind.now, budgetMs: 1e9, maxSteps: 200 });
    expect(blind.loads).toContain(96);
  });

  it("brackets the knee when any load's first run lies (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 1, max: 400, noNaN: true }),
        fc.func(fc.boolean()),
        // The overloaded server's throughput: none measured, or anywhere from half to twice the knee.
        fc.option(fc.double({ min: 0.5, max: 2, noNaN: true }), { nil: undefined }),
        async (knee, lies, throughputShare) => {
          const throughput = throughputShare === undefined ? undefined : throughputShare * knee;
          const f = fake(knee, 10_000, (load) => lies(load), throughput);
          const r = await searchCapacity(f.measure, { ...base, now: f.now, budgetMs: 1e9, maxSteps: 1e4 });
          expect(r.end, JSON.stringify(r.steps.map((s) => [s.load, s.holds, s.phase]))).toBe('found');
          const trace = JSON.stringify(r.steps.map((s) => [s.load, s.holds, s.phase]));
          expect(r.capacity!, trace).toBeLessThanOrEqual(knee);
          expect(r.firstBad!, trace).toBeGreaterThan(knee);
          expect(r.confirmed).toEqual({ capacity: true, firstBad: true });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('trusts every step once with confirm: false', async () => {
    const f = fake(44);
    const r = await searchCapacity(f.measure, { ...base, now: f.now, confirm: false });
    expect(r.steps.some((s) => s.phase === 'confirm')).toBe(false);
    expect(f.loads.slice(0, 5)).toEqual([4, 8, 16, 32, 64]);
    expect(r.end).toBe('found');
  });
});

describe('verdicts of repeated runs', () => {
  it('takes the majority; a tie breaks', () => {
    expect(holdsByMajority([true])).toBe(true);
    expect(holdsByMajority([false, true])).toBe(false);
    expect(holdsByMajority([false, true, true])).toBe(true);
    expect(holdsByMajority([])).toBe(false);
  });
  it('is settled by two runs that agree or by three', () => {
    expect(isSettled([true])).toBe(false);
    expect(isSettled([true, true])).toBe(true);
    expect(isSettled([true, false])).toBe(false);
    expect(isSettled([true, false, false])).toBe(true);
  });
});

describe('midpoint', () => {
  it('rounds to the granularity and stays strictly inside', () => {
    expect(midpoint(32, 64, 0.5)).toBe(48);
    expect(midpoint(4, 5, 1)).toBeUndefined();
    expect(midpoint(4, 5, 0.5)).toBe(4.5);
  });
});
