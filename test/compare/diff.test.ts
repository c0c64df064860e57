/**
 * The comparison of conformance runs on small hand-made reports: the direction of every kind of
 * change, requirements only one run has, the --fail-on levels, worst-first order and the headers.
 */
import { describe, expect, it } from 'vitest';
import { type Change, classify, compareRuns, runHeader } from '../../src/compare/diff.ts';
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
  const info = (observations: string[]) => ({ status: 'info' as const, observations });

  it("an INFO's observation that differs is an observation change, neither better nor worse", () => {
    expect(classify(info(['first page number: 1']), info(['first page number: 0']), 'INFO')).toMatchObject({
      kind: 'observation-changed',
      direction: 'neither',
    });
    expect(classify(info(['invalid body: 422']), info(['invalid body: 400']), 'INFO')?.kind).toBe(
      'observation-changed',
    );
  });

  it("the run's particulars are no change: ids, origins, timings, sizes, timestamps, seeds, line order", () => {
    const a = [
      'login at http://127.0.0.1:44755/auth/login answered a token pair.',
      'take tk_4e6d9: waiting → progress_25 → ready in 84 ms (3 polls)',
      'the take list is ordered newest first (timestamps [1795722139485,1795722139480])',
      'voices: generated name: fast-check seed 1 (replay with SPEAKCHECK_SEED=1)',
      'No 429 or 503 in 932 requests',
    ];
    const b = [
      'No 429 or 503 in 957 requests',
      'voices: generated name: fast-check seed 725852566 (replay with SPEAKCHECK_SEED=725852566)',
      'login at http://127.0.0.1:42077/auth/login answered a token pair.',
      'take tk_6b510: waiting → ready in 74 ms (2 polls)',
      'the take list is ordered newest first (timestamps [1795722167307,1795722167302])',
    ];
    expect(classify(info(a), info(b), 'INFO')).toBeUndefined();
    // A refusal status is the server's choice: kept.
    expect(classify(info(['No 429 or 503']), info(['No 429 or 502']), 'INFO')?.kind).toBe(
      'observation-changed',
    );
  });

  it('which in-progress statuses a poll happened to see is no change', () => {
    expect(
      classify(
        info(['REST polling saw waiting → progress_25 → ready; progress_50 not seen for a 3-sentence text.']),
        info(['REST polling saw started → progress_50 → ready; progress_25 not seen for a 3-sentence text.']),
        'INFO',
      ),
    ).toBeUndefined();
  });

  it('only ids the server made are masked, not the words of the contract (done_webhook)', () => {
    expect(
      classify(
        info(['take tk_6bc3a543: done_webhook calls within 2.5 s of the first']),
        info(['take tk_128270a7: status_webhook calls within 2.5 s of the first']),
        'INFO',
      )?.kind,
    ).toBe('observation-changed');
  });

  it('a conclusion drawn from two timings of one run, or a retry after a race, is no change', () => {
    const faster = [
      'time to first audio chunks 6 ms, parts 5 ms',
      'chunks mode was not faster than parts mode',
    ];
    expect(classify(info(faster), info([faster[0]!]), 'INFO')).toBeUndefined();
    const ended =
      'the wav stream ended 40 ms before the take was done: it may not have grown with the generation';
    expect(classify(info(['wav streamed', ended]), info(['wav streamed']), 'INFO')).toBeUndefined();
    const retry =
      'a take of 84 characters was ready before its audio requests were answered; trying a longer one';
    expect(classify(info(['wav streamed', retry]), info(['wav streamed']), 'INFO')).toBeUndefined();
    const soFar = (statuses: string) => [
      `take tk_99dee: done calls so far answered ${statuses} at ready +704 ms`,
    ];
    expect(classify(info(soFar('[500]')), info(soFar('[500,200]')), 'INFO')).toBeUndefined();
  });

  it("a judged requirement's observations are never compared: its verdict is", () => {
    const passed = (observations: string[]) => ({ status: 'passed' as const, observations });
    expect(
      classify(
        passed(['done call 4 ms after polling']),
        passed(['done call 229 ms before polling']),
        'SHOULD',
      ),
    ).toBeUndefined();
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
