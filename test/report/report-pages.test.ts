/**
 * The report's pages for a buyer: the badge says the run's counts, the contract view anchors every
 * statement each requirement quotes, and what to act on comes first in the right order.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { badgeEndpointJson, badgeOf, renderBadgeSvg } from '../../src/report/badge.ts';
import {
  CONTRACT_PATH,
  parseContract,
  plainWords,
  readContract,
  renderContract,
} from '../../src/report/contract.ts';
import type { ConformanceReport, ReportedRequirement } from '../../src/report/model.ts';
import { renderHtml, toActOn } from '../../src/report/render-html.ts';
import { upgradeRequirement } from '../../src/report/report-version.ts';
import { writeReport } from '../../src/report/write.ts';
import { catalogue } from '../../src/requirements/index.ts';
import type { VerdictStatus } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { testOutcome } from '../support/test-outcome.ts';

/** A requirement as a version-1 report wrote it (its label only), read as the current model. */
function req(id: string, level: 'MUST' | 'SHOULD' | 'INFO', status: VerdictStatus): ReportedRequirement {
  return upgradeRequirement({
    id: fabricated(id),
    area: 'auth',
    level,
    section: 's',
    source: 'speak-v1',
    text: id,
    status,
    tests: [],
    message: '',
    covered: true,
    observations: [],
  });
}

/** A requirement quoting the contract, with the verdict a report labelled `status` carries. */
function cite(id: string, status: VerdictStatus, quote: string | undefined) {
  const { level, decided, covered } = req(id, 'MUST', status);
  return {
    id,
    level,
    covered: status === 'skipped' ? false : covered,
    ...(decided ? { decided } : {}),
    quote,
  };
}

function report(requirements: ReportedRequirement[], exitCode = 0, only: string[] = []): ConformanceReport {
  return {
    requirements,
    run: {
      runId: 'r',
      harness: 'h',
      baseUrl: 'http://127.0.0.1:1',
      target: 'remote',
      profile: 'strict',
      only,
      startedAt: '',
      finishedAt: '',
      durationMs: 0,
      exitCode,
      errors: [],
    },
  } as unknown as ConformanceReport;
}

describe('badge', () => {
  test("says MUST passed of the run's MUSTs (not judged counts as not passed) and the profile; green only when all passed", () => {
    const all = report([
      req('A', 'MUST', 'passed'),
      req('B', 'MUST', 'passed'),
      req('C', 'SHOULD', 'failed'),
    ]);
    expect(badgeOf(all)).toMatchObject({ message: '2/2 MUST · strict', color: '#1a7f37', mustPassed: 2 });
    const failed = report([req('A', 'MUST', 'passed'), req('B', 'MUST', 'blocked')], 1);
    expect(badgeOf(failed)).toMatchObject({ message: '1/2 MUST · strict', color: '#cf222e' });
    const unjudged = report([req('A', 'MUST', 'passed'), req('B', 'MUST', 'skipped')]);
    expect(badgeOf(unjudged)).toMatchObject({ message: '1/2 MUST · strict', color: '#9a6700' });
    expect(badgeOf(report([req('A', 'MUST', 'passed')], 0, ['auth'])).message).toBe(
      '1/1 MUST · strict · subset',
    );
  });

  test('svg and shields endpoint file carry the same words', () => {
    const b = badgeOf(report([req('A', 'MUST', 'passed'), req('B', 'MUST', 'failed')], 1));
    expect(JSON.parse(badgeEndpointJson(b))).toEqual({
      schemaVersion: 1,
      label: 'Speak v1',
      message: '1/2 MUST · strict',
      color: 'cf222e',
    });
    const svg = renderBadgeSvg(b);
    expect(svg).toContain('>1/2 MUST · strict</text>');
    expect(svg).not.toMatch(/href|<script|url\(/);
  });

  test('written beside every report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-badge-'));
    try {
      const r = {
        ...report([req('A', 'MUST', 'passed'), req('B', 'MUST', 'failed')], 1),
        summary: { characters: 0, tests: { passed: 0, failed: 0, skipped: 0 } },
        tests: [],
        problems: [],
        uncovered: [],
      } as unknown as ConformanceReport;
      const files = await writeReport(dir, r);
      expect(files).toEqual(expect.arrayContaining([join(dir, 'badge.svg'), join(dir, 'badge.json')]));
      expect(JSON.parse(readFileSync(join(dir, 'badge.json'), 'utf8')).message).toBe('1/2 MUST · strict');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('contract view', () => {
  const markdown = readContract();

  test('speak-v1.md is found beside the checkout', () => {
    expect(markdown, CONTRACT_PATH).toBeTypeOf('string');
  });

  test('every MUST and SHOULD quote lands on one anchored statement that holds it', () => {
    const statements = parseContract(markdown!).flatMap((b) => b.statements);
    const cited = catalogue.filter((r) => r.quote).map((r) => cite(r.id, 'passed', r.quote));
    const { anchors, html } = renderContract(markdown!, cited);
    const missing = cited.filter((r) => !anchors.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
    for (const r of cited) {
      const s = statements.find((x) => x.anchor === anchors.get(r.id))!;
      expect(plainWords(s.raw)).toContain(plainWords(r.quote!));
      expect(html).toContain(`id="${s.anchor}" class="cited o-passed"`);
    }
  });

  test('a statement shows the worst verdict of the requirements quoting it', () => {
    const md = '# T\n\n| a | b |\n|---|---|\n| x | y |\n\nOne sentence. `Two` sentence.\n';
    const { html, anchors } = renderContract(md, [
      cite('R1', 'passed', '| x | y |'),
      cite('R2', 'blocked', '| x | y |'),
      cite('R3', 'skipped', '`Two` sentence.'),
    ]);
    expect(anchors.get('R1')).toBe('spec-L5');
    expect(html).toContain('<tr id="spec-L5" class="cited o-blocked"');
    expect(html).toContain('<p id="spec-L7" class="cited o-not-judged"');
    expect(html).toContain('<code>Two</code>');
    expect(html).toContain('href="#req-R2"');
  });
});

describe('act on first', () => {
  test('failed, then blocked, then not judged; MUST before SHOULD; passed, info and expected failures left out', () => {
    const order = toActOn([
      req('P', 'MUST', 'passed'),
      req('S1', 'SHOULD', 'skipped'),
      req('B', 'MUST', 'blocked'),
      req('F2', 'SHOULD', 'failed'),
      req('N', 'MUST', 'not-applicable'),
      req('F1', 'MUST', 'failed'),
      req('E', 'MUST', 'expected-failure'),
      req('I', 'INFO', 'info'),
      req('H', 'MUST', 'harness-error'),
    ]).map((r) => r.id);
    expect(order).toEqual(['F1', 'F2', 'B', 'N', 'H', 'S1']);
  });
});

describe('page size', () => {
  test("a passed requirement's exchanges stay in conformance.json; a failed one's are on the page", () => {
    const exchange = (marker: string) => ({
      method: 'GET',
      url: 'http://127.0.0.1:1/v1/speak/models',
      requestHeaders: {},
      status: 200,
      headers: {},
      body: `${marker}${'b'.repeat(1_000)}`,
      ms: 1,
    });
    // The key is the bare id: the requirements below name their tests by it.
    const outcome = (key: string, state: 'passed' | 'failed', marker: string) =>
      testOutcome(`suites/models.spec.ts > ${key}`, state, [key], {
        key,
        evidence: Array.from({ length: 10 }, () => exchange(marker)),
      });
    const r = {
      ...report([
        { ...req('PASSING', 'MUST', 'passed'), tests: ['PASSING'] },
        { ...req('FAILING', 'MUST', 'failed'), tests: ['FAILING'] },
      ]),
      summary: { characters: 0, tests: { passed: 1, failed: 1, skipped: 0 } },
      tests: [outcome('PASSING', 'passed', 'PASSED-BODY'), outcome('FAILING', 'failed', 'FAILED-BODY')],
      problems: [],
      uncovered: [],
    } as unknown as ConformanceReport;
    const html = renderHtml(r);
    expect(html).not.toContain('PASSED-BODY');
    expect(html).toContain('10 exchanges in conformance.json');
    expect(html).toContain('FAILED-BODY');
  });
});
