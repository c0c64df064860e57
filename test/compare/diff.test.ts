/**
 * The comparison of conformance runs on small hand-made reports: the direction of every kind of
 * change, requirements only one run has, the --fail-on levels, worst-first order and the headers.
 */
import { describe, expect, it } from 'vitest';
import { type Change, classify, compareRuns, runHeader } from '../../src/compare/diff.ts';
import { OBSERVATIONS_NOT_COMPARED } from '../../src/compare/observations.ts';
import { type Observation, observation, type Shown } from '../../src/evidence/observation.ts';
import type { VerdictStatus } from '../../src/verdict/verdict.ts';
import { type Req, run } from './fixtures.ts';

/** The change of one requirement from one status to another (at `level`). */
function change(from: VerdictStatus, to: VerdictStatus, level: Req[1] = 'MUST'): Change | undefined {
  const c = compareRuns([run('a', [['AUTH-X', level, from]]), run('b', [['AUTH-X', level, to]])]);
  return c.rows[0]!.changes[0];
}

describe('compare: the direction of each change against the baseline', () => {
  it.each([
    ['passed', 'failed', 'new-failure', 'worse'],
    ['skipped', 'failed', 'new-failure', 'worse'],
    ['blocked', 'failed', 'new-failure', 'worse'],
    ['not-observed', 'non-strict', 'new-failure', 'worse'],
    ['failed', 'passed', 'fixed', 'better'],
    ['expected-failure', 'passed', 'fixed', 'better'],
    ['passed', 'skipped', 'no-longer-judged', 'neither'],
    ['passed', 'blocked', 'no-longer-judged', 'worse'],
    ['passed', 'not-concluded', 'no-longer-judged', 'neither'],
    ['passed', 'not-observed', 'no-longer-judged', 'neither'],
    ['failed', 'blocked', 'no-longer-judged', 'neither'],
    ['failed', 'harness-error', 'no-longer-judged', 'neither'],
    ['not-applicable', 'passed', 'newly-judged', 'better'],
    ['blocked', 'passed', 'newly-judged', 'better'],
    ['failed', 'non-strict', 'verdict-changed', 'neither'],
    ['failed', 'expected-failure', 'verdict-changed', 'neither'],
    ['skipped', 'not-applicable', 'verdict-changed', 'neither'],
    ['blocked', 'skipped', 'verdict-changed', 'neither'],
  ] as const)('%s → %s is %s (%s)', (from, to, kind, direction) => {
    expect(change(from, to)).toMatchObject({ run: 1, kind, direction, from, to });
  });

  it('the same verdict is no change', () => {
    for (const status of ['passed', 'failed', 'blocked', 'skipped'] as const) {
      expect(change(status, status)).toBeUndefined();
    }
  });

  it('a worse change is a regression at MUST, SHOULD and SECURITY by default, never at INFO', () => {
    expect(change('passed', 'failed', 'MUST')?.regression).toBe(true);
    expect(change('passed', 'failed', 'SHOULD')?.regression).toBe(true);
    expect(change('passed', 'failed', 'SECURITY')?.regression).toBe(true);
    expect(change('passed', 'blocked', 'SECURITY')?.regression).toBe(true);
    // Not judged for the run's own reasons (a state it did not catch): shown, not a regression.
    expect(change('passed', 'not-observed', 'MUST')?.regression).toBe(false);
    expect(change('info', 'skipped', 'INFO')).toMatchObject({ kind: 'no-longer-judged', regression: false });
    // Better and neither are never regressions.
    expect(change('failed', 'passed', 'MUST')?.regression).toBe(false);
    expect(change('failed', 'blocked', 'MUST')?.regression).toBe(false);
  });
});

describe('compare: observations', () => {
  const info = (observations: Observation[]) => ({ status: 'info' as const, observations });
  const pageBase = (first: number, particulars: Record<string, Shown> = {}) =>
    observation('lists.page-base', 'first page number: {first}; no length gives {unlimited}', {
      values: { first },
      particulars: { unlimited: 3, ...particulars },
    });

  it("an INFO's observation whose value differs is an observation change, neither better nor worse", () => {
    expect(classify(info([pageBase(1)]), info([pageBase(0)]), 'INFO')).toMatchObject({
      kind: 'observation-changed',
      direction: 'neither',
    });
    const status = (s: number) => observation('errors.invalid-body', 'invalid body: {s}', { values: { s } });
    expect(classify(info([status(422)]), info([status(400)]), 'INFO')?.kind).toBe('observation-changed');
  });

  it('an observation one run has and the other has not is an observation change', () => {
    const once = observation('websocket.one-model', 'the server offers one model');
    expect(classify(info([pageBase(1), once]), info([pageBase(1)]), 'INFO')?.kind).toBe(
      'observation-changed',
    );
  });

  it('two runs differing only in particulars compare equal: ids, origins, timings, sizes, seeds, order', () => {
    const login = (origin: string) =>
      observation('auth.login', 'login at {origin}/auth/login answered a token pair.', {
        particulars: { origin },
      });
    const seed = (n: number) =>
      observation('property.seed', '{label}: fast-check seed {seed}', {
        values: { label: 'voices: generated name' },
        particulars: { seed: n },
      });
    const a = [login('http://127.0.0.1:44755'), pageBase(1, { unlimited: 932, takeId: 'tk_4e6d9' }), seed(1)];
    const b = [
      seed(725852566),
      pageBase(1, { unlimited: 957, takeId: 'tk_6b510' }),
      login('http://127.0.0.1:42077'),
    ];
    expect(classify(info(a), info(b), 'INFO')).toBeUndefined();
  });

  it("what one run happened to catch is never compared (a poll's snapshot, a retry, a race of timings)", () => {
    const retry = observation(
      'audio.take-too-quick',
      'a take of {n} characters was ready; trying a longer one',
      {
        particulars: { n: 84 },
        caught: true,
      },
    );
    expect(classify(info([pageBase(1), retry]), info([pageBase(1)]), 'INFO')).toBeUndefined();
  });

  it('the same observation repeated (two tests of one requirement) is one', () => {
    expect(classify(info([pageBase(1), pageBase(1)]), info([pageBase(1)]), 'INFO')).toBeUndefined();
  });

  it("a judged requirement's observations are never compared: its verdict is", () => {
    const passed = (observations: Observation[]) => ({ status: 'passed' as const, observations });
    const lag = (l: string) => observation('webhooks.lag', 'done call {l}', { values: { l } });
    expect(classify(passed([lag('4 ms after')]), passed([lag('229 ms before')]), 'SHOULD')).toBeUndefined();
  });

  it('observations of a report that predates keyed observations are not compared, and the comparison says so', () => {
    const older = run('a', [['LISTS-X', 'INFO', 'info', ['first page number: 1']]]);
    const newer = run('b', [['LISTS-X', 'INFO', 'info', ['first page number: 0']]]);
    const c = compareRuns([{ ...older, report: { ...older.report, writtenAs: 2 } }, newer]);
    expect(c.changed).toEqual([]);
    expect(c.notes).toEqual([OBSERVATIONS_NOT_COMPARED]);
    expect(compareRuns([older, newer]).notes).toEqual([]);
  });
});

describe('compare: requirements only one run has', () => {
  const c = compareRuns([
    run('old', [
      ['AUTH-A', 'MUST', 'passed'],
      ['AUTH-GONE', 'MUST', 'failed'],
    ]),
    run('new', [
      ['AUTH-A', 'MUST', 'passed'],
      ['AUTH-NEW', 'MUST', 'failed'],
      ['LIST-NEW', 'SHOULD', 'passed'],
    ]),
  ]);

  it('are shown as such, never as passed or failed, and are no regression', () => {
    const gone = c.rows.find((r) => r.id === 'AUTH-GONE')!;
    expect(gone.cells[1]).toEqual({});
    expect(gone.changes).toEqual([
      {
        run: 1,
        kind: 'only-in-baseline',
        direction: 'neither',
        from: 'failed',
        to: undefined,
        regression: false,
      },
    ]);
    const added = c.rows.find((r) => r.id === 'AUTH-NEW')!;
    expect(added.cells[0]).toEqual({});
    expect(added.cells[1]?.status).toBe('failed');
    expect(added.changes[0]).toMatchObject({ kind: 'only-in-run', direction: 'neither', regression: false });
    expect(c.regressions).toEqual([]);
  });

  it("list the baseline's requirements first, then those only later runs have", () => {
    expect(c.rows.map((r) => r.id)).toEqual(['AUTH-A', 'AUTH-GONE', 'AUTH-NEW', 'LIST-NEW']);
    expect(c.changed.map((r) => r.id).sort()).toEqual(['AUTH-GONE', 'AUTH-NEW', 'LIST-NEW']);
  });
});

describe('compare: --fail-on', () => {
  const runs = [
    run('base', [
      ['AUTH-MUST', 'MUST', 'passed'],
      ['AUTH-SHOULD', 'SHOULD', 'passed'],
      ['AUTH-SEC', 'SECURITY', 'passed'],
    ]),
    run('next', [
      ['AUTH-MUST', 'MUST', 'passed'],
      ['AUTH-SHOULD', 'SHOULD', 'failed'],
      ['AUTH-SEC', 'SECURITY', 'blocked'],
    ]),
  ];

  it('counts a worse requirement as a regression only at the levels named', () => {
    const ids = (failOn: Parameters<typeof compareRuns>[1]) =>
      compareRuns(runs, failOn).regressions.map((r) => r.id);
    // Worst first: a new failure before a requirement no longer judged.
    expect(ids(undefined)).toEqual(['AUTH-SHOULD', 'AUTH-SEC']);
    expect(ids(['MUST'])).toEqual([]);
    expect(ids(['SHOULD'])).toEqual(['AUTH-SHOULD']);
    expect(ids(['SECURITY'])).toEqual(['AUTH-SEC']);
    expect(ids([])).toEqual([]);
    // Changed either way: --fail-on decides the exit, not what the page shows.
    expect(compareRuns(runs, ['MUST']).changed.map((r) => r.id)).toEqual(['AUTH-SHOULD', 'AUTH-SEC']);
  });
});

describe('compare: worst first, across several runs', () => {
  const c = compareRuns([
    run('v1', [
      ['LIST-INFO', 'INFO', 'info', ['first page number: 1']],
      ['AUTH-FIXED', 'MUST', 'failed'],
      ['AUTH-SHOULD-BROKE', 'SHOULD', 'passed'],
      ['AUTH-NOW-JUDGED', 'MUST', 'skipped'],
      ['AUTH-MUST-BROKE', 'MUST', 'passed'],
      ['AUTH-STEADY', 'MUST', 'passed'],
    ]),
    run('v2', [
      ['LIST-INFO', 'INFO', 'info', ['first page number: 0']],
      ['AUTH-FIXED', 'MUST', 'passed'],
      ['AUTH-SHOULD-BROKE', 'SHOULD', 'passed'],
      ['AUTH-NOW-JUDGED', 'MUST', 'passed'],
      ['AUTH-MUST-BROKE', 'MUST', 'passed'],
      ['AUTH-STEADY', 'MUST', 'passed'],
    ]),
    run('v3', [
      ['LIST-INFO', 'INFO', 'info', ['first page number: 1']],
      ['AUTH-FIXED', 'MUST', 'passed'],
      ['AUTH-SHOULD-BROKE', 'SHOULD', 'failed'],
      ['AUTH-NOW-JUDGED', 'MUST', 'skipped'],
      ['AUTH-MUST-BROKE', 'MUST', 'failed'],
      ['AUTH-STEADY', 'MUST', 'passed'],
    ]),
  ]);

  it('each later run is compared with the baseline, not with the run before it', () => {
    const info = c.rows.find((r) => r.id === 'LIST-INFO')!;
    expect(info.changes.map((x) => [x.run, x.kind])).toEqual([[1, 'observation-changed']]);
    const judged = c.rows.find((r) => r.id === 'AUTH-NOW-JUDGED')!;
    expect(judged.changes.map((x) => [x.run, x.kind])).toEqual([[1, 'newly-judged']]);
  });

  it('orders regressions first (MUST before SHOULD), then neither, then better; steady rows are not changed', () => {
    expect(c.changed.map((r) => r.id)).toEqual([
      'AUTH-MUST-BROKE',
      'AUTH-SHOULD-BROKE',
      'LIST-INFO',
      'AUTH-NOW-JUDGED',
      'AUTH-FIXED',
    ]);
    expect(c.regressions.map((r) => [r.id, r.change.run])).toEqual([
      ['AUTH-MUST-BROKE', 2],
      ['AUTH-SHOULD-BROKE', 2],
    ]);
  });
});

describe('compare: the header of a run, from its conformance.json', () => {
  it('says the verdict, MUST/SHOULD/SECURITY judged and failed, profile, /version, date and harness', () => {
    const h = runHeader(
      run(
        'vendor-a',
        [
          ['AUTH-A', 'MUST', 'passed'],
          ['AUTH-B', 'MUST', 'failed'],
          ['AUTH-C', 'MUST', 'skipped'],
          // Judged and failed, expected by the expect file: counted as the run's own report counts it.
          ['AUTH-G', 'MUST', 'expected-failure'],
          ['AUTH-D', 'SHOULD', 'non-strict'],
          ['AUTH-E', 'SECURITY', 'blocked'],
          ['LIST-F', 'INFO', 'info'],
        ],
        {
          verdict: 'DOES NOT CONFORM',
          exitCode: 1,
          profile: 'lenient',
          only: ['auth'],
          serverVersion: '{"version":1,"minor":3}',
        },
      ),
    );
    expect(h).toMatchObject({
      label: 'vendor-a',
      verdict: 'DOES NOT CONFORM',
      profile: 'lenient',
      selection: 'areas: auth',
      serverVersion: '{"version":1,"minor":3}',
      startedAt: '2026-11-26T10:00:00.000Z',
      harness: '0.1.0 (abc1234)',
      levels: {
        MUST: { total: 4, judged: 3, failed: 2, blocked: 0 },
        SHOULD: { total: 1, judged: 1, failed: 1, blocked: 0 },
        SECURITY: { total: 1, judged: 0, failed: 0, blocked: 1 },
      },
    });
  });
});
