/**
 * The performance comparison as a performance engineer opens it: `speakcheck perf compare` run as a
 * process on two small synthetic k6 summaries (the current one regressed), compare.html opened from
 * disk. The charts must be drawn (non-empty SVG with bars, labelled value axis with ticks, labelled
 * rows) and the regression verdict must be visible; nothing may be fetched.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { keyPanel } from '../browser/compare-page.ts';
import { withPage } from '../support/browser.ts';
import { accessibilityProblems, axeViolations } from '../support/page-checks.ts';
import { runSpeakcheck } from '../support/run-speakcheck.ts';

interface Side {
  ttfcChunks: { med: number; p95: number; p99: number };
  ttfcParts: { med: number; p95: number; p99: number };
  takesPerSecond: number;
  errorRate: number;
}

/** The summary.json a load scenario's handleSummary writes: k6 summary data plus a speakcheck block. */
function k6Summary(s: Side): unknown {
  const trend = (t: Side['ttfcChunks']) => ({
    type: 'trend',
    contains: 'time',
    values: {
      count: 60,
      avg: t.med,
      min: t.med / 2,
      med: t.med,
      max: t.p99 + 1,
      'p(90)': t.p95,
      'p(95)': t.p95,
      'p(99)': t.p99,
    },
  });
  const total = 600;
  const fails = Math.round(s.errorRate * total);
  return {
    state: { testRunDurationMs: 10_000 },
    speakcheck: { scenario: 'ttfc-websocket' },
    metrics: {
      'speak_ws_ttfc{mode:chunks}': trend(s.ttfcChunks),
      'speak_ws_ttfc{mode:parts}': trend(s.ttfcParts),
      speak_ws_takes: { type: 'counter', values: { count: s.takesPerSecond * 10, rate: s.takesPerSecond } },
      // k6 Rate: `rate` is the share of true samples (here: requests that erred).
      speak_ws_errors: { type: 'rate', values: { rate: s.errorRate, passes: fails, fails: total - fails } },
    },
  };
}

const baseline: Side = {
  ttfcChunks: { med: 8, p95: 12, p99: 15 },
  ttfcParts: { med: 90, p95: 120, p99: 140 },
  takesPerSecond: 20,
  errorRate: 0,
};
// Chunks-mode TTFC p95 2.5 × worse and 3 % errors: both far beyond the default tolerance.
const regressed: Side = {
  ttfcChunks: { med: 8, p95: 30, p99: 35 },
  ttfcParts: { med: 88, p95: 118, p99: 139 },
  takesPerSecond: 19.5,
  errorRate: 0.03,
};

let dir = '';
let exitCode: number | string | undefined;
let output = '';
/** The same baseline against a re-measurement of itself: no regression. */
let steadyExit: number | string | undefined;
let steadyOutput = '';

/** The same side measured again: a small spread, as repeated runs on one machine show. */
function rerun(s: Side, i: number): Side {
  const d = (i - (RUNS - 1) / 2) * 0.1;
  const t = (x: Side['ttfcChunks']) => ({ med: x.med + d, p95: x.p95 + d, p99: x.p99 + d });
  return {
    ttfcChunks: t(s.ttfcChunks),
    ttfcParts: t(s.ttfcParts),
    takesPerSecond: s.takesPerSecond + d / 10,
    errorRate: s.errorRate === 0 ? 0 : s.errorRate + d / 1000,
  };
}

/** Runs per side: perf compare calls a difference only when it is significant (p < 0.05 needs 4+ per side). */
const RUNS = 5;

function writeRuns(side: string, s: Side): string {
  for (let i = 0; i < RUNS; i++) {
    mkdirSync(join(dir, side, `run-${i + 1}`), { recursive: true });
    writeFileSync(join(dir, side, `run-${i + 1}`, 'summary.json'), JSON.stringify(k6Summary(rerun(s, i))));
  }
  return join(dir, side);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-perf-page-'));
  const args = [writeRuns('baseline', baseline), writeRuns('current', regressed), '--out', join(dir, 'out')];
  ({ code: exitCode, output } = await runSpeakcheck(['perf', 'compare', ...args], 30_000));
  const steady = [join(dir, 'baseline'), writeRuns('steady', baseline), '--out', join(dir, 'steady-out')];
  ({ code: steadyExit, output: steadyOutput } = await runSpeakcheck(['perf', 'compare', ...steady], 30_000));
}, 70_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('perf compare report page', () => {
  test('compare.html shows three drawn charts with labelled axes and the regression verdict', async () => {
    expect(exitCode, output).toBe(1); // EXIT.failed
    const url = pathToFileURL(join(dir, 'out', 'compare.html')).href;
    await withPage(url, async (s) => {
      const verdict = s.page.locator('.verdict');
      await expect(verdict.isVisible()).resolves.toBe(true);
      await expect(verdict.textContent()).resolves.toMatch(/^REGRESSION: 2 figure\(s\) significantly worse/);
      // Red, so it reads as bad at a glance.
      // (The page's window; the project's tsconfig has no DOM lib.)
      const color = await verdict.evaluate(
        (e) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e)
            .color,
      );
      expect(color).toBe('rgb(217, 48, 37)');

      // Every figure's charts are collapsed below the key figures: open them as a reader does.
      const groups = s.page.locator('details.group.chart > summary');
      for (let i = 0; i < (await groups.count()); i++) await groups.nth(i).click();
      const charts = s.page.locator('figure svg');
      await expect(charts.count()).resolves.toBe(3);
      const axisLabels = [
        'milliseconds (lower is better)',
        'per second of test run (higher is better)',
        'percent of requests (lower is better)',
      ];
      for (let i = 0; i < 3; i++) {
        const chart = charts.nth(i);
        const box = await chart.boundingBox();
        expect(box?.width ?? 0).toBeGreaterThan(300);
        expect(box?.height ?? 0).toBeGreaterThan(100);
        const drawn = await chart.evaluate((svg) => {
          const texts = [...svg.querySelectorAll('text')].map((t) => t.textContent ?? '');
          const bars = [...svg.querySelectorAll('rect')]
            .map((r) => r.getBoundingClientRect())
            .filter((b) => b.width > 0 && b.height > 0);
          return { texts, bars: bars.length, gridlines: svg.querySelectorAll('line').length };
        });
        expect(drawn.texts, `chart ${i}: value axis label`).toContain(axisLabels[i]);
        // Legend (3 swatches) plus drawn bars (a baseline of 0 % errors is rightly a zero-width bar).
        expect(drawn.bars, `chart ${i}: bars`).toBeGreaterThanOrEqual(4);
        expect(
          drawn.texts.some((t) => /^\d/.test(t)),
          `chart ${i}: value labels`,
        ).toBe(true);
        // Tick labels along the value axis (the axis line plus at least two gridlines).
        expect(drawn.gridlines, `chart ${i}: axis and gridlines`).toBeGreaterThanOrEqual(3);
        // Rows are labelled with scenario and metric.
        expect(
          drawn.texts.some((t) => t.startsWith('ttfc-websocket · ')),
          `chart ${i}: row labels`,
        ).toBe(true);
      }
      // The regressed bar is drawn in the regression colour in the latency chart.
      await expect(charts.nth(0).locator('rect[fill="#d93025"]').count()).resolves.toBeGreaterThanOrEqual(2);

      // The table names the regressed figures.
      const regressedRows = s.page.locator('tr.bad');
      await expect(regressedRows.count()).resolves.toBe(2);
      await expect(regressedRows.nth(0).textContent()).resolves.toContain('worse');
      const rowsText = (await regressedRows.allTextContents()).join('\n');
      expect(rowsText).toContain('speak_ws_ttfc{mode:chunks}');
      expect(rowsText).toContain('speak_ws_errors');

      expect(s.pageErrors).toEqual([]);
      expect(s.requests.map((r) => new URL(r.url).protocol)).toEqual(['file:']);
      await s.screenshot('perf-compare', { fullPage: true });
    });
  });

  test('key figures first, with intervals: a regression reads red, "~" reads grey', async () => {
    expect(exitCode, output).toBe(1);
    await withPage(
      pathToFileURL(join(dir, 'out', 'compare.html')).href,
      async (s) => {
        const rows = await keyPanel(s.page);
        // Per scenario: first playable audio p50 and p95 per mode, throughput, error rate.
        expect(rows.map((r) => r.figure)).toEqual([
          'first playable audio p50 speak_ws_ttfc{mode:chunks}',
          'first playable audio p95 speak_ws_ttfc{mode:chunks}',
          'first playable audio p50 speak_ws_ttfc{mode:parts}',
          'first playable audio p95 speak_ws_ttfc{mode:parts}',
          'throughput speak_ws_takes',
          'error rate speak_ws_errors',
        ]);
        const worse = rows.filter((r) => r.verdict === 'worse').map((r) => r.figure);
        expect(worse).toEqual([
          'first playable audio p95 speak_ws_ttfc{mode:chunks}',
          'error rate speak_ws_errors',
        ]);
        const regression = rows.find((r) => r.verdict === 'worse')!;
        const same = rows.find((r) => r.verdict === '~')!;
        expect(regression.pillBackground).toBe('rgb(217, 48, 37)');
        expect(same.pill).toBe('~ no significant change');
        expect(same.pillBackground).not.toBe(regression.pillBackground);
        // Both sides' intervals drawn wherever a side's runs spread (the 0 % error baseline does not).
        for (const r of rows.filter((x) => !x.figure.startsWith('error rate'))) {
          expect(r.whiskers, r.figure).toBe(2);
        }
        expect(await accessibilityProblems(s.page)).toEqual([]);
        expect(await axeViolations(s.page, { openDetails: true })).toEqual([]);
        expect(s.requests.map((r) => new URL(r.url).protocol)).toEqual(['file:']);
        await s.screenshot('perf-compare-key-figures');
      },
      { viewport: { width: 1280, height: 800 } },
    );
  });

  test('no regression: the same panel first, every verdict "~", nothing red', async () => {
    expect(steadyExit, steadyOutput).toBe(0);
    await withPage(
      pathToFileURL(join(dir, 'steady-out', 'compare.html')).href,
      async (s) => {
        const rows = await keyPanel(s.page);
        expect(rows).toHaveLength(6);
        expect(new Set(rows.map((r) => r.verdict))).toEqual(new Set(['~']));
        expect(rows.filter((r) => !r.figure.startsWith('error rate')).every((r) => r.whiskers === 2)).toBe(
          true,
        );
        await expect(s.page.locator('.pill.v-worse').count()).resolves.toBe(0);
        await expect(s.page.locator('.verdict.bad').count()).resolves.toBe(0);
        expect(s.requests.map((r) => new URL(r.url).protocol)).toEqual(['file:']);
        await s.screenshot('perf-compare-synthetic-steady');
      },
      { viewport: { width: 1280, height: 800 } },
    );
  });
});
