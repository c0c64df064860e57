import { describe, expect, it } from 'vitest';
import { compareRuns, median, spread } from '../../src/perf/compare.ts';
import { DEFAULT_TOLERANCE, type Tolerance } from '../../src/perf/tracked.ts';
import { counter, errorRate, run, trend, ttfcRun } from './helpers.ts';

const tolerance: Tolerance = { relative: 0.1, noiseFactor: 3, minMs: 2, minErrorRate: 0.005 };

function figure(c: ReturnType<typeof compareRuns>, metric: string, stat: string) {
  const f = c.figures.find((x) => x.metric === metric && x.stat === stat);
  if (!f) throw new Error(`no figure ${metric} ${stat}`);
  return f;
}

describe('perf compare: medians and spread', () => {
  it('takes the median of odd and even run counts', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('spread is 1.4826 x MAD and 0 for a single run', () => {
    expect(spread([10])).toBe(0);
    expect(spread([10, 12, 14])).toBeCloseTo(1.4826 * 2);
  });
});

describe('perf compare: verdicts', () => {
  it('detects a latency regression beyond the relative tolerance', () => {
    const c = compareRuns([ttfcRun(10, 20)], [ttfcRun(10, 30)], tolerance);
    const p95 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)');
    expect(p95.verdict).toBe('regression');
    expect(p95.delta).toBe(10);
    expect(p95.allowed).toBe(2); // max(2 ms floor, 10 % of 20 ms, no spread)
    expect(c.regressions).toHaveLength(1);
    expect(figure(c, 'speak_ws_ttfc{mode:chunks}', 'med').verdict).toBe('within tolerance');
  });

  it('tolerates a shift that lies within the noise of repeated runs', () => {
    // Baseline p95 scatters 40..60 ms across five runs; the current median is 8 ms worse, which is
    // more than 10 % of 50 ms but well inside 3 x the spread.
    const baseline = [40, 45, 50, 55, 60].map((p95) => ttfcRun(10, p95));
    const current = [48, 52, 58, 62, 66].map((p95) => ttfcRun(10, p95));
    const c = compareRuns(baseline, current, tolerance);
    const p95 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(95)');
    expect(p95.baseline).toBe(50);
    expect(p95.current).toBe(58);
    expect(p95.allowed!).toBeGreaterThan(8);
    expect(p95.verdict).toBe('within tolerance');
    expect(c.regressions).toHaveLength(0);
  });

  it('still flags the same shift when the runs are quiet', () => {
    const baseline = [50, 50, 51, 50, 49].map((p95) => ttfcRun(10, p95));
    const current = [58, 58, 59, 58, 57].map((p95) => ttfcRun(10, p95));
    expect(compareRuns(baseline, current, tolerance).regressions.map((f) => f.stat)).toEqual(['p(95)']);
  });

  it('reports an improvement and does not fail on it', () => {
    const c = compareRuns([ttfcRun(12, 40)], [ttfcRun(6, 20)], tolerance);
    expect(c.regressions).toHaveLength(0);
    expect(c.improvements.map((f) => f.stat).sort()).toEqual(['med', 'p(95)']);
  });

  it('never counts latency changes under the millisecond floor', () => {
    const c = compareRuns([ttfcRun(3, 4)], [ttfcRun(4, 5)], tolerance); // +33 % but only 1 ms
    expect(c.regressions).toHaveLength(0);
  });

  it('treats lower throughput as the regression and higher as the improvement', () => {
    const base = run(
      'throughput-rest',
      counter('speak_audio_seconds', 160),
      counter('speak_takes_completed', 10),
    );
    const worse = run(
      'throughput-rest',
      counter('speak_audio_seconds', 120),
      counter('speak_takes_completed', 10),
    );
    const better = run(
      'throughput-rest',
      counter('speak_audio_seconds', 200),
      counter('speak_takes_completed', 10),
    );
    expect(compareRuns([base], [worse], tolerance).regressions.map((f) => f.metric)).toEqual([
      'speak_audio_seconds',
    ]);
    const up = compareRuns([base], [better], tolerance);
    expect(up.regressions).toHaveLength(0);
    expect(up.improvements.map((f) => f.metric)).toEqual(['speak_audio_seconds']);
  });

  it('judges error rates by absolute points', () => {
    const base = run('throughput-rest', errorRate('speak_rest_errors', 0));
    expect(
      compareRuns([base], [run('throughput-rest', errorRate('speak_rest_errors', 0.003))], tolerance)
        .regressions,
    ).toHaveLength(0);
    const c = compareRuns([base], [run('throughput-rest', errorRate('speak_rest_errors', 0.02))], tolerance);
    expect(c.regressions.map((f) => f.metric)).toEqual(['speak_rest_errors']);
  });

  it('honours a configured tolerance', () => {
    const loose = compareRuns([ttfcRun(10, 20)], [ttfcRun(10, 30)], { ...tolerance, relative: 0.6 });
    expect(loose.regressions).toHaveLength(0);
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
    const c = compareRuns([empty], [empty], tolerance);
    expect(c.figures).toHaveLength(0);
  });

  it('keeps p99 for the charts without judging it', () => {
    const c = compareRuns([ttfcRun(10, 20, 25)], [ttfcRun(10, 20, 90)], DEFAULT_TOLERANCE, {
      chartStats: ['p(99)'],
    });
    const p99 = figure(c, 'speak_ws_ttfc{mode:chunks}', 'p(99)');
    expect(p99.judged).toBe(false);
    expect(p99.verdict).toBe('charted only');
    expect(c.regressions).toHaveLength(0);
  });
});
