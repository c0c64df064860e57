/**
 * perf compare's verdicts on synthetic runs with known answers: identical sides are "~", a clear
 * shift with enough runs is worse (or better), too few runs warn and can never be significant.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
import { compareRuns, comparisonOutcome, median } from '../../src/perf/compare.ts';
import { perfCompareExitCode } from '../../src/perf/perf-compare.ts';
import { verdictLine } from '../../src/perf/report-markdown.ts';
import { DEFAULT_TOLERANCE, type Tolerance } from '../../src/perf/tracked.ts';
import { counter, errorRate, run, trend, ttfcRun } from '../load/helpers.ts';

const tolerance: Tolerance = DEFAULT_TOLERANCE;

function figure(c: ReturnType<typeof compareRuns>, metric: string, stat: string) {
  const f = c.figures.find((x) => x.metric === metric && x.stat === stat);
  if (!f) throw new Error(`no figure ${metric} ${stat}`);
  return f;
}

/** Five runs around a chunks-mode TTFC median and p95. */
const five = (med: number, p95: number) => [0, 0.4, -0.3, 0.2, -0.1].map((d) => ttfcRun(med + d, p95 + d));

describe('perf compare: medians', () => {
  it('takes the median of odd and even run counts', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('perf compare: verdicts', () => {
  it('identical samples on both sides: "~", p = 1, no warning with 5 runs a side', () => {
    const c = compareRuns(five(10, 20), five(10, 20), tolerance);
    const p95 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)');
    expect(p95.verdict).toBe('~');
    expect(p95.p).toBe(1);
    expect(p95.baselineCI).toEqual(p95.currentCI);
    expect(c.regressions).toHaveLength(0);
    expect(c.warnings).toEqual([]);
  });

  it('a clear shift with 5 runs a side is worse (exact p = 2/252), and the other way better', () => {
    const c = compareRuns(five(10, 20), five(15, 30), tolerance);
    const p95 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)');
    expect(p95.verdict).toBe('worse');
    expect(p95.p).toBeCloseTo(2 / 252, 10);
    expect(p95.baseline).toBe(20);
    expect(p95.current).toBe(30);
    expect(p95.currentCI!.low).toBeGreaterThan(p95.baselineCI!.high);
    expect(c.regressions.map((f) => f.stat).sort()).toEqual(['med', 'p(95)']);
    const back = compareRuns(five(15, 30), five(10, 20), tolerance);
    expect(back.improvements.map((f) => f.stat).sort()).toEqual(['med', 'p(95)']);
  });

  it('too few runs: a warning; a shift of 2× or more is "likely worse", never "~"', () => {
    const c = compareRuns([ttfcRun(10, 20)], [ttfcRun(10, 90)], tolerance);
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)').verdict).toBe('likely worse');
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'med').verdict).toBe('~');
    expect(comparisonOutcome(c)).toBe('likely regression');
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toMatch(
      /ttfc-websocket: 1 baseline and 1 current run\(s\).*at least 4 runs per side/,
    );
  });

  it('one run per side (issue 51): tenfold slower is a likely regression, exit 1, and the headline says so', () => {
    const c = compareRuns([ttfcRun(100, 200)], [ttfcRun(100, 2086)], tolerance);
    expect(comparisonOutcome(c)).toBe('likely regression');
    expect(perfCompareExitCode({ comparison: c, capacities: [] })).toBe(EXIT.failed);
    const headline = verdictLine(c);
    expect(headline).toMatch(
      /^LIKELY REGRESSION: 1 figure\(s\) 2× or more worse, e\.g\. .*p95 \+1886\.00 ms \(\+943\.0 %\)/,
    );
    expect(headline).toContain('4 runs per side would decide');
    expect(headline).not.toMatch(/no regression/i);
  });

  it('one run per side, a change beyond the tolerance but under 2×: INCONCLUSIVE, its own exit code', () => {
    const c = compareRuns([ttfcRun(100, 200)], [ttfcRun(100, 300)], tolerance);
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)').verdict).toBe('inconclusive');
    expect(comparisonOutcome(c)).toBe('inconclusive');
    expect(perfCompareExitCode({ comparison: c, capacities: [] })).toBe(EXIT.inconclusive);
    expect(verdictLine(c)).toMatch(/^INCONCLUSIVE: 1 figure\(s\) changed beyond the tolerance/);
    // Better by half or more is "likely better", and alone never fails.
    const faster = compareRuns([ttfcRun(100, 300)], [ttfcRun(100, 100)], tolerance);
    expect(figure(faster, 'speak_ws_ttfc{mode:chunks}', 'p(95)').verdict).toBe('likely better');
    expect(perfCompareExitCode({ comparison: faster, capacities: [] })).toBe(EXIT.ok);
  });

  it('one run per side within the tolerance: "~" and no regression (exit 0)', () => {
    const c = compareRuns([ttfcRun(100, 200)], [ttfcRun(101, 205)], tolerance);
    expect(comparisonOutcome(c)).toBe('no regression');
    expect(perfCompareExitCode({ comparison: c, capacities: [] })).toBe(EXIT.ok);
  });

  it('enough runs and not significant stays "~" (the test decided, not the run count)', () => {
    const noisy = (shift: number) =>
      [0, 9, -8, 7, -6].map((d, i) => ttfcRun(10 + d + (i % 2 ? shift : 0), 20 + d + (i % 2 ? shift : 0)));
    const c = compareRuns(noisy(0), noisy(3), tolerance);
    expect(c.inconclusive).toEqual([]);
    expect(c.likelyRegressions).toEqual([]);
  });

  it('a significant change under the practical floor is "~" (1 ms on a 3 ms median)', () => {
    const c = compareRuns(five(3, 4), five(4, 5), tolerance);
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'med').p).toBeLessThan(0.05);
    expect(c.regressions).toHaveLength(0);
  });

  it('treats lower throughput and lower real-time factor as worse, more underruns as worse', () => {
    const side = (audio: number, rtf: number, underrun: number) =>
      [0, 1, 2, 3, 4].map((i) =>
        run(
          'ttfc-websocket',
          counter('speak_ws_takes', audio + i),
          trend('speak_ws_rtf{mode:chunks}', { med: rtf + i / 10 }),
          errorRate('speak_ws_underrun{mode:chunks}', underrun + i / 1000),
        ),
      );
    const c = compareRuns(side(100, 20, 0), side(60, 5, 0.2), tolerance);
    expect(c.regressions.map((f) => f.metric).sort()).toEqual([
      'speak_ws_rtf{mode:chunks}',
      'speak_ws_takes',
      'speak_ws_underrun{mode:chunks}',
    ]);
  });

  it('judges error rates by absolute points', () => {
    const side = (rate: number) =>
      [0, 1, 2, 3, 4].map((i) => run('throughput-rest', errorRate('speak_rest_errors', rate + i / 10_000)));
    expect(compareRuns(side(0), side(0.003), tolerance).regressions).toHaveLength(0);
    expect(compareRuns(side(0), side(0.02), tolerance).regressions.map((f) => f.metric)).toEqual([
      'speak_rest_errors',
    ]);
  });

  it('lists figures that only one side has without failing on them', () => {
    const c = compareRuns(
      [ttfcRun(10, 20)],
      [run('ttfc-websocket', trend('speak_ws_ttfc{mode:parts}', { med: 40, 'p(95)': 60 }))],
      tolerance,
    );
    expect(c.regressions).toHaveLength(0);
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'med').verdict).toBe('missing in current');
    expect(figure(c, 'speak_ws_ttfc{mode:parts}', 'med').verdict).toBe('new in current');
  });

  it('ignores sub-metrics without samples and metrics it does not track', () => {
    const empty = run(
      'ttfc-websocket',
      {
        name: 'speak_ws_ttfc{mode:parts}',
        type: 'trend',
        time: true,
        values: { count: 0, med: 0, 'p(95)': 0 },
      },
      trend('http_req_duration', { med: 1, 'p(95)': 2 }),
    );
    expect(compareRuns([empty], [empty], tolerance).figures).toHaveLength(0);
  });

  it('keeps p99 for the charts without judging it; judges chunk gaps at their max too', () => {
    const c = compareRuns([ttfcRun(10, 20, 25)], [ttfcRun(10, 20, 90)], tolerance, { chartStats: ['p(99)'] });
    const p99 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(99)');
    expect(p99.judged).toBe(false);
    expect(p99.verdict).toBe('charted only');
    const gaps = compareRuns(
      [run('ttfc-websocket', trend('speak_ws_chunk_gap{mode:chunks}', { med: 1, 'p(95)': 4, max: 30 }))],
      [run('ttfc-websocket', trend('speak_ws_chunk_gap{mode:chunks}', { med: 1, 'p(95)': 4, max: 30 }))],
      tolerance,
    );
    expect(gaps.figures.map((f) => f.stat).sort()).toEqual(['max', 'med', 'p(95)']);
  });
});
