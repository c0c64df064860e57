/**
 * The comparison page of two real sets of load runs, as a performance engineer makes and opens it:
 * two reference stacks, one of them slowed on purpose (`serve --synthesis-delay-ms 300`: each part
 * holds its synthesizer 300 ms longer), short k6 runs of ttfc-websocket through
 * `speakcheck perf compare A B --interleave 4` (4 runs a side, alternating: the fewest with which a
 * difference can be significant at p < 0.05), then compare.html opened from disk in Chromium.
 *  - normal vs slowed: exit 1; the key-figure panel comes first, each row's intervals drawn as
 *    whiskers, the slowed first playable audio and throughput verdicts red ("worse");
 *  - normal vs normal (two baseline sets): exit 0; the same panel, every verdict "~", nothing red.
 * Tolerance 50 % and 50 ms: run-to-run noise of a shared CI machine stays below them, a 300 ms
 * slower synthesizer (first audio ~7 ms → ~310 ms) is far above.
 * Skipped, with the reason printed, only when k6 is not installed and SPEAKCHECK_REQUIRE does not name it (test/support/required-tools.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findK6, K6_CACHE_BIN, K6_VERSION } from '../../src/load/k6-binary.ts';
import { type EmbeddedStack, startEmbeddedStack } from '../../src/stack/embedded.ts';
import { keyPanel, REGRESSION_RED } from '../browser/compare-page.ts';
import { withPage } from '../support/browser.ts';
import { axeViolations } from '../support/page-checks.ts';
import { toolReady } from '../support/required-tools.ts';
import { type CliResult, runSpeakcheck } from '../support/run-speakcheck.ts';

const k6 = toolReady(
  'k6',
  findK6() ? undefined : `k6 ${K6_VERSION} is not installed at ${process.env.K6_BIN || K6_CACHE_BIN}`,
);

/** One account on both stacks, so one set of credentials serves both sides of the comparison. */
const USER = { email: 'perf-page@speakcheck.test', password: 'perf-page-password-1' };
const SLOWDOWN_MS = 300;

let dir = '';
let normal: EmbeddedStack | undefined;
let slowed: EmbeddedStack | undefined;
let regression: CliResult;
let steady: CliResult;

/** `perf compare BASELINE CURRENT --interleave 4`: 8 runs of 2 s, about 35 s on two cores. */
function compare(baseline: string, current: string, out: string): Promise<CliResult> {
  return runSpeakcheck(
    [
      'perf',
      'compare',
      baseline,
      current,
      '--interleave',
      '4',
      '--scenario',
      'ttfc-websocket',
      '--vus',
      '1',
      '--duration',
      '2s',
      '--env',
      'MODES=chunks',
      '--tolerance',
      '0.5',
      '--min-ms',
      '50',
      '--report-dir',
      join(dir, out),
    ],
    150_000,
    { SPEAK_EMAIL: USER.email, SPEAK_PASSWORD: USER.password },
  );
}

const compareUrl = (out: string) => pathToFileURL(join(dir, out, 'compare.html')).href;

describe.skipIf(!k6)('perf compare page of real load runs (normal vs slowed reference)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'speakcheck-perf-real-'));
    const user = ['--user', `${USER.email}:${USER.password}`];
    // One after the other: a stack that started is stopped in afterAll even when the next fails.
    normal = await startEmbeddedStack({ extraArgs: user, readyTimeoutMs: 60_000 });
    slowed = await startEmbeddedStack({
      extraArgs: [...user, '--synthesis-delay-ms', String(SLOWDOWN_MS)],
      readyTimeoutMs: 60_000,
    });
    regression = await compare(normal.baseUrl, slowed.baseUrl, 'regression');
    steady = await compare(normal.baseUrl, normal.baseUrl, 'steady');
  }, 400_000);

  afterAll(async () => {
    await Promise.all([normal?.stop(), slowed?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('with a regression: key figures first, intervals drawn, the slowdown red', async () => {
    expect(regression.code, regression.output).toBe(1); // EXIT.failed: a figure is worse
    await withPage(
      compareUrl('regression'),
      async (s) => {
        const verdict = s.page.locator('p.verdict');
        await expect(verdict.textContent()).resolves.toMatch(
          /^REGRESSION: \d+ figure\(s\) significantly worse/,
        );
        const colour = await verdict.evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e)
              .color,
        );
        expect(colour).toBe(REGRESSION_RED);

        const rows = await keyPanel(s.page);
        const byName = (prefix: string) => rows.filter((r) => r.figure.startsWith(prefix));
        const latency = byName('first playable audio');
        expect(latency.length, JSON.stringify(rows)).toBeGreaterThanOrEqual(2);
        expect(
          latency.map((r) => r.figure.split(' ')[3]),
          'p50 and p95 of first playable audio',
        ).toEqual(expect.arrayContaining(['p50', 'p95']));
        // 300 ms more per part: first audio and, with one virtual user, takes per second are worse.
        for (const r of [...latency, ...byName('throughput')]) {
          expect(r.verdict, r.figure).toBe('worse');
          expect(r.pill, r.figure).toBe('worse');
          expect(r.pillBackground, r.figure).toBe(REGRESSION_RED);
          // Each side's bootstrap interval drawn (4 runs a side spread a little).
          expect(r.whiskers, r.figure).toBe(2);
        }
        expect(byName('throughput')).toHaveLength(1);
        // No request failed on either side: no error rate moved.
        const errors = byName('error rate');
        expect(errors.length).toBeGreaterThan(0);
        for (const r of errors) expect(r.verdict, r.figure).toBe('~');

        expect(await axeViolations(s.page, { openDetails: true })).toEqual([]);
        expect(s.pageErrors).toEqual([]);
        expect(s.networkRequests()).toEqual([]);
        // The page as it opens (axe's check opened every group), for the screenshot.
        await s.page.reload({ waitUntil: 'load' });
        await s.screenshot('perf-compare-regression');
      },
      { viewport: { width: 1280, height: 800 } },
    );
  });

  test('without a regression (two baseline sets): the same panel first, every verdict "~", nothing red', async () => {
    expect(steady.code, steady.output).toBe(0);
    await withPage(
      compareUrl('steady'),
      async (s) => {
        const rows = await keyPanel(s.page);
        expect(rows.map((r) => r.figure)).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^first playable audio p50 /),
            expect.stringMatching(/^first playable audio p95 /),
            expect.stringMatching(/^throughput /),
            expect.stringMatching(/^error rate /),
          ]),
        );
        expect(
          rows.filter((r) => r.verdict !== '~'),
          'verdicts other than ~',
        ).toEqual([]);
        for (const r of rows) expect(r.pill, r.figure).toBe('~ no significant change');
        for (const r of rows.filter((x) => !x.figure.startsWith('error rate')))
          expect(r.whiskers, r.figure).toBe(2);
        await expect(s.page.locator('.pill.v-worse').count()).resolves.toBe(0);
        await expect(s.page.locator('p.verdict.bad').count()).resolves.toBe(0);
        expect(await axeViolations(s.page, { openDetails: true })).toEqual([]);
        expect(s.pageErrors).toEqual([]);
        expect(s.networkRequests()).toEqual([]);
        await s.page.reload({ waitUntil: 'load' });
        await s.screenshot('perf-compare-steady');
      },
      { viewport: { width: 1280, height: 800 } },
    );
  });
});
