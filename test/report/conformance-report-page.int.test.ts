/**
 * conformance.html as an acceptance tester opens it: from disk, offline. The reports:
 *  - one written by a real full `speakcheck run` against the embedded stack (a passing run);
 *  - one written by a real full run against a stack with one defect switch (one MUST fails);
 *  - one rendered by the harness's own writer from verdicts with a failed MUST whose evidence holds
 *    a huge unbroken body, a very long URL and a long error, over several areas and every verdict.
 * Asserted on what a person sees: the summary counts equal conformance.json's, a failed requirement
 * expands to its evidence, the area and verdict filters show exactly the matching requirements, and
 * long evidence stays inside the page (no sideways scrolling, bounded boxes). Every page passes
 * axe-core (no serious or critical violation, collapsed parts opened too) and asks for nothing but
 * file:// and data: URLs.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EvidenceEntry } from '../../src/evidence/evidence.ts';
import { buildReport, type ConformanceReport } from '../../src/report/model.ts';
import { HTML_MAX_EXCHANGES_PER_TEST } from '../../src/report/render-html.ts';
import { writeReport } from '../../src/report/write.ts';
import { findRequirement } from '../../src/requirements/index.ts';
import type { Requirement } from '../../src/requirements/types.ts';
import { startEmbeddedStack } from '../../src/stack/embedded.ts';
import { computeVerdicts, type TestOutcome } from '../../src/verdict/verdict.ts';
import { type PageSession, withPage } from '../support/browser.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { accessibilityProblems, axeViolations, brokenHeaderWords } from '../support/page-checks.ts';
import { runSpeakcheck } from '../support/run-speakcheck.ts';
import { said } from '../support/said.ts';
import { testOutcome } from '../support/test-outcome.ts';

const VIEWPORT = { width: 1280, height: 900 };

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-report-page-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function readReport(reportDir: string): ConformanceReport {
  return JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as ConformanceReport;
}

/** The summary table as a person reads it: header → the number under it. */
async function summaryTable(page: Page): Promise<Record<string, string>> {
  const table = page.locator('table.sum');
  await table.waitFor({ state: 'visible' });
  const headers = await table.locator('th').allTextContents();
  const cells = await table.locator('tr').nth(1).locator('td').allTextContents();
  return Object.fromEntries(headers.map((h, i) => [h.trim(), (cells[i] ?? '').trim()]));
}

function expectedSummary(report: ConformanceReport): Record<string, string> {
  const s = report.summary;
  return {
    Requirements: String(s.requirements),
    Passed: String(s.passed),
    Failed: String(s.failed),
    Blocked: String(s.blocked),
    'Expected failures': String(s.expectedFailures ?? 0),
    Skipped: String(s.skipped),
    Info: String(s.info),
    Uncovered: String(s.uncovered),
    'MUST failed': String(s.mustFailed),
    'SHOULD failed': String(s.shouldFailed),
    'MUST / SHOULD blocked': `${s.mustBlocked} / ${s.shouldBlocked}`,
    'Tests passed / failed / skipped': `${s.tests.passed} / ${s.tests.failed} / ${s.tests.skipped}`,
  };
}

/** Ids of the requirement blocks of the full list a person can see right now. */
async function visibleRequirementIds(page: Page): Promise<string[]> {
  const blocks = page.locator('#all details.req');
  const ids: string[] = [];
  for (let i = 0; i < (await blocks.count()); i++) {
    const block = blocks.nth(i);
    if (await block.isVisible())
      ids.push(((await block.locator('summary b').first().textContent()) ?? '').trim());
  }
  return ids;
}

async function filterBy(page: Page, o: { area?: string; verdict?: string }): Promise<void> {
  await page.selectOption('#f-area', o.area ?? '');
  await page.selectOption('#f-status', o.verdict ?? '');
}

/** Checks both filters against conformance.json, combination included, and resets them. */
async function assertFilters(page: Page, report: ConformanceReport): Promise<void> {
  const ids = (pick: (r: ConformanceReport['requirements'][number]) => boolean) =>
    report.requirements.filter(pick).map((r) => r.id);
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  expect(areas.length).toBeGreaterThanOrEqual(2);
  for (const area of areas) {
    await filterBy(page, { area });
    expect(await visibleRequirementIds(page), `area ${area}`).toEqual(ids((r) => r.area === area));
    await expect(page.locator('#f-count').textContent()).resolves.toBe(
      `${ids((r) => r.area === area).length} shown`,
    );
  }
  for (const verdict of ['passed', 'failed', 'info', 'skipped']) {
    await filterBy(page, { verdict });
    expect(await visibleRequirementIds(page), `verdict ${verdict}`).toEqual(ids((r) => r.status === verdict));
  }
  const [area] = areas;
  await filterBy(page, { area, verdict: 'passed' });
  expect(await visibleRequirementIds(page)).toEqual(ids((r) => r.area === area && r.status === 'passed'));
  // No filter: every requirement is listed again, in its area's collapsed group.
  await filterBy(page, {});
  await expect(page.locator('#f-count').textContent()).resolves.toBe(`${report.requirements.length} shown`);
  const listed = await page
    .locator('#all details.req:not([hidden])')
    .evaluateAll((blocks) =>
      blocks.map((b) => (b as unknown as { dataset: { status: string } }).dataset.status),
    );
  expect(listed).toEqual(report.requirements.map((r) => r.status));
  await expect(page.locator('#all details.area[open]').count()).resolves.toBe(0);
}

/** The badge beside the report and in its header says the run's MUST counts and profile. */
function assertBadge(reportDir: string, report: ConformanceReport): string {
  const musts = report.requirements.filter((r) => r.level === 'MUST');
  const passed = musts.filter((r) => r.status === 'passed').length;
  const subset = report.run.only.length > 0 ? ' · subset' : '';
  const message = `${passed}/${musts.length} MUST · ${report.run.profile}${subset}`;
  const endpoint = JSON.parse(readFileSync(join(reportDir, 'badge.json'), 'utf8'));
  expect(endpoint).toMatchObject({ schemaVersion: 1, label: 'Speak v1', message });
  expect(readFileSync(join(reportDir, 'badge.svg'), 'utf8')).toContain(`aria-label="Speak v1: ${message}"`);
  return message;
}

async function assertReadable(page: Page): Promise<void> {
  expect(await brokenHeaderWords(page), 'header words broken across lines').toEqual([]);
  const serious = await accessibilityProblems(page);
  expect(serious, JSON.stringify(serious, null, 1)).toEqual([]);
  const axe = await axeViolations(page);
  expect(axe, JSON.stringify(axe, null, 1)).toEqual([]);
}

/**
 * The last check of a page: axe-core with every collapsed part opened (evidence, reproductions, the
 * contract, the full list), and nothing asked for beyond file:// and data: URLs.
 */
async function assertAccessibleExpandedAndOffline(s: PageSession): Promise<void> {
  const axe = await axeViolations(s.page, { openDetails: true });
  expect(axe, JSON.stringify(axe, null, 1)).toEqual([]);
  expect(s.networkRequests(), 'requests beyond file:// and data:').toEqual([]);
  expect(s.pageErrors).toEqual([]);
}

/** Requirement blocks entirely inside the first 1280×800 window, in reading order. */
async function requirementsInView(page: Page): Promise<string[]> {
  return page.locator('details.req').evaluateAll((blocks) =>
    blocks
      .filter((b) => {
        const r = (
          b as unknown as { getBoundingClientRect(): { top: number; bottom: number; height: number } }
        ).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= 800;
      })
      .map((b) => (b as unknown as { id: string }).id),
  );
}

/** The passing run's page must stay small enough to mail and attach (issue 28: under 500 KB). */
const PASSING_HTML_MAX_BYTES = 500_000;

/** Nothing sticks out sideways: the page never needs a horizontal scrollbar. */
async function assertNoHorizontalOverflow(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return { scroll: root.scrollWidth, client: root.clientWidth };
  });
  expect(widths.scroll, `${what}: page wider than the window`).toBeLessThanOrEqual(widths.client);
}

describe('conformance report page', () => {
  test('a real passing run: under 500 KB, summary equals conformance.json, filters work, axe-clean, offline', async () => {
    const reportDir = join(dir, 'run');
    const run = await runSpeakcheck(['run', '--report-dir', reportDir], 150_000);
    expect(run.code, `speakcheck run exited ${run.code}:\n${run.output}`).toBe(0);
    const report = readReport(reportDir);
    expect(report.summary.mustFailed + report.summary.shouldFailed).toBe(0);
    const htmlBytes = statSync(join(reportDir, 'conformance.html')).size;
    expect(htmlBytes, 'conformance.html of a passing run, bytes').toBeLessThan(PASSING_HTML_MAX_BYTES);
    await withPage(
      pathToFileURL(join(reportDir, 'conformance.html')).href,
      async (s) => {
        await expect(s.page.locator('h1').textContent()).resolves.toMatch(/^Speak v1 conformance report: /);
        expect(await summaryTable(s.page)).toEqual(expectedSummary(report));
        await expect(s.page.locator('#f-count').textContent()).resolves.toBe(
          `${report.requirements.length} shown`,
        );
        const badge = assertBadge(reportDir, report);
        await expect(s.page.locator('header svg[role="img"]').getAttribute('aria-label')).resolves.toBe(
          `Speak v1: ${badge}`,
        );
        await assertReadable(s.page);
        await s.screenshot('conformance-passing');
        await s.screenshot('conformance-report-real-run', { fullPage: true });
        await assertFilters(s.page, report);
        await assertNoHorizontalOverflow(s.page, 'real run');
        await assertAccessibleExpandedAndOffline(s);
      },
      { viewport: { width: 1280, height: 800 } },
    );
  }, 200_000);

  test('a real failing run (defect login-fail-403): the failure first in view, its link lands on its sentence', async () => {
    const reportDir = join(dir, 'failing');
    const stack = await startEmbeddedStack({
      extraArgs: ['--defect', 'login-fail-403'],
      readyTimeoutMs: 60_000,
    });
    let run: Awaited<ReturnType<typeof runSpeakcheck>>;
    try {
      const second = stack.second ? ['--second-email', stack.second.email] : [];
      run = await runSpeakcheck(
        ['run', '--base-url', stack.baseUrl, '--email', stack.email, ...second, '--report-dir', reportDir],
        150_000,
        {
          SPEAK_PASSWORD: stack.password,
          ...(stack.second ? { SPEAK_SECOND_PASSWORD: stack.second.password } : {}),
        },
      );
    } finally {
      await stack.stop();
    }
    expect(run.code, `speakcheck run exited ${run.code}:\n${run.output}`).toBe(1); // does not conform
    const report = readReport(reportDir);
    const failed = report.requirements.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.id)).toEqual(['AUTH-LOGIN-FAIL-401']);
    const quote = failed[0]!.quote!;
    expect(quote).toBeTruthy();
    await withPage(
      pathToFileURL(join(reportDir, 'conformance.html')).href,
      async (s) => {
        const { page } = s;
        await expect(page.locator('h1').textContent()).resolves.toBe(
          'Speak v1 conformance report: DOES NOT CONFORM',
        );
        // Without scrolling or filtering, the one failure is the first requirement a reader sees.
        expect((await requirementsInView(page))[0]).toBe('req-AUTH-LOGIN-FAIL-401');
        expect(await summaryTable(page)).toEqual(expectedSummary(report));
        assertBadge(reportDir, report);
        await assertReadable(page);
        await s.screenshot('conformance-failing');

        const block = page.locator('#req-AUTH-LOGIN-FAIL-401');
        await block.locator('summary').first().click();
        await block.locator('a.to-spec').click();
        const target = page.locator(':target');
        await expect(target.getAttribute('id')).resolves.toMatch(/^spec-L\d+$/);
        await expect(target.textContent()).resolves.toContain(quote);
        await expect(target.getAttribute('data-outcome')).resolves.toBe('failed');
        const box = await target.boundingBox();
        expect(box!.y).toBeGreaterThanOrEqual(0);
        expect(box!.y + Math.min(box!.height, 100)).toBeLessThanOrEqual(800);
        await s.screenshot('conformance-contract');
        await assertAccessibleExpandedAndOffline(s);
      },
      { viewport: { width: 1280, height: 800 } },
    );
  }, 240_000);

  test('a failed requirement expands to its evidence; huge evidence does not break the layout', async () => {
    const reportDir = join(dir, 'rendered');
    const report = renderedReport();
    await writeReport(reportDir, report);
    // What the page must agree with is what was written next to it.
    const written = readReport(reportDir);
    expect(written.summary).toEqual(report.summary);
    expect(written.summary.failed).toBe(1);

    await withPage(
      pathToFileURL(join(reportDir, 'conformance.html')).href,
      async (s) => {
        const { page } = s;
        await expect(page.locator('h1').textContent()).resolves.toBe(
          'Speak v1 conformance report: DOES NOT CONFORM',
        );
        expect(await summaryTable(page)).toEqual(expectedSummary(written));

        // Collapsed at first: the evidence is there but not in the way.
        const failed = page.locator('#act details.req[data-status="failed"]');
        await expect(failed.count()).resolves.toBe(1);
        const evidence = failed.locator('details.ex').first();
        await expect(evidence.isVisible()).resolves.toBe(false);

        await failed.locator('summary').first().click();
        await expect(failed.getAttribute('open')).resolves.not.toBeNull();
        await expect(failed.locator('.spec').textContent()).resolves.toContain(FAILED_TEXT);
        await expect(failed.locator('pre.err').first().isVisible()).resolves.toBe(true);
        await expect(failed.locator('pre.err').first().textContent()).resolves.toContain('expected 401');
        await expect(evidence.isVisible()).resolves.toBe(true);
        await expect(evidence.locator('summary').textContent()).resolves.toContain('POST');
        await expect(failed.locator('p.more').textContent()).resolves.toBe(
          `${EXCHANGES - HTML_MAX_EXCHANGES_PER_TEST + DROPPED} more exchanges not shown.`,
        );

        await evidence.locator('summary').click();
        const body = evidence.locator('pre').nth(1);
        await expect(body.isVisible()).resolves.toBe(true);
        await expect(body.textContent()).resolves.toContain('more characters not shown');
        await expect(evidence.locator('pre').nth(0).textContent()).resolves.toContain(
          'content-type: application/json',
        );

        // Huge body, long URL, long error: each box stays within the page column and bounded in height.
        await assertNoHorizontalOverflow(page, 'failed requirement and its evidence expanded');
        const column = await page.locator('body').boundingBox();
        for (const box of [body, failed.locator('pre.err').first(), evidence.locator('summary')]) {
          const b = await box.boundingBox();
          expect(b).not.toBeNull();
          expect(b!.x + b!.width).toBeLessThanOrEqual(column!.x + column!.width + 1);
          expect(b!.height).toBeLessThanOrEqual(VIEWPORT.height);
        }
        // The exchange just below the sticky filter bar, as a person scrolls to it.
        await evidence.evaluate((e) => {
          const w = globalThis as unknown as { scrollY: number; scrollTo(x: number, y: number): void };
          w.scrollTo(0, e.getBoundingClientRect().top + w.scrollY - 60);
        });
        await s.screenshot('conformance-report-failed-evidence');

        await assertFilters(page, written);
        await filterBy(page, { verdict: 'failed' });
        await page.evaluate(() =>
          (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
        );
        await s.screenshot('conformance-report-filtered-failed');
        await filterBy(page, {});
        await s.screenshot('conformance-report-rendered', { fullPage: true });
        await assertAccessibleExpandedAndOffline(s);
      },
      { viewport: VIEWPORT },
    );
  }, 60_000);

  test('one failure: it is the first requirement in view at 1280×800; its link lands on its sentence', async () => {
    const reportDir = join(dir, 'first-in-view');
    const report = renderedReport();
    await writeReport(reportDir, report);
    const written = readReport(reportDir);
    await withPage(
      pathToFileURL(join(reportDir, 'conformance.html')).href,
      async (s) => {
        const { page } = s;
        // Without scrolling or filtering: requirement blocks inside the window, in reading order.
        expect((await requirementsInView(page))[0]).toBe('req-AUTH-REFRESH-ROTATES');
        await s.screenshot('conformance-rendered-one-failure');
        await assertReadable(page);
        assertBadge(reportDir, written);

        // Its sentence in the contract: the link lands on the statement that holds the quote.
        const failed = page.locator('#req-AUTH-REFRESH-ROTATES');
        await failed.locator('summary').first().click();
        await failed.locator('a.to-spec').click();
        const target = page.locator(':target');
        await expect(target.getAttribute('id')).resolves.toMatch(/^spec-L\d+$/);
        await expect(target.textContent()).resolves.toContain(
          'returns a new access_token and a new refresh_token',
        );
        await expect(target.getAttribute('data-outcome')).resolves.toBe('failed');
        await expect(target.isVisible()).resolves.toBe(true);
        const box = await target.boundingBox();
        expect(box!.y).toBeGreaterThanOrEqual(0);
        expect(box!.y + Math.min(box!.height, 100)).toBeLessThanOrEqual(800);
        await s.screenshot('conformance-rendered-contract');
        // And back: the statement names the requirement, linked to its verdict.
        await target.locator('a.cite-ref', { hasText: 'AUTH-REFRESH-ROTATES: failed' }).click();
        await expect(page.locator(':target').getAttribute('id')).resolves.toBe('req-AUTH-REFRESH-ROTATES');
        await assertAccessibleExpandedAndOffline(s);
      },
      { viewport: { width: 1280, height: 800 } },
    );
  }, 60_000);
});

// ---- The rendered report: every verdict, several areas, one failed MUST with hostile evidence ----

const FAILED_TEXT = 'A refresh token that was already used MUST be rejected with 401.';
const EXCHANGES = 20;
const DROPPED = 3;

function requirement(
  id: string,
  area: Requirement['area'],
  level: Requirement['level'],
  text: string,
): Requirement {
  return { id: fabricated(id), area, level, section: `${area} 1`, source: 'speak-v1', text };
}

const catalogue: Requirement[] = [
  requirement('AUTH-LOGIN-TOKENS', 'auth', 'MUST', 'Login answers an access and a refresh token.'),
  {
    ...requirement('AUTH-REFRESH-ROTATES', 'auth', 'MUST', FAILED_TEXT),
    quote: findRequirement('AUTH-REFRESH-ROTATES')?.quote,
  },
  requirement('TAKES-GENERATE-WAITING', 'takes', 'MUST', 'A new take starts in waiting.'),
  requirement('TAKES-STATUS-ORDER', 'takes', 'SHOULD', 'Statuses move forward only.'),
  requirement('TAKES-RETRY-AFTER', 'takes', 'INFO', 'What the server says about polling intervals.'),
  requirement('AUDIO-MP3', 'audio', 'MUST', 'A ready take has mp3 audio.'),
  requirement('AUDIO-RANGE', 'audio', 'SHOULD', 'Audio answers byte ranges.'),
];

function exchange(i: number): EvidenceEntry {
  // One unbroken 300 000-character token: no spaces, so nothing but the page's CSS can wrap it.
  const huge = `{"detail":"${'x'.repeat(300_000)}"}`;
  return {
    method: 'POST',
    url: `http://127.0.0.1:1/auth/refresh?attempt=${i}&padding=${'p'.repeat(2_000)}`,
    requestHeaders: { 'content-type': 'application/json', authorization: 'Bearer ‹redacted›' },
    requestBody: `{"refresh_token":"‹redacted›","note":"${'n'.repeat(5_000)}"}`,
    status: 200,
    headers: { 'content-type': 'application/json', 'x-long-header': 'h'.repeat(300) },
    body: huge,
    ms: 12 + i,
  };
}

function renderedReport(): ConformanceReport {
  const outcomes: TestOutcome[] = [
    testOutcome('suites/auth.spec.ts > login answers a token pair', 'passed', ['AUTH-LOGIN-TOKENS']),
    testOutcome(
      'suites/auth.spec.ts > a used refresh token is rejected',
      'failed',
      ['AUTH-REFRESH-ROTATES'],
      {
        errors: [
          `expected 401 for a refresh token used twice, got 200 with body ${'y'.repeat(10_000)} at POST /auth/refresh`,
        ],
        evidence: Array.from({ length: EXCHANGES }, (_, i) => exchange(i)),
        droppedEvidence: DROPPED,
        observations: [said(`second refresh answered 200 after ${'z'.repeat(3_000)}`)],
      },
    ),
    testOutcome('suites/takes.spec.ts > generate answers waiting', 'passed', ['TAKES-GENERATE-WAITING'], {
      characters: 12,
    }),
    testOutcome('suites/takes.spec.ts > status order', 'passed', ['TAKES-STATUS-ORDER']),
    testOutcome('suites/takes.spec.ts > polling hints', 'passed', ['TAKES-RETRY-AFTER'], {
      observations: [said('no Retry-After header')],
    }),
    testOutcome('suites/audio.spec.ts > mp3', 'skipped', ['AUDIO-MP3'], {
      observations: [said('ffmpeg unavailable')],
    }),
  ];
  const verdicts = computeVerdicts(catalogue, outcomes);
  return buildReport(verdicts, outcomes, {
    runId: 'page01',
    harness: '0.1.0 (abc1234)',
    baseUrl: 'http://127.0.0.1:1',
    target: 'remote',
    profile: 'strict',
    only: [],
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    durationMs: 60_000,
    exitCode: 1,
    errors: [],
  });
}
