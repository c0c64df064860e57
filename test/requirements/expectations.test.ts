import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { baselineEntries } from '../../src/cli/commands/expect.ts';
import { ConfigError } from '../../src/config/errors.ts';
import { expectFilePath, loadExpectFile, parseExpectations } from '../../src/config/expect-file.ts';
import type { Expectation } from '../../src/config/types.ts';
import { EXIT } from '../../src/exit-codes.ts';
import type { ConformanceReport } from '../../src/report/model.ts';
import { upgradeReport } from '../../src/report/report-version.ts';
import type { Requirement } from '../../src/requirements/types.ts';
import { expectLines } from '../../src/verdict/expectations.ts';
import { gate } from '../../src/verdict/gate.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { testOutcome as outcome } from '../support/test-outcome.ts';

const req = (id: string, level: Requirement['level']): Requirement => ({
  id: fabricated(id),
  area: 'auth',
  section: 'Authentication 1',
  level,
  source: 'speak-v1',
  text: `text of ${id}`,
});

const catalogue = [req('AUTH-A', 'MUST'), req('AUTH-B', 'MUST'), req('AUTH-C', 'SHOULD')];
const outcomes = [
  outcome('a fails', 'failed', ['AUTH-A']),
  outcome('b passes', 'passed', ['AUTH-B']),
  outcome('c fails', 'failed', ['AUTH-C']),
];
const verdicts = computeVerdicts(catalogue, outcomes);
const now = new Date('2026-11-24T12:00:00Z');

/** The fold with the expect file's entries applied (src/verdict/fold.ts), and what the file did. */
function withExpect(outs: typeof outcomes, entries: Expectation[], file: string, at: Date) {
  const v = computeVerdicts(catalogue, outs, { expect: { file, entries }, now: at });
  return { verdicts: v, outcome: v.expect! };
}

describe('the expect file in the fold', () => {
  test('without an expect file the failures fail the run', () => {
    expect(gate(verdicts, 'strict').exitCode).toBe(EXIT.failed);
  });

  test('every failure expected: exit 0, status expected-failure keeping the original message', () => {
    const { verdicts: v, outcome: o } = withExpect(
      outcomes,
      [
        { requirement: 'AUTH-A', reason: 'known bug', link: 'https://tracker/1' },
        { requirement: 'AUTH-C', reason: 'later', expires: '2026-11-24' },
      ],
      'x.yaml',
      now,
    );
    expect(gate(v, 'strict', { expiredExpectations: o.expired.length }).exitCode).toBe(EXIT.ok);
    const a = v.requirements.find((r) => r.id === fabricated('AUTH-A'))!;
    expect(a.status).toBe('expected-failure');
    expect(a.message).toBe('Expected (known bug, https://tracker/1): a fails: a fails broke');
    expect(v.summary).toMatchObject({ failed: 0, expectedFailures: 2, mustFailed: 0, shouldFailed: 0 });
    expect(o.expected).toEqual(['AUTH-A', 'AUTH-C']);
    expect(o.unexpectedPasses).toEqual([]);
  });

  test('a failure not listed still fails the run', () => {
    const { verdicts: v } = withExpect(outcomes, [{ requirement: 'AUTH-C', reason: 'r' }], 'x.yaml', now);
    expect(gate(v, 'strict').exitCode).toBe(EXIT.failed);
    expect(v.summary.mustFailed).toBe(1);
  });

  test('a run whose only failures were expected does not say CONFORMS: it says they were expected', () => {
    const { verdicts: v, outcome: o } = withExpect(
      outcomes,
      [
        { requirement: 'AUTH-A', reason: 'known bug' },
        { requirement: 'AUTH-C', reason: 'later' },
      ],
      'x.yaml',
      now,
    );
    const gated = gate(v, 'strict', { expiredExpectations: o.expired.length });
    expect(gated).toEqual({
      exitCode: EXIT.ok,
      words: 'NO UNEXPECTED FAILURE — 1 MUST failed, 1 SHOULD failed as expected',
      reasons: [],
    });
    expect(gate(verdicts, 'strict').words).toBe('DOES NOT CONFORM');
  });

  test('an expected failure that passes is an unexpected pass, reported, exit unchanged', () => {
    const { verdicts: v, outcome: o } = withExpect(
      outcomes,
      [
        { requirement: 'AUTH-A', reason: 'r' },
        { requirement: 'AUTH-B', reason: 'was broken' },
        { requirement: 'AUTH-C', reason: 'r' },
      ],
      'x.yaml',
      now,
    );
    expect(o.unexpectedPasses.map((e) => e.requirement)).toEqual(['AUTH-B']);
    expect(v.requirements.find((r) => r.id === fabricated('AUTH-B'))!.status).toBe('passed');
    expect(gate(v, 'strict', { expiredExpectations: o.expired.length }).exitCode).toBe(EXIT.ok);
    expect(expectLines(o).alerts).toEqual(['*** unexpected pass: AUTH-B passed: remove it from x.yaml ***']);
  });

  test('an expired entry is not applied and fails the run, saying which', () => {
    const { verdicts: v, outcome: o } = withExpect(
      outcomes,
      [
        { requirement: 'AUTH-A', reason: 'r', expires: '2026-11-23' },
        { requirement: 'AUTH-C', reason: 'r' },
      ],
      'x.yaml',
      now,
    );
    expect(v.requirements.find((r) => r.id === fabricated('AUTH-A'))!.status).toBe('failed');
    expect(o.expired.map((e) => e.requirement)).toEqual(['AUTH-A']);
    expect(gate(v, 'strict', { expiredExpectations: o.expired.length }).exitCode).toBe(EXIT.failed);
    expect(expectLines(o).alerts[0]).toMatch(
      /expired: the expected failure AUTH-A in x\.yaml expired on 2026-11-23/,
    );
  });

  test('an expired entry whose requirement passes still fails the run', () => {
    const { verdicts: v, outcome: o } = withExpect(
      outcomes,
      [
        { requirement: 'AUTH-A', reason: 'r' },
        { requirement: 'AUTH-C', reason: 'r' },
        { requirement: 'AUTH-B', reason: 'r', expires: '2020-01-01' },
      ],
      'x.yaml',
      now,
    );
    expect(gate(v, 'strict', { expiredExpectations: o.expired.length }).exitCode).toBe(EXIT.failed);
  });

  test('a blocked requirement can be expected too', () => {
    const blockedOutcomes = [
      outcome('a blocked', 'failed', ['AUTH-A'], {
        conclusions: { 'AUTH-A': [{ kind: 'blocked' as const, by: 'login failed' }] },
      }),
      outcome('b passes', 'passed', ['AUTH-B', 'AUTH-C']),
    ];
    const blocked = computeVerdicts(catalogue, blockedOutcomes);
    expect(blocked.requirements[0]!.status).toBe('blocked');
    const { verdicts: v } = withExpect(
      blockedOutcomes,
      [{ requirement: 'AUTH-A', reason: 'r' }],
      'x.yaml',
      now,
    );
    expect(v.requirements[0]!.status).toBe('expected-failure');
    expect(v.requirements[0]!.message).toContain('blocked: ');
    expect(gate(v, 'strict').exitCode).toBe(EXIT.ok);
  });
});

describe('the expect file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'speakcheck-expect-'));

  test('YAML and JSON read alike; dates as YAML timestamps or strings', () => {
    const yaml = join(dir, 'a.yaml');
    writeFileSync(
      yaml,
      '- requirement: auth-bearer-required\n  reason: known\n  expires: 2027-01-31\n- requirement: AUTH-INVALID-TOKEN-401\n  reason: also\n  link: https://x/2\n',
    );
    const json = join(dir, 'a.json');
    writeFileSync(
      json,
      JSON.stringify([
        { requirement: 'AUTH-BEARER-REQUIRED', reason: 'known', expires: '2027-01-31' },
        { requirement: 'AUTH-INVALID-TOKEN-401', reason: 'also', link: 'https://x/2' },
      ]),
    );
    const expected = [
      { requirement: 'AUTH-BEARER-REQUIRED', reason: 'known', expires: '2027-01-31' },
      { requirement: 'AUTH-INVALID-TOKEN-401', reason: 'also', link: 'https://x/2' },
    ];
    expect(loadExpectFile(yaml)).toEqual(expected);
    expect(loadExpectFile(json)).toEqual(expected);
  });

  test('an unknown id is an invalid option naming the closest known ids', () => {
    expect(() => parseExpectations([{ requirement: 'AUTH-BEARER-REQUIRD', reason: 'r' }], 'f.yaml')).toThrow(
      /unknown requirement id AUTH-BEARER-REQUIRD \(did you mean AUTH-BEARER-REQUIRED/,
    );
    expect(() => parseExpectations([{ requirement: 'X', reason: 'r' }], 'f.yaml')).toThrow(ConfigError);
  });

  test('malformed entries say what is wrong', () => {
    expect(() => parseExpectations({ a: 1 }, 'f')).toThrow(/must be a list/);
    expect(() => parseExpectations([{ requirement: 'AUTH-BEARER-REQUIRED' }], 'f')).toThrow(/"reason"/);
    expect(() =>
      parseExpectations([{ requirement: 'AUTH-BEARER-REQUIRED', reason: 'r', expires: 'soon' }], 'f'),
    ).toThrow(/"expires" must be a date/);
    expect(() =>
      parseExpectations([{ requirement: 'AUTH-BEARER-REQUIRED', reason: 'r', why: 1 }], 'f'),
    ).toThrow(/unknown field why/);
    expect(() =>
      parseExpectations(
        [
          { requirement: 'AUTH-BEARER-REQUIRED', reason: 'r' },
          { requirement: 'AUTH-BEARER-REQUIRED', reason: 'r' },
        ],
        'f',
      ),
    ).toThrow(/listed twice/);
  });

  test('speakcheck.expect.yaml in the working directory is found by default', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'speakcheck-expect-cwd-'));
    expect(expectFilePath(undefined, cwd)).toBeUndefined();
    writeFileSync(join(cwd, 'speakcheck.expect.yaml'), '[]\n');
    expect(expectFilePath(undefined, cwd)).toBe(join(cwd, 'speakcheck.expect.yaml'));
    expect(expectFilePath('other.json', cwd)).toBe(join(cwd, 'other.json'));
  });
});

describe('speakcheck expect --from', () => {
  test('the baseline lists failed and blocked MUST/SHOULD requirements, not INFO', () => {
    // A report as an older speakcheck wrote it (labels only), read through the versioned reader.
    const report = upgradeReport({
      run: { runId: 'r1', startedAt: '2026-11-24T00:00:00Z', profile: 'strict' },
      requirements: [
        { id: 'AUTH-A', level: 'MUST', status: 'failed', message: 'x', tests: ['t'] },
        { id: 'AUTH-B', level: 'SHOULD', status: 'blocked', message: 'x', tests: ['t'] },
        { id: 'AUTH-C', level: 'MUST', status: 'passed', message: 'x', tests: ['t'] },
        { id: 'AUTH-D', level: 'INFO', status: 'failed', message: 'x', tests: ['t'] },
      ],
    } as unknown as ConformanceReport);
    const entries = baselineEntries(report);
    expect(entries.map((e) => e.requirement)).toEqual(['AUTH-A', 'AUTH-B']);
    expect(entries[0]!.reason).toMatch(/^generated by speakcheck expect from run r1/);
  });
});
