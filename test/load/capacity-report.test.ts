/**
 * The capacity summary.md: every run at the two bracketing loads (a load is re-run to confirm its
 * verdict), whether re-runs settled it, the generator's CPU share per step, and its warning.
 */
import { describe, expect, it } from 'vitest';
import {
  type CapacityReport,
  type CapacityStep,
  renderCapacityHtml,
  renderCapacityMarkdown,
} from '../../src/load/capacity-report.ts';
import { searchOptions } from '../support/search-options.ts';

function step(index: number, load: number, holds: boolean, phase: CapacityStep['phase']): CapacityStep {
  return {
    index,
    phase,
    load,
    holds,
    broken: holds ? [] : [`first_playable_p95 = ${400 + index} ms ≥ 300 ms`],
    durationS: 8,
    figure: 'first_playable',
    p50Ms: holds ? 20 : 200,
    p95Ms: holds ? 40 + index : 400 + index,
    p99Ms: holds ? 60 : 600,
    samples: load * 8,
    errorRate: 0,
    achievedRate: load,
    generatorShare: 0.1 + index / 100,
    generatorCpuS: 1,
    machineBusy: 0.9,
    elapsedMs: 9000,
    dir: `/tmp/step-${index}`,
  };
}

function report(): CapacityReport {
  const steps = [
    step(1, 16, true, 'up'),
    step(2, 32, false, 'up'),
    step(3, 32, false, 'confirm'),
    step(4, 24, true, 'bisect'),
    step(5, 28, false, 'bisect'),
    step(6, 28, true, 'confirm'),
    step(7, 28, false, 'confirm'),
    step(8, 24, true, 'confirm'),
  ];
  return {
    mode: 'chunks',
    over: 'rate',
    unit: 'takes/s',
    slo: 'first_playable_p95<300ms,errors<1%',
    end: 'found',
    capacity: 24,
    firstBad: 28,
    bracket: { good: steps[3], bad: steps[4] },
    bracketRuns: { good: [steps[3]!, steps[7]!], bad: [steps[4]!, steps[5]!, steps[6]!] },
    confirmed: { capacity: true, firstBad: true },
    steps,
    search: {
      ...searchOptions({ start: 16, maxSteps: 20, confirm: true }),
      minSamples: 100,
      stepS: 8,
    },
    elapsedMs: 90_000,
    budgetMs: 180_000,
    generatorWarnings: [
      'the load generator (k6) took 18 % of the machine (2 cores) in step 8 (24 takes/s), above 15 %',
    ],
    target: 'test',
  };
}

describe('capacity summary', () => {
  it('lists every run at the bracketing loads and whether re-runs settled them', () => {
    const md = renderCapacityMarkdown(report(), 0);
    expect(md).toContain('- last good: 24 takes/s, 2 runs (held, held: settled):');
    expect(md).toContain('- first bad: 28 takes/s, 3 runs (broke, held, broke: settled):');
    expect(md).toContain('  - step 6: first_playable p50 20 / p95 46 / p99 60 ms over 224 takes in 8 s');
    expect(md).toContain('re-run (phase confirm)');
  });

  it('states the generator share per step and warns above the limit', () => {
    const md = renderCapacityMarkdown(report(), 0);
    const rows = md.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows).toHaveLength(8);
    expect(rows[7]).toContain('| 18.0 % |');
    expect(md).toContain('**Warning:** the load generator (k6) took 18 %');
    const html = renderCapacityHtml(report(), '<svg></svg>');
    expect(html).toContain('<td>18.0 %</td>');
    expect(html).toContain('<strong>Warning:</strong> the load generator (k6) took 18 %');
  });

  it('says when the last good load was not re-run', () => {
    const r = report();
    r.bracketRuns = { good: [r.steps[3]!], bad: [r.steps[4]!] };
    r.confirmed = { capacity: false, firstBad: false };
    const md = renderCapacityMarkdown(r, 0);
    expect(md).toContain('- last good: 24 takes/s, 1 run (held: not re-run):');
    expect(md).toContain('- first bad: 28 takes/s, 1 run (broke: not re-run):');
  });
});
