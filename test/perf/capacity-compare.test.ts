/** perf compare on capacities: bracket against bracket, ~ when they overlap. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CapacityReport } from '../../src/load/capacity-report.ts';
import { parseSummary } from '../../src/load/summary.ts';
import { compareCapacities, judgeBrackets } from '../../src/perf/capacity-compare.ts';
import { perfCompare } from '../../src/perf/perf-compare.ts';
import { DEFAULT_TOLERANCE } from '../../src/perf/tracked.ts';
import { searchOptions } from '../support/search-options.ts';

function report(
  capacity: number | undefined,
  firstBad: number | undefined,
  slo = 'first_playable_p95<300ms',
): CapacityReport {
  const step = (load: number, holds: boolean) => ({
    index: 1,
    phase: 'up' as const,
    load,
    holds,
    broken: holds ? [] : ['first_playable_p95 = 400 ms ≥ 300 ms'],
    durationS: 8,
    figure: 'first_playable' as const,
    p50Ms: holds ? 20 : 200,
    p95Ms: holds ? 40 : 400,
    p99Ms: holds ? 60 : 600,
    samples: load * 8,
    errorRate: 0,
    achievedRate: load,
    elapsedMs: 9000,
    dir: '/tmp/x',
  });
  return {
    mode: 'chunks',
    over: 'rate',
    unit: 'takes/s',
    slo,
    end: capacity !== undefined && firstBad !== undefined ? 'found' : 'holds-at-max',
    ...(capacity === undefined ? {} : { capacity }),
    ...(firstBad === undefined ? {} : { firstBad }),
    bracket: {},
    steps: [
      ...(capacity === undefined ? [] : [step(capacity, true)]),
      ...(firstBad === undefined ? [] : [step(firstBad, false)]),
    ],
    search: {
      ...searchOptions(),
      minSamples: 60,
      stepS: 8,
    },
    elapsedMs: 90_000,
    budgetMs: 180_000,
    generatorWarnings: [],
    target: 'test',
  };
}

const summary = (r: CapacityReport) =>
  parseSummary({ metrics: {}, speakcheck: { scenario: 'capacity-chunks-rate', capacity: r } });

describe('capacity comparison', () => {
  it('is ~ when the brackets overlap, worse when the current lies wholly below, better above', () => {
    const b = { good: 40, bad: 48, runs: 1, slo: 's', unit: 'takes/s', reports: [] };
    expect(judgeBrackets(b, { ...b, good: 44, bad: 52 })).toBe('~');
    expect(judgeBrackets(b, { ...b, good: 20, bad: 24 })).toBe('worse');
    expect(judgeBrackets(b, { ...b, good: 48, bad: 56 })).toBe('better');
    // A baseline that held at its maximum: an unbounded bracket.
    expect(judgeBrackets({ ...b, good: 64, bad: Number.POSITIVE_INFINITY }, { ...b, good: 4, bad: 8 })).toBe(
      'worse',
    );
  });

  it('does not compare capacities found under different SLOs', () => {
    const [c] = compareCapacities(
      [summary(report(40, 48))],
      [summary(report(4, 8, 'first_playable_p95<100ms'))],
    );
    expect(c!.verdict).toBe('~');
    expect(c!.note).toMatch(/different SLOs/);
  });

  it('perf compare writes the capacity table and chart and counts a lower capacity as worse', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capacity-compare-'));
    const write = (name: string, r: CapacityReport) => {
      const path = join(dir, `${name}.json`);
      writeFileSync(
        path,
        JSON.stringify({ metrics: {}, speakcheck: { scenario: 'capacity-chunks-rate', capacity: r } }),
      );
      return path;
    };
    const out = join(dir, 'out');
    const { capacities, files } = perfCompare(
      write('base', report(40, 48)),
      write('cur', report(8, 12)),
      DEFAULT_TOLERANCE,
      out,
    );
    expect(capacities.map((c) => c.verdict)).toEqual(['worse']);
    const md = readFileSync(files.markdown, 'utf8');
    expect(md).toContain(
      '| capacity-chunks-rate | `first_playable_p95<300ms` | 40 takes/s [40 – 48] | 8 takes/s [8 – 12] | **worse** |',
    );
    const html = readFileSync(files.html, 'utf8');
    expect(html).toContain('<h2>Capacity</h2>');
    expect(html).toMatch(/<svg[^>]*aria-label="capacity-chunks-rate: p95 against offered load"/);
  });
});
