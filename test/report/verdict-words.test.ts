/**
 * Issue 41, points 1, 6 and 8: one verdict sentence wherever it is shown, expected failures marked
 * as expected in every list, table rows that add up, markdown escaped only where markdown needs it.
 */
import { describe, expect, test } from 'vitest';
import { buildReport, type RunInfo } from '../../src/report/model.ts';
import { renderHtml } from '../../src/report/render-html.ts';
import { mdCell, renderMarkdown } from '../../src/report/render-md.ts';
import { notJudgedLines, securityLine, summaryTable } from '../../src/report/summary-table.ts';
import { verdictLine, verdictSentence } from '../../src/report/verdict-line.ts';
import type { Requirement } from '../../src/requirements/types.ts';
import type { Conclusion } from '../../src/verdict/conclusion.ts';
import { gate } from '../../src/verdict/gate.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { testOutcome as outcome } from '../support/test-outcome.ts';

const req = (id: string, level: Requirement['level'], area: Requirement['area']): Requirement => ({
  id: fabricated(id),
  area,
  section: 'Audio rules 1',
  level,
  source: 'speak-v1',
  text: `text of ${id}`,
});
const blockedBy = (by: string): Conclusion => ({ kind: 'blocked', by });

const catalogue = [
  req('AUDIO-A', 'MUST', 'audio'),
  req('AUDIO-B', 'MUST', 'audio'),
  req('AUDIO-C', 'SHOULD', 'audio'),
  req('SEC-X', 'SECURITY', 'security'),
  req('SEC-Y', 'SECURITY', 'security'),
];
/** A fails (a 302), B and C blocked by it, one security check leaks, the other holds. */
const outcomes = [
  outcome('suites/audio.spec.ts > a', 'failed', ['AUDIO-A']),
  outcome('suites/audio.spec.ts > b c', 'failed', ['AUDIO-B', 'AUDIO-C'], {
    conclusions: { 'AUDIO-B': [blockedBy('got 302')], 'AUDIO-C': [blockedBy('got 302')] },
  }),
  outcome('suites/security.spec.ts > x', 'failed', ['SEC-X']),
  outcome('suites/security.spec.ts > y', 'passed', ['SEC-Y']),
];

function run(over: Partial<RunInfo> = {}): RunInfo {
  return {
    runId: 'r1',
    harness: '0.1.0',
    baseUrl: 'http://127.0.0.1:1',
    target: 'remote',
    profile: 'strict',
    only: [],
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:10.000Z',
    durationMs: 10_000,
    exitCode: 1,
    errors: [],
    ...over,
  };
}

describe('the verdict sentence', () => {
  const verdicts = computeVerdicts(catalogue, outcomes, { profile: 'strict' });
  const gated = gate(verdicts, 'strict');
  const report = buildReport(verdicts, outcomes, {
    ...run({ exitCode: gated.exitCode }),
    verdict: gated.words,
    verdictReasons: gated.reasons,
  });
  const sentence =
    'DOES NOT CONFORM (exit 1, strict profile; 1 MUST failed, 1 MUST blocked; 1 SHOULD blocked; 1 security check failed)';

  test('leads with the MUSTs, failed and blocked counted, each count with its level', () => {
    expect(verdictLine(report.run)).toBe(`verdict: ${sentence}`);
  });

  test('conformance.md (the job summary) and conformance.html say the same words', () => {
    expect(renderMarkdown(report).replace(/\*\*/g, '')).toContain(`- Verdict: ${sentence}`);
    expect(renderHtml(report)).toContain(`<p class="why">Verdict: ${sentence}</p>`);
    expect(renderHtml(report)).toContain('<h1>Speak v1 conformance report: DOES NOT CONFORM</h1>');
  });

  test('a plain CONFORMS stays two words', () => {
    expect(verdictSentence(run({ exitCode: 0, verdict: 'CONFORMS' }))).toBe('CONFORMS');
  });
});

describe('expected failures, marked wherever they are shown', () => {
  const verdicts = computeVerdicts(catalogue, outcomes, {
    profile: 'strict',
    expect: {
      file: 'speakcheck.expect.yaml',
      entries: ['AUDIO-A', 'AUDIO-B', 'AUDIO-C', 'SEC-X'].map((requirement) => ({
        requirement,
        reason: 'known 302',
      })),
    },
  });
  const expect_ = verdicts.expect!;
  const gated = gate(verdicts, 'strict');
  const report = buildReport(verdicts, outcomes, {
    ...run({ exitCode: gated.exitCode }),
    verdict: gated.words,
    verdictReasons: gated.reasons,
    expect: expect_,
  });

  // Issue 51: with an expect file the headline says what happened, never "no MUST failed" while
  // MUSTs failed (expected), also when something is left unjudged.
  test('the verdict line says what failed as expected, and how many failures the expect file made expected', () => {
    expect(gated.exitCode).toBe(0);
    expect(verdictLine(report.run)).toBe(
      'verdict: NO UNEXPECTED FAILURE — 1 MUST failed, 1 MUST blocked, 1 SHOULD blocked, 1 security check failed as expected; 1 MUST, 1 SHOULD NOT JUDGED (exit 0, strict profile; 4 failures expected by speakcheck.expect.yaml)',
    );
    expect(renderMarkdown(report).replace(/\*\*/g, '')).toContain(
      '- Verdict: NO UNEXPECTED FAILURE — 1 MUST failed, 1 MUST blocked, 1 SHOULD blocked, 1 security check failed as expected; 1 MUST, 1 SHOULD NOT JUDGED (exit 0, strict profile; 4 failures expected by speakcheck.expect.yaml)',
    );
  });

  test('the not-judged lists say "blocked, expected", as the table says expected', () => {
    expect(notJudgedLines(verdicts.requirements)).toContain(
      '  AUDIO-B (MUST, blocked, expected): b c: blocked by: got 302',
    );
    expect(renderMarkdown(report)).toMatch(/\| AUDIO-B \| MUST \| blocked, expected \|/);
    const html = renderHtml(report);
    expect(html).toContain(
      '<b>Expected failure</b> (listed in the expect file; does not gate the run): Expected (known 302): blocked: ',
    );
    expect(html).toContain("Nothing new: the run's 4 failures are expected");
    // The area bars' counts: an expected failure stays failed, an expected block stays blocked
    // (issue 48: the block is no longer lost), each said to be expected.
    expect(html).toMatch(/<span class="counts">1 failed \(1 expected\) · 2 blocked \(2 expected\)<\/span>/);
    expect(html).not.toContain('none failed');
    expect(securityLine(verdicts.requirements, 'strict')).toBe(
      'security (tenant isolation, OWASP API1:2023): 2 checks: 1 passed, 0 failed (and 1 expected), 0 blocked, 0 not judged; gating (strict profile)',
    );
    const table = summaryTable(verdicts.requirements, verdicts.summary);
    expect(table.split('\n')[0]).toMatch(/\bexpected\b/);
  });
});

describe('the summary table', () => {
  test('the security row counts its checks in the judged column, and the rows add up to the total', () => {
    const verdicts = computeVerdicts(catalogue, outcomes, { profile: 'strict' });
    const rows = summaryTable(verdicts.requirements, verdicts.summary).split('\n');
    const judged = (name: string) =>
      rows
        .find((l) => l.startsWith(name))!
        .trim()
        .split(/\s+/)
        .at(-1);
    expect(judged('security')).toBe('2/2');
    expect(judged('audio')).toBe('1/3');
    expect(judged('total')).toBe('3/5');
  });

  test('html: judged per area counts the security checks too', () => {
    const verdicts = computeVerdicts(catalogue, outcomes, { profile: 'strict' });
    const html = renderHtml(buildReport(verdicts, outcomes, run()));
    expect(html).toMatch(/<td>security<\/td><td>.*?<\/td><td>2\/2 judged<\/td>/);
  });
});

describe('markdown escapes only where markdown needs them', () => {
  test('inside a code span nothing is escaped but the table pipe (GitHub shows it literally)', () => {
    expect(mdCell('send `Authorization: Bearer <ACCESS_TOKEN>` on every call')).toBe(
      'send `Authorization: Bearer <ACCESS_TOKEN>` on every call',
    );
    expect(mdCell('`a|b` and a|b')).toBe('`a\\|b` and a\\|b');
  });

  test('outside, only what would open markup: a tag, an entity, a leading quote marker', () => {
    expect(mdCell('<script>x</script> & 1 < 2 > 0 &amp;')).toBe(
      '&lt;script>x&lt;/script> & 1 < 2 > 0 &amp;amp;',
    );
    expect(mdCell('> quoted')).toBe('\\> quoted');
  });

  test("conformance.md shows a requirement's code span as written", () => {
    const token = req('AUTH-T', 'MUST', 'auth');
    token.text = 'Every request needs `Authorization: Bearer <ACCESS_TOKEN>`.';
    const passed = [outcome('t', 'passed', ['AUTH-T'])];
    const md = renderMarkdown(buildReport(computeVerdicts([token], passed), passed, run({ exitCode: 0 })));
    expect(md).toContain('`Authorization: Bearer <ACCESS_TOKEN>`');
    expect(md).not.toContain('&lt;ACCESS_TOKEN&gt;');
  });
});
