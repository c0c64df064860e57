/**
 * `speakcheck compare` on REAL runs of the reference stack (each a whole `speakcheck run --base-url`
 * against `serve` with switches, made once in beforeAll and shared):
 *  - clean:     no switch;
 *  - release:   two defect switches (login-fail-403, version-string) and one latitude switch
 *               (pages-from-0: the page base, an INFO observation);
 *  - vendor-c:  another latitude (status-400: invalid bodies refused with 400, an INFO observation)
 *               and another defect (docs-placeholder).
 * Clean against release must show exactly what those switches touch, each in its direction, and exit
 * 1 (apart from a MUST whose state one of the two runs did not catch: not-observed in one, passed in
 * the other, whatever the switches; shown, never a regression); three runs side by side must render
 * in headless Chromium with no axe-core violation, offline.
 * Also writes the README's screenshots (docs/screens/README.md).
 * Heavy (three stacks, three whole runs, a browser): `flock /tmp/heavy.lock npx vitest run --config
 * vitest.config.ts test/compare/compare-real-runs.int.test.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFECTS } from '../../reference/defects/registry.ts';
import type { ChangeKind, Comparison } from '../../src/compare/diff.ts';
import { type HarnessRun, runHarness, startDefectiveStack } from '../reference/defects/defective-stack.ts';
import { withPage } from '../support/browser.ts';
import { accessibilityProblems, axeViolations } from '../support/page-checks.ts';
import { runSpeakcheck } from '../support/run-speakcheck.ts';

const RELEASE_DEFECTS = ['login-fail-403', 'version-string'];
const RELEASE_LATITUDE = 'pages-from-0';

/**
 * What the release's switches change, and how. The defects' own declarations (reference/defects/
 * registry.ts) name AUTH-LOGIN-FAIL-401, VERSION-MAJOR-MINOR and VERSION-WIRE-SHAPE (an INFO: its
 * observation changes); "1.0" as the version also has no major number that matches the path's /v1
 * (VERSION-MAJOR-MATCHES-PATH, a SHOULD); pages-from-0 changes the page base LIST-PAGE-BASE observes.
 */
const EXPECTED: Record<string, { kind: ChangeKind; from: string; to: string; regression: boolean }> = {
  'AUTH-LOGIN-FAIL-401': { kind: 'new-failure', from: 'passed', to: 'failed', regression: true },
  'VERSION-MAJOR-MINOR': { kind: 'new-failure', from: 'passed', to: 'failed', regression: true },
  'VERSION-MAJOR-MATCHES-PATH': { kind: 'new-failure', from: 'passed', to: 'failed', regression: true },
  'VERSION-WIRE-SHAPE': { kind: 'observation-changed', from: 'info', to: 'info', regression: false },
  'LIST-PAGE-BASE': { kind: 'observation-changed', from: 'info', to: 'info', regression: false },
};

let dir = '';
const runs: Record<'clean' | 'release' | 'vendorC', HarnessRun | undefined> = {
  clean: undefined,
  release: undefined,
  vendorC: undefined,
};

/** A stack with these `serve` switches and the whole harness against it (strict profile). */
async function runAgainst(serveArgs: string[]): Promise<HarnessRun> {
  const stack = await startDefectiveStack([], ['--workers', '1', ...serveArgs]);
  try {
    return await runHarness(stack, []);
  } finally {
    await stack.stop();
  }
}

/** A verdict that flips between not-observed and passed: what one run caught, not what the server did. */
function isRunRace(change: Comparison['changed'][number]['changes'][number]): boolean {
  const ends = [change.from, change.to];
  return ends.includes('not-observed') && ends.includes('passed');
}

function readComparison(outDir: string): Comparison {
  return JSON.parse(readFileSync(join(outDir, 'compare.json'), 'utf8')) as Comparison;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-compare-real-'));
  // One after the other: two cores, and a whole run's timing checks want one of them.
  runs.clean = await runAgainst([]);
  runs.release = await runAgainst([
    ...RELEASE_DEFECTS.flatMap((d) => ['--defect', d]),
    '--latitude',
    RELEASE_LATITUDE,
  ]);
  runs.vendorC = await runAgainst(['--latitude', 'status-400', '--defect', 'docs-placeholder']);
}, 600_000);

afterAll(() => {
  for (const run of Object.values(runs)) if (run) rmSync(run.reportDir, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The page as a person reads it: no axe-core violation (closed and every <details> open), offline. */
async function assertAccessibleAndOffline(s: Parameters<Parameters<typeof withPage>[1]>[0]): Promise<void> {
  const problems = await accessibilityProblems(s.page);
  expect(problems, JSON.stringify(problems, null, 1)).toEqual([]);
  const closed = await axeViolations(s.page);
  expect(closed, JSON.stringify(closed, null, 1)).toEqual([]);
  const open = await axeViolations(s.page, { openDetails: true });
  expect(open, JSON.stringify(open, null, 1)).toEqual([]);
  expect(s.networkRequests(), 'requests beyond file:// and data:').toEqual([]);
  expect(s.pageErrors).toEqual([]);
}

/** Nothing sticks out sideways: the page never needs a horizontal scrollbar. */
async function assertNoHorizontalOverflow(page: Page): Promise<void> {
  const widths = await page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return { scroll: root.scrollWidth, client: root.clientWidth };
  });
  expect(widths.scroll, 'page wider than the window').toBeLessThanOrEqual(widths.client);
}

/** The ids of the "changed" table's rows, top to bottom. */
async function changedIds(page: Page): Promise<string[]> {
  return (await page.locator('#changed tbody th b').allTextContents()).map((t) => t.trim());
}

describe('compare real runs', () => {
  test('clean vs two defects and a latitude: exactly those requirements changed, right direction, exit 1', async () => {
    expect(runs.clean?.code, runs.clean?.output).toBe(0);
    expect(runs.release?.code, runs.release?.output).toBe(1);
    const out = join(dir, 'regression');
    const result = await runSpeakcheck(
      [
        'compare',
        runs.clean!.reportDir,
        runs.release!.reportDir,
        '--label',
        'v1.4.0',
        '--label',
        'v1.5.0',
        '--report-dir',
        out,
      ],
      60_000,
    );
    expect(result.code, result.output).toBe(1);
    const c = readComparison(out);
    // A MUST whose state a run did not catch (a take too quick for "before ready") is not-observed in
    // that run and passed in the next, whatever the switches: the run's race, shown, never a regression.
    const raced = c.changed.filter((row) => row.changes.every(isRunRace));
    for (const row of raced)
      expect(
        row.changes.map((x) => x.regression),
        row.id,
      ).toEqual([false]);
    const changed = Object.fromEntries(
      c.changed
        .filter((row) => !raced.includes(row))
        .map((row) => {
          const [change] = row.changes;
          return [
            row.id,
            { kind: change!.kind, from: change!.from, to: change!.to, regression: change!.regression },
          ];
        }),
    );
    expect(changed).toEqual(EXPECTED);
    // Every requirement the defects declare is among them.
    const declared = DEFECTS.filter((d) => RELEASE_DEFECTS.includes(d.name)).flatMap((d) => d.requirements);
    for (const id of declared) expect(Object.keys(changed), id).toContain(id);
    // Worst first: the regressions (MUST before SHOULD) above the observations.
    expect(c.changed.map((r) => r.id).slice(0, 3)).toEqual([
      'AUTH-LOGIN-FAIL-401',
      'VERSION-MAJOR-MINOR',
      'VERSION-MAJOR-MATCHES-PATH',
    ]);
    expect(result.output).toContain('worse: AUTH-LOGIN-FAIL-401 (MUST) in v1.5.0: passed -> failed');
    // The header says what each run's conformance.json says.
    expect(c.runs.map((r) => [r.label, r.verdict, r.levels.MUST.failed, r.levels.SHOULD.failed])).toEqual([
      ['v1.4.0', expect.stringMatching(/^NO MUST OR SHOULD FAILED/), 0, 0],
      ['v1.5.0', 'DOES NOT CONFORM', 2, 1],
    ]);
    expect(c.runs[1]?.serverVersion).toBe('{"version":"1.0"}');
    const md = readFileSync(join(out, 'compare.md'), 'utf8');
    expect(md.split('\n').filter((l) => l.startsWith('- **'))).toHaveLength(c.changed.length);

    // At levels where nothing got worse, the same comparison passes.
    const security = await runSpeakcheck(
      [
        'compare',
        runs.clean!.reportDir,
        runs.release!.reportDir,
        '--fail-on',
        'security',
        '--report-dir',
        join(dir, 'security'),
      ],
      60_000,
    );
    expect(security.code, security.output).toBe(0);
    // The clean run against itself: nothing changed.
    const same = await runSpeakcheck(
      ['compare', runs.clean!.reportDir, runs.clean!.reportDir, '--report-dir', join(dir, 'same')],
      60_000,
    );
    expect(same.code, same.output).toBe(0);
    expect(readComparison(join(dir, 'same')).changed).toEqual([]);

    await withPage(
      pathToFileURL(join(out, 'compare.html')).href,
      async (s) => {
        await expect(s.page.locator('.outcome').textContent()).resolves.toBe(
          'REGRESSION: 3 requirement(s) worse than the baseline at MUST, SHOULD, SECURITY',
        );
        expect(await changedIds(s.page)).toEqual(c.changed.map((r) => r.id));
        await assertNoHorizontalOverflow(s.page);
        await s.screenshot('conformance-compare-regression', { fullPage: true });
        await assertAccessibleAndOffline(s);
      },
      { viewport: { width: 1280, height: 900 } },
    );
  }, 180_000);

  test('three vendors side by side: the page renders in Chromium, axe-clean and offline', async () => {
    expect(runs.vendorC?.code, runs.vendorC?.output).toBe(1);
    const out = join(dir, 'vendors');
    const result = await runSpeakcheck(
      [
        'compare',
        runs.clean!.reportDir,
        runs.release!.reportDir,
        runs.vendorC!.reportDir,
        '--label',
        'vendor-a',
        '--label',
        'vendor-b',
        '--label',
        'vendor-c',
        '--report-dir',
        out,
      ],
      60_000,
    );
    expect(result.code, result.output).toBe(1);
    const c = readComparison(out);
    const vendorC = new Map(
      c.changed.flatMap((row) =>
        row.changes.filter((x) => x.run === 2).map((x) => [row.id, x.kind] as const),
      ),
    );
    // docs-placeholder fails its declared requirement; status-400 changes the refusal status observed.
    for (const id of DEFECTS.find((d) => d.name === 'docs-placeholder')!.requirements) {
      expect(vendorC.get(id), id).toBe('new-failure');
    }
    expect(vendorC.get('ERR-INVALID-BODY-CODE')).toBe('observation-changed');

    await withPage(
      pathToFileURL(join(out, 'compare.html')).href,
      async (s) => {
        const { page } = s;
        // One header column per run, the first the baseline.
        await expect(page.locator('#runs thead th').allTextContents()).resolves.toEqual([
          'run',
          'vendor-a (baseline)',
          'vendor-b',
          'vendor-c',
        ]);
        expect(await changedIds(page)).toEqual(c.changed.map((r) => r.id));
        // A changed cell opens to its finding; a requirement opens to its sentence.
        const row = page.locator('tr', { has: page.locator('th#m-AUTH-LOGIN-FAIL-401') });
        await row.locator('td').nth(1).locator('summary').click();
        await expect(row.locator('td').nth(1).locator('p.finding').textContent()).resolves.toContain('403');
        await row.locator('th summary').click();
        await expect(row.locator('th .spec').isVisible()).resolves.toBe(true);
        // Identical rows folded: of the areas with no change, no table is in view.
        const steady = c.rows.filter((r) => r.changes.length === 0).map((r) => r.id);
        expect(steady.length).toBeGreaterThan(100);
        await expect(page.locator(`th#m-${steady[0]}`).isVisible()).resolves.toBe(false);
        await page.evaluate(() =>
          (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
        );
        await assertNoHorizontalOverflow(s.page);
        await s.screenshot('conformance-compare-vendors', { fullPage: true });
        await assertAccessibleAndOffline(s);
      },
      { viewport: { width: 1280, height: 900 } },
    );
  }, 180_000);
});
