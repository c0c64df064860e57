/**
 * src/load/merge.ts: two execution segments' raw samples (k6 `--out json` lines, one file gzipped)
 * merged into one summary must give exactly the percentiles of all samples taken at once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  evaluateThreshold,
  k6Percentile,
  mergeSegments,
  parseMetricName,
  summaryValues,
} from '../../src/load/merge.ts';
import { dashboardEnv, segmentArgs } from '../../src/load/run-load.ts';
import { parseSummary } from '../../src/load/summary.ts';

const metricLine = (name: string, type: string, contains = 'default') =>
  JSON.stringify({ type: 'Metric', data: { name, type, contains }, metric: name });
const point = (name: string, value: number, tags: Record<string, string>) =>
  JSON.stringify({ type: 'Point', data: { time: '2026-11-24T00:00:00Z', value, tags }, metric: name });

interface Take {
  ttfc: number;
  mode: 'parts' | 'chunks';
  ok: boolean;
}

function segmentLines(takes: Take[]): string {
  const lines = [
    metricLine('speak_ws_ttfc', 'trend', 'time'),
    metricLine('speak_ws_takes', 'counter'),
    metricLine('speak_ws_errors', 'rate'),
  ];
  for (const t of takes) {
    lines.push(point('speak_ws_errors', t.ok ? 0 : 1, { mode: t.mode }));
    if (!t.ok) continue;
    lines.push(point('speak_ws_ttfc', t.ttfc, { mode: t.mode }));
    lines.push(point('speak_ws_takes', 1, { mode: t.mode }));
  }
  return `${lines.join('\n')}\n`;
}

function segmentSummary(durationMs: number): string {
  return JSON.stringify({
    metrics: {
      'speak_ws_ttfc{mode:chunks}': {
        type: 'trend',
        contains: 'time',
        values: {},
        thresholds: { 'p(95)<50': { ok: true } },
      },
      speak_ws_errors: { type: 'rate', values: {}, thresholds: { 'rate<0.01': { ok: true } } },
    },
    state: { testRunDurationMs: durationMs },
    speakcheck: { scenario: 'ttfc-websocket', vus: 2 },
  });
}

function writeRun(a: Take[], b: Take[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'merge-test-'));
  mkdirSync(join(dir, 'segment-1'));
  mkdirSync(join(dir, 'segment-2'));
  writeFileSync(join(dir, 'segment-1', 'samples.json'), segmentLines(a));
  writeFileSync(join(dir, 'segment-2', 'samples.json.gz'), gzipSync(segmentLines(b)));
  writeFileSync(join(dir, 'segment-1', 'summary.json'), segmentSummary(10_000));
  writeFileSync(join(dir, 'segment-2', 'summary.json'), segmentSummary(10_400));
  return dir;
}

const takeArb = fc.record({
  ttfc: fc.double({ min: 0.5, max: 500, noNaN: true }),
  mode: fc.constantFrom('parts' as const, 'chunks' as const),
  ok: fc.boolean(),
});

describe('merging execution segments', () => {
  it("k6's percentile formula: linear interpolation at p × (n − 1)", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(k6Percentile(values, 0.95)).toBeCloseTo(95.05, 10);
    expect(k6Percentile(values, 0.5)).toBeCloseTo(50.5, 10);
    expect(k6Percentile([7], 0.99)).toBe(7);
  });

  it('percentiles merged from two segments equal those of all samples at once (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(takeArb, { minLength: 1, maxLength: 60 }),
        fc.array(takeArb, { minLength: 1, maxLength: 60 }),
        async (a, b) => {
          const merged = await mergeSegments([writeRun(a, b)]);
          const summary = parseSummary(merged.data);
          const all = [...a, ...b];
          for (const mode of ['chunks', 'parts'] as const) {
            const expected = summaryValues(
              'trend',
              all.filter((t) => t.ok && t.mode === mode).map((t) => t.ttfc),
              10_400,
            );
            if (mode === 'chunks')
              expect(summary.metrics['speak_ws_ttfc{mode:chunks}']!.values).toEqual(expected);
          }
          const every = summaryValues(
            'trend',
            all.filter((t) => t.ok).map((t) => t.ttfc),
            10_400,
          );
          expect(summary.metrics.speak_ws_ttfc!.values).toEqual(every);
          const ok = all.filter((t) => t.ok).length;
          expect(summary.metrics.speak_ws_takes!.values).toEqual({ count: ok, rate: ok / 10.4 });
          expect(summary.metrics.speak_ws_errors!.values.fails).toBe(ok);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the scenario block, takes the longest segment as the run length, re-judges thresholds', async () => {
    const fast = Array.from({ length: 20 }, (_, i) => ({ ttfc: 5 + i, mode: 'chunks' as const, ok: true }));
    const slow = Array.from({ length: 20 }, (_, i) => ({ ttfc: 100 + i, mode: 'chunks' as const, ok: true }));
    // Each segment alone passes or fails p(95)<50 differently; the merged figure decides.
    const merged = await mergeSegments([writeRun(fast, slow)]);
    const summary = parseSummary(merged.data);
    expect(summary.scenario).toBe('ttfc-websocket');
    expect(summary.extra.vus).toBe(2);
    expect(summary.testRunDurationMs).toBe(10_400);
    expect(summary.metrics['speak_ws_ttfc{mode:chunks}']!.values['p(95)']).toBeCloseTo(
      k6Percentile(
        [...fast, ...slow].map((t) => t.ttfc),
        0.95,
      ),
      10,
    );
    expect(summary.thresholds).toContainEqual({
      metric: 'speak_ws_ttfc{mode:chunks}',
      expression: 'p(95)<50',
      ok: false,
    });
    expect(merged.failedThresholds).toBe(1);
    expect(merged.segments).toHaveLength(2);
  });

  it('parses sub-metric names and threshold expressions', () => {
    expect(parseMetricName('speak_ramp_ttfc{rate:4,mode:chunks}')).toEqual({
      base: 'speak_ramp_ttfc',
      tags: { rate: '4', mode: 'chunks' },
    });
    expect(evaluateThreshold('med<=15', { med: 15 })).toBe(true);
    expect(evaluateThreshold('count>0', { count: 0 })).toBe(false);
    expect(() => evaluateThreshold('avg<x', { avg: 1 })).toThrow(/stat<op>number/);
  });

  it("gives each k6 process its execution segment, as k6-operator's parallelism does", () => {
    expect(segmentArgs(0, 2)).toEqual([
      '--execution-segment',
      '0:1/2',
      '--execution-segment-sequence',
      '0,1/2,1',
    ]);
    expect(segmentArgs(2, 3)).toEqual([
      '--execution-segment',
      '2/3:1',
      '--execution-segment-sequence',
      '0,1/3,2/3,1',
    ]);
  });

  it('exports the dashboard without a listening port', () => {
    expect(dashboardEnv('/r/dashboard.html')).toEqual({
      K6_WEB_DASHBOARD: 'true',
      K6_WEB_DASHBOARD_PORT: '-1',
      K6_WEB_DASHBOARD_PERIOD: '1s',
      K6_WEB_DASHBOARD_EXPORT: '/r/dashboard.html',
    });
    expect(dashboardEnv(undefined)).toEqual({});
  });

  it('speakcheck load merge DIR: writes summary.json and summary.md, exit 99 when a merged threshold fails', () => {
    const fast = Array.from({ length: 20 }, (_, i) => ({ ttfc: 5 + i, mode: 'chunks' as const, ok: true }));
    const slow = Array.from({ length: 20 }, (_, i) => ({ ttfc: 100 + i, mode: 'chunks' as const, ok: true }));
    const dir = writeRun(fast, slow);
    const out = spawnSync(process.execPath, ['bin/speakcheck.js', 'load', 'merge', dir], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.status, out.stderr).toBe(99);
    expect(out.stdout).toContain('merged 2 segment(s)');
    expect(existsSync(join(dir, 'summary.json'))).toBe(true);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      '| `speak_ws_ttfc{mode:chunks}` | `p(95)<50` | k6 option | **FAIL** |',
    );
    const none = spawnSync(
      process.execPath,
      ['bin/speakcheck.js', 'load', 'merge', mkdtempSync(join(tmpdir(), 'empty-'))],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no samples\.json\(\.gz\) below .*: nothing to merge/);
  }, 90_000);
});
