/**
 * compare, vendors side by side (issue 51 item 8): runs of different servers are not one server's
 * releases, so they are not labelled with release words ("REGRESSION", "new failure"); the same
 * server over time keeps them. A run whose verdict is "… N MUST NOT JUDGED" (no reasons of its own)
 * says why it is not CONFORMS. A worse change is a regression only where the later run's profile
 * gates it (the standing's rules, issue 48).
 */
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/compare/diff.ts';
import { renderCompareMarkdown } from '../../src/compare/render-md.ts';
import { changeText, outcomeLine } from '../../src/compare/words.ts';
import { type Req, run } from './fixtures.ts';

const A: Req[] = [
  ['AUTH-LOGIN', 'MUST', 'passed'],
  ['AUTH-OTHER', 'MUST', 'passed'],
  ['LIST-STEADY', 'SHOULD', 'passed'],
];
const B: Req[] = [
  ['AUTH-LOGIN', 'MUST', 'failed', ['POST /auth/login → 403: expected 401, got 403']],
  ['AUTH-OTHER', 'MUST', 'not-observed'],
  ['LIST-STEADY', 'SHOULD', 'failed'],
];
const unjudged = { verdict: 'NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED', verdictReasons: [] };

describe('compare: vendors side by side', () => {
  const vendors = compareRuns([
    run('vendor-a', A, { baseUrl: 'https://speak.vendor-a.example' }),
    run('vendor-b', B, { baseUrl: 'https://api.vendor-b.example', ...unjudged }),
  ]);

  it('says which server does worse, in no release words', () => {
    expect(vendors.servers).toBe('different');
    const md = renderCompareMarkdown(vendors);
    expect(md).not.toMatch(/REGRESSION|regression|new failure/);
    expect(outcomeLine(vendors)).toMatch(
      /^WORSE THAN THE BASELINE: 2 requirement\(s\) at MUST, SHOULD, SECURITY/,
    );
    const login = vendors.changed.find((r) => r.id === 'AUTH-LOGIN')!.changes[0]!;
    expect(changeText(login, vendors.servers)).toBe('fails here, not in the baseline (passed → failed)');
  });

  it('fills "why not CONFORMS" for a verdict of what was not judged', () => {
    expect(vendors.runs[1]!.verdictReasons).toEqual(['1 MUST not judged: AUTH-OTHER']);
    expect(vendors.runs[0]!.verdictReasons).toEqual([]);
  });
});

describe('compare: one server over time', () => {
  const releases = compareRuns([
    run('v1', A),
    run('v2', B, { startedAt: '2026-11-27T10:00:00.000Z', ...unjudged }),
  ]);

  it('keeps the release words', () => {
    expect(releases.servers).toBe('same');
    expect(outcomeLine(releases)).toMatch(/^REGRESSION: 2 requirement\(s\) worse than the baseline/);
    expect(renderCompareMarkdown(releases)).toContain('new failure (passed → failed) **regression**');
  });

  it("counts a regression by the later run's profile: a lenient run's failed SHOULD does not gate", () => {
    const lenient = compareRuns([run('v1', A), run('v2', B, { profile: 'lenient' })]);
    expect(lenient.regressions.map((r) => r.id)).toEqual(['AUTH-LOGIN']);
    expect(releases.regressions.map((r) => r.id).sort()).toEqual(['AUTH-LOGIN', 'LIST-STEADY']);
  });
});
