/** The generator's CPU share: /proc parsing, the share over an interval, and the warning. */
import { describe, expect, it } from 'vitest';
import {
  type CpuSample,
  clockTicksPerSecond,
  cpuShareBetween,
  generatorReport,
  parseMachineTicks,
  parseProcessTicks,
} from '../../src/load/cpu-share.ts';

describe('/proc parsing', () => {
  it('reads utime + stime even when the process name holds spaces and parentheses', () => {
    const stat = '4242 (k6 (run) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 37 0 0 20 0 12 0 100 0 0';
    expect(parseProcessTicks(stat)).toBe(187);
  });
  it('sums the aggregate cpu line without guest time, idle = idle + iowait', () => {
    const stat = 'cpu  100 5 50 800 20 3 2 0 7 0\ncpu0 50 2 25 400 10 1 1 0 0 0\nintr 1';
    expect(parseMachineTicks(stat)).toEqual({ total: 980, idle: 820 });
  });
});

const samples: CpuSample[] = [
  // 2 cores, 100 ticks/s each: 200 machine ticks per second.
  { atMs: 0, processTicks: 0, machineTicks: 0, machineIdleTicks: 0 },
  { atMs: 1000, processTicks: 20, machineTicks: 200, machineIdleTicks: 100 },
  { atMs: 2000, processTicks: 120, machineTicks: 400, machineIdleTicks: 120 },
];

describe('cpuShareBetween', () => {
  it('is the generator ticks over the machine ticks between the nearest samples', () => {
    const first = cpuShareBetween(samples, 0, 1000)!;
    expect(first.share).toBeCloseTo(0.1);
    expect(first.machineBusy).toBeCloseTo(0.5);
    expect(first.cpuSeconds).toBeCloseTo(20 / clockTicksPerSecond());
    expect(cpuShareBetween(samples, 1000, 2000)!.share).toBeCloseTo(0.5);
  });
  it('has no share with fewer than two samples in the interval', () => {
    expect(cpuShareBetween(samples, 5000, 9000)).toBeUndefined();
  });
});

describe('generatorReport', () => {
  it('warns for each interval above the stated share, and only those', () => {
    const r = generatorReport(
      samples,
      [
        { label: 'step 8/s', fromMs: 0, toMs: 1000 },
        { label: 'step 16/s', fromMs: 1000, toMs: 2000 },
      ],
      { warnAbove: 0.25 },
    );
    expect(r.intervals.map((i) => i.share)).toEqual([0.1, 0.5]);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/took 50 % of the machine .* in step 16\/s, above 25 %/);
    expect(r.total?.share).toBeCloseTo(0.3);
  });
  it('says why nothing was measured without /proc', () => {
    expect(generatorReport([], [], { available: false }).unavailable).toMatch(/no \/proc/);
  });
});
