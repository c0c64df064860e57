import { describe, expect, test } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import type { Profile } from '../../src/config/types.ts';
import { EXIT } from '../../src/exit-codes.ts';
import { harnessBug } from '../../src/harness/harness-error.ts';
import { CatalogueError, mergeCatalogue } from '../../src/requirements/index.ts';
import type { Requirement } from '../../src/requirements/types.ts';
import type { Conclusion } from '../../src/verdict/conclusion.ts';
import { gate } from '../../src/verdict/gate.ts';
import { computeVerdicts, judgedText, type Verdicts } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { said, skippedFor } from '../support/said.ts';
import { testOutcome as outcome } from '../support/test-outcome.ts';

/** The gate's exit code and words (src/verdict/gate.ts), as the cases below ask for them. */
const exitCodeFor = (v: Verdicts, profile: Profile, unhandledErrors = 0) =>
  gate(v, profile, { unhandledErrors }).exitCode;
const verdictWords = (v: Verdicts, profile: Profile, _exitCode?: number) => gate(v, profile).words;

/** Conclusions as covers() leaves them. */
const held: Conclusion = { kind: 'held' };
const violated = (message: string): Conclusion => ({ kind: 'violated', message });
const blockedBy = (by: string): Conclusion => ({ kind: 'blocked', by });
const throttledBy = (reason: string): Conclusion => ({
  kind: 'not-concluded',
  cause: 'throttled',
  reason,
  wouldJudge: '--max-rps under the limit',
});

const req = (id: string, level: Requirement['level'], area: Requirement['area'] = 'auth'): Requirement => ({
  id: fabricated(id),
  area,
  section: 'Authentication 1',
  level,
  source: 'speak-v1',
  text: `text of ${id}`,
});

const catalogue = [
  req('AUTH-A', 'MUST'),
  req('AUTH-B', 'MUST'),
  req('AUTH-C', 'SHOULD'),
  req('AUTH-D', 'INFO'),
  req('AUTH-E', 'MUST'),
  req('MODELS-X', 'MUST', 'models'),
];

describe('verdicts', () => {
  const outcomes = [
    outcome('a passes', 'passed', ['AUTH-A', 'AUTH-B']),
    outcome('b fails', 'failed', ['AUTH-B']),
    outcome('c skipped', 'skipped', ['AUTH-C'], { observations: [skippedFor('token lives 15 minutes')] }),
    outcome('d observed', 'passed', ['AUTH-D'], {
      observations: [said('server keeps old refresh tokens')],
      characters: 12,
    }),
    outcome('x passes', 'passed', ['MODELS-X'], { characters: 30 }),
  ];
  const v = computeVerdicts(catalogue, outcomes);
  const byId = Object.fromEntries(v.requirements.map((r) => [r.id, r]));

  test('each status follows from the covering tests', () => {
    expect(byId['AUTH-A']!.status).toBe('passed');
    expect(byId['AUTH-B']!.status).toBe('failed');
    expect(byId['AUTH-B']!.message).toBe('b fails: b fails broke');
    expect(byId['AUTH-B']!.tests).toEqual([
      'suites/auth.spec.ts > a passes',
      'suites/auth.spec.ts > b fails',
    ]);
    // A covering test that was skipped observed nothing: not judged, with the skip's reason.
    expect(byId['AUTH-C']!.status).toBe('not-observed');
    expect(byId['AUTH-C']!.message).toBe('Not observed: c skipped: skipped: token lives 15 minutes');
    expect(byId['AUTH-D']!.status).toBe('info');
    expect(byId['AUTH-D']!.message).toBe('server keeps old refresh tokens');
    expect(byId['AUTH-E']!.status).toBe('skipped');
    expect(byId['AUTH-E']!.covered).toBe(false);
  });

  test('the summary counts requirements, failures per level, tests and characters', () => {
    expect(v.summary).toMatchObject({
      requirements: 6,
      passed: 2,
      failed: 1,
      skipped: 1,
      notObserved: 1,
      info: 1,
      uncovered: 1,
      mustFailed: 1,
      shouldFailed: 0,
      tests: { passed: 3, failed: 1, skipped: 1 },
      characters: 42,
    });
    expect(v.uncovered).toEqual(['AUTH-E']);
  });

  test('--only keeps the selected areas', () => {
    const only = computeVerdicts(catalogue, outcomes, { areas: ['models'] });
    expect(only.requirements.map((r) => r.id)).toEqual(['MODELS-X']);
  });

  test('--requirement judges exactly the selection: no verdict, no "uncovered" for the rest', () => {
    // As a selected run reports it: only tests covering a selected id ran.
    const ran = [outcome('b fails', 'failed', ['AUTH-B']), outcome('x passes', 'passed', ['MODELS-X'])];
    const selected = computeVerdicts(catalogue, ran, {
      areas: ['auth', 'models'],
      requirements: ['AUTH-B', 'MODELS-X', 'AUTH-E'],
    });
    expect(selected.requirements.map((r) => [r.id, r.status])).toEqual([
      ['AUTH-B', 'failed'],
      ['AUTH-E', 'skipped'],
      ['MODELS-X', 'passed'],
    ]);
    // AUTH-A, C, D are out of the run; AUTH-E was asked for and nothing covers it: that one is said.
    expect(selected.uncovered).toEqual(['AUTH-E']);
    expect(selected.summary).toMatchObject({
      requirements: 3,
      passed: 1,
      failed: 1,
      skipped: 1,
      uncovered: 1,
    });
    expect(exitCodeFor(selected, 'strict')).toBe(EXIT.failed);
    // An empty selection is no selection: the areas decide.
    expect(
      computeVerdicts(catalogue, ran, { areas: ['models'], requirements: [] }).requirements,
    ).toHaveLength(1);
  });

  test('exit codes: MUST always gates, SHOULD only in strict, problems always', () => {
    expect(exitCodeFor(v, 'lenient')).toBe(EXIT.failed);
    const shouldOnly = computeVerdicts(catalogue, [outcome('c fails', 'failed', ['AUTH-C'])]);
    expect(exitCodeFor(shouldOnly, 'strict')).toBe(EXIT.failed);
    expect(exitCodeFor(shouldOnly, 'lenient')).toBe(EXIT.ok);
    const clean = computeVerdicts(catalogue, [outcome('a', 'passed', ['AUTH-A'])]);
    expect(exitCodeFor(clean, 'strict')).toBe(EXIT.ok);
    expect(exitCodeFor(clean, 'strict', 1)).toBe(EXIT.failed);
    const unknown = computeVerdicts(catalogue, [
      outcome('u', 'failed', ['AUTH-ZZZ'], { unknownRequirements: ['AUTH-ZZZ'] }),
    ]);
    expect(unknown.problems).toHaveLength(1);
    expect(exitCodeFor(unknown, 'lenient')).toBe(EXIT.failed);
  });

  test('the catalogue rejects duplicate and malformed ids', () => {
    expect(() => mergeCatalogue({ auth: [req('AUTH-A', 'MUST')], models: [req('AUTH-A', 'MUST')] })).toThrow(
      CatalogueError,
    );
    expect(() => mergeCatalogue({ auth: [req('AUTH-A', 'MUST')], models: [req('AUTH-A', 'MUST')] })).toThrow(
      /AUTH-A is declared twice \(catalogue\/auth\.ts and catalogue\/models\.ts\)/,
    );
    expect(() => mergeCatalogue({ auth: [req('auth_a', 'MUST')] })).toThrow(/not UPPER-DASH-CASE/);
  });

  describe('per-requirement results within one test (conclusions, blocked)', () => {
    test("a failed check fails only its own id; the test's other ids pass", () => {
      const t = outcome('three ids', 'failed', ['AUTH-A', 'AUTH-B', 'AUTH-C'], {
        conclusions: {
          'AUTH-A': [held, held],
          'AUTH-B': [held, violated('prosody differs')],
          'AUTH-C': [held],
        },
      });
      const r = computeVerdicts(catalogue, [t]);
      const status = Object.fromEntries(r.requirements.map((x) => [x.id, x.status]));
      expect(status).toMatchObject({ 'AUTH-A': 'passed', 'AUTH-B': 'failed', 'AUTH-C': 'passed' });
      expect(r.requirements.find((x) => x.id === fabricated('AUTH-B'))!.message).toBe(
        'three ids: prosody differs',
      );
      expect(r.summary).toMatchObject({ failed: 1, blocked: 0, mustFailed: 1 });
    });

    test('a step outside every check blocks the ids not concluded; concluded ones keep their result', () => {
      const t = outcome('setup broke', 'failed', ['AUTH-A', 'AUTH-B', 'AUTH-C', 'AUTH-D'], {
        conclusions: {
          'AUTH-A': [held],
          'AUTH-B': [blockedBy('take abc never became ready within 30000 ms')],
          'AUTH-C': [blockedBy('take abc never became ready within 30000 ms')],
          'AUTH-D': [blockedBy('take abc never became ready within 30000 ms')],
        },
      });
      const r = computeVerdicts(catalogue, [t]);
      const byId = Object.fromEntries(r.requirements.map((x) => [x.id, x]));
      expect(byId['AUTH-A']!.status).toBe('passed');
      expect(byId['AUTH-B']!.status).toBe('blocked');
      expect(byId['AUTH-B']!.message).toBe(
        'setup broke: blocked by: take abc never became ready within 30000 ms',
      );
      expect(byId['AUTH-C']!.status).toBe('blocked');
      // INFO stays INFO: what could not be observed is said, not judged.
      expect(byId['AUTH-D']!.status).toBe('info');
      expect(byId['AUTH-D']!.message).toMatch(/Not observed in "setup broke": blocked by: take abc/);
      expect(r.summary).toMatchObject({ failed: 0, blocked: 2, mustBlocked: 1, shouldBlocked: 1 });
    });

    test('a check failed before the blocking step: that id is failed, not blocked', () => {
      const t = outcome('fail then block', 'failed', ['AUTH-A', 'AUTH-B'], {
        conclusions: {
          'AUTH-A': [violated('wrong status')],
          'AUTH-B': [blockedBy('generation answered 500')],
        },
      });
      const status = computeVerdicts(catalogue, [t]).requirements.map((x) => [x.id, x.status]);
      expect(status).toEqual(
        expect.arrayContaining([
          ['AUTH-A', 'failed'],
          ['AUTH-B', 'blocked'],
        ]),
      );
    });

    test('across tests: failed beats blocked, blocked beats passed', () => {
      const passes = outcome('passes', 'passed', ['AUTH-A', 'AUTH-B']);
      const blocks = outcome('blocks', 'failed', ['AUTH-A', 'AUTH-B'], {
        conclusions: { 'AUTH-A': [blockedBy('no voice')], 'AUTH-B': [blockedBy('no voice')] },
      });
      const fails = outcome('fails', 'failed', ['AUTH-B'], { conclusions: { 'AUTH-B': [violated('bad')] } });
      const r = computeVerdicts(catalogue, [passes, blocks, fails]);
      const byId = Object.fromEntries(r.requirements.map((x) => [x.id, x]));
      expect(byId['AUTH-A']!.status).toBe('blocked');
      expect(byId['AUTH-B']!.status).toBe('failed');
      expect(byId['AUTH-B']!.message).toBe('fails: bad');
    });

    test('a blocked MUST does not conform; a blocked SHOULD only in strict', () => {
      const must = computeVerdicts(catalogue, [
        outcome('m', 'failed', ['AUTH-A'], { conclusions: { 'AUTH-A': [blockedBy('login failed')] } }),
      ]);
      expect(must.summary.failed).toBe(0);
      expect(exitCodeFor(must, 'lenient')).toBe(EXIT.failed);
      const should = computeVerdicts(catalogue, [
        outcome('s', 'failed', ['AUTH-C'], { conclusions: { 'AUTH-C': [blockedBy('login failed')] } }),
        // Something judged beside it: a run that judged nothing fails whatever the profile.
        outcome('a', 'passed', ['AUTH-A']),
      ]);
      expect(exitCodeFor(should, 'strict')).toBe(EXIT.failed);
      expect(exitCodeFor(should, 'lenient')).toBe(EXIT.ok);
    });

    test('a failed test without checks fails all its ids (the test is their check)', () => {
      const r = computeVerdicts(catalogue, [outcome('legacy', 'failed', ['AUTH-A', 'AUTH-B'])]);
      expect(r.requirements.filter((x) => x.status === 'failed').map((x) => x.id)).toEqual([
        'AUTH-A',
        'AUTH-B',
      ]);
    });
  });
});

describe('a stopped run (--max-time, Ctrl-C)', () => {
  const outcomes = [
    outcome('a passes', 'passed', ['AUTH-A']),
    outcome('b unfinished', 'not-concluded', ['AUTH-B']),
    outcome('c fails, its other test unfinished', 'failed', ['AUTH-C']),
    outcome('c unfinished', 'not-concluded', ['AUTH-C']),
    outcome('d skipped', 'skipped', ['AUTH-D']),
  ];
  const v = computeVerdicts(catalogue, outcomes, {
    stopped: { reason: 'budget', sentence: 'the run budget of 20 s ran out' },
  });
  const byId = Object.fromEntries(v.requirements.map((r) => [r.id, r]));

  test('unfinished or never-run requirements are not concluded; a failure stays a failure', () => {
    expect(byId['AUTH-A']!.status).toBe('passed');
    expect(byId['AUTH-B']!.status).toBe('not-concluded');
    expect(byId['AUTH-B']!.message).toMatch(/^Not concluded \(stopped\): b unfinished: the run was stopped/);
    expect(byId['AUTH-C']!.status).toBe('failed');
    expect(byId['AUTH-D']!.status).toBe('skipped');
    // No test of it ran before the stop: its file never started.
    expect(byId['AUTH-E']!.status).toBe('not-concluded');
    expect(byId['AUTH-E']!.message).toMatch(/before any covering test ran/);
    expect(v.summary.notConcluded).toBe(3);
  });

  test('a run that could not conclude does not conform', () => {
    const passing = computeVerdicts(
      [req('AUTH-A', 'MUST'), req('AUTH-B', 'INFO')],
      [outcome('a passes', 'passed', ['AUTH-A']), outcome('b unfinished', 'not-concluded', ['AUTH-B'])],
      { stopped: { reason: 'signal', sentence: 'SIGINT (interrupted)' } },
    );
    expect(passing.summary.notConcluded).toBe(1);
    expect(exitCodeFor(passing, 'lenient')).toBe(EXIT.failed);
  });
});

describe('verdicts a vendor can act on', () => {
  test('non-strict: a SHOULD failed in the lenient profile (strict: still failed)', () => {
    const outcomes = [outcome('c fails', 'failed', ['AUTH-C']), outcome('a passes', 'passed', ['AUTH-A'])];
    const lenient = computeVerdicts(catalogue, outcomes, { profile: 'lenient' });
    const c = lenient.requirements.find((r) => r.id === fabricated('AUTH-C'))!;
    expect(c.status).toBe('non-strict');
    expect(c.message).toBe('Non-strict (a SHOULD, lenient profile): c fails: c fails broke');
    expect(lenient.summary).toMatchObject({ nonStrict: 1, shouldFailed: 0 });
    expect(exitCodeFor(lenient, 'lenient')).toBe(EXIT.ok);
    const strict = computeVerdicts(catalogue, outcomes, { profile: 'strict' });
    expect(strict.requirements.find((r) => r.id === fabricated('AUTH-C'))!.status).toBe('failed');
    expect(exitCodeFor(strict, 'strict')).toBe(EXIT.failed);
    // A MUST never becomes non-strict.
    const must = computeVerdicts(catalogue, [outcome('a fails', 'failed', ['AUTH-A'])], {
      profile: 'lenient',
    });
    expect(must.requirements.find((r) => r.id === fabricated('AUTH-A'))!.status).toBe('failed');
  });

  test('not-applicable: the feature is not offered, and nothing else was concluded', () => {
    const notOffered = (reason: string): Conclusion => ({
      kind: 'not-applicable',
      reason,
      wouldJudge: 'a sink',
    });
    const sink = 'webhooks: the server cannot reach the sink';
    const v = computeVerdicts(catalogue, [
      outcome('hook 1', 'passed', ['AUTH-A'], { conclusions: { 'AUTH-A': [notOffered(sink)] } }),
      outcome('hook 2', 'passed', ['AUTH-B'], { conclusions: { 'AUTH-B': [notOffered(sink)] } }),
      // One covering test was skipped for another reason: "not applicable" still says the most.
      outcome('b other', 'skipped', ['AUTH-B'], { observations: [skippedFor('token lives 15 minutes')] }),
      // One covering test concluded: judged as usual.
      outcome('hook 3', 'passed', ['AUTH-E'], { conclusions: { 'AUTH-E': [notOffered('x')] } }),
      outcome('e fails', 'failed', ['AUTH-E']),
    ]);
    const byId = Object.fromEntries(v.requirements.map((r) => [r.id, r]));
    expect(byId['AUTH-A']).toMatchObject({
      status: 'not-applicable',
      message: 'Not applicable: webhooks: the server cannot reach the sink',
    });
    expect(byId['AUTH-B']!.status).toBe('not-applicable');
    expect(byId['AUTH-E']!.status).toBe('failed');
    expect(v.summary.notApplicable).toBe(2);
  });

  test('harness-error: a failure whose cause is our own bug, exit 3; a Finding beside it still fails', () => {
    const bug = 'TypeError: x.y is not a function (at suites/auth.spec.ts:12)';
    const v = computeVerdicts(catalogue, [
      outcome('a breaks', 'failed', ['AUTH-A', 'AUTH-B'], {
        conclusions: {
          'AUTH-A': [{ kind: 'harness-bug', message: 'x.y is not a function', bug }],
          'AUTH-B': [violated('expected 401, got 200')],
        },
      }),
      outcome('c stopped by a bug', 'failed', ['AUTH-C'], {
        conclusions: { 'AUTH-C': [{ kind: 'harness-bug', message: 'x.y is not a function', bug }] },
      }),
    ]);
    const byId = Object.fromEntries(v.requirements.map((r) => [r.id, r]));
    expect(byId['AUTH-A']!.status).toBe('harness-error');
    expect(byId['AUTH-A']!.message).toBe(
      `Harness error (a bug of speakcheck, not a verdict on the server; please report it): ${bug}`,
    );
    expect(byId['AUTH-B']!.status).toBe('failed');
    expect(byId['AUTH-C']!.status).toBe('harness-error');
    expect(v.summary).toMatchObject({ harnessErrors: 2, mustFailed: 1 });
    // A bug and a real failure of the same requirement: the real failure is the verdict.
    const mixed = computeVerdicts(catalogue, [
      outcome('a mixed', 'failed', ['AUTH-A'], {
        conclusions: {
          'AUTH-A': [
            { kind: 'harness-bug', message: 'x.y is not a function', bug },
            violated('expected 401, got 200'),
          ],
        },
      }),
    ]);
    expect(mixed.requirements.find((r) => r.id === fabricated('AUTH-A'))!.status).toBe('failed');
    expect(exitCodeFor(v, 'strict')).toBe(EXIT.harnessError);
  });
});

describe('harnessBug: only what is provably ours', () => {
  const withFrame = (err: Error, frame: string) => {
    err.stack = `${err.name}: ${err.message}\n    at ${frame}\n    at next (/x/y.js:1:1)`;
    return err;
  };

  test('a TypeError thrown in src/ or suites/ is ours', () => {
    expect(
      harnessBug(withFrame(new TypeError('a is undefined'), 'f (/work/main/suites/auth.spec.ts:12:3)')),
    ).toBe('TypeError: a is undefined (at suites/auth.spec.ts:12)');
    expect(
      harnessBug(withFrame(new ReferenceError('q is not defined'), 'file:///r/src/client/http.ts:4:1')),
    ).toBe('ReferenceError: q is not defined (at src/client/http.ts:4)');
  });

  test('Findings, assertions, library and Node errors are not', () => {
    expect(
      harnessBug(withFrame(new Finding('the server said 500'), 'f (/r/suites/a.spec.ts:1:1)')),
    ).toBeUndefined();
    expect(
      harnessBug(withFrame(new Error('expected 1 to be 2'), 'f (/r/suites/a.spec.ts:1:1)')),
    ).toBeUndefined();
    expect(
      harnessBug(withFrame(new TypeError('fetch failed'), 'fetch (/r/node_modules/undici/index.js:1:1)')),
    ).toBeUndefined();
    expect(
      harnessBug(withFrame(new TypeError('fetch failed'), 'f (/r/node_modules/x/src/a.ts:1:1)')),
    ).toBeUndefined();
    expect(
      harnessBug(withFrame(new SyntaxError('Unexpected token <'), 'JSON.parse (<anonymous>)')),
    ).toBeUndefined();
    expect(harnessBug(withFrame(new TypeError('x'), 'node:internal/url:1:1'))).toBeUndefined();
    expect(harnessBug('a string')).toBeUndefined();
  });
});

describe('SECURITY checks (the security area): counted apart, gating in every profile but lenient', () => {
  const security = [...catalogue, req('SEC-X', 'SECURITY', 'security')];
  const failing = [outcome('b reaches a', 'failed', ['SEC-X'])];

  test('strict: a failed SECURITY check fails the run, counted apart from the MUSTs', () => {
    const v = computeVerdicts(security, failing, { profile: 'strict' });
    expect(v.summary).toMatchObject({ securityFailed: 1, mustFailed: 0, shouldFailed: 0 });
    expect(exitCodeFor(v, 'strict')).toBe(EXIT.failed);
  });

  test('lenient: reported as non-strict, the exit code unchanged', () => {
    const v = computeVerdicts(security, failing, { profile: 'lenient' });
    const x = v.requirements.find((r) => r.id === fabricated('SEC-X'))!;
    expect(x.status).toBe('non-strict');
    expect(x.message).toMatch(/^Non-strict \(a security check, lenient profile\): /);
    expect(v.summary).toMatchObject({ securityFailed: 0, nonStrict: 1 });
    expect(exitCodeFor(v, 'lenient')).toBe(EXIT.ok);
  });

  test('not judged without a second identity: not observed with the reason, the run not failed', () => {
    const conclusions = {
      'SEC-X': [
        {
          kind: 'not-observed' as const,
          reason: 'the run has no second identity (customer B) to check isolation with',
          wouldJudge: '--second-email/--second-password or --second-token',
        },
      ],
    };
    const v = computeVerdicts(
      security,
      [outcome('b', 'passed', ['SEC-X'], { conclusions }), outcome('a', 'passed', ['AUTH-A'])],
      { profile: 'strict' },
    );
    expect(v.requirements.find((r) => r.id === fabricated('SEC-X'))).toMatchObject({
      status: 'not-observed',
    });
    expect(v.requirements.find((r) => r.id === fabricated('SEC-X'))!.notJudged?.wouldJudgeIt).toContain(
      '--second-token',
    );
    expect(exitCodeFor(v, 'strict')).toBe(EXIT.ok);
  });
});

describe('back-pressure is never a verdict (src/client/back-pressure.ts)', () => {
  const throttled = 'throttled: 429 on 37 requests, waited 41 s';

  test('a test stopped by a throttled request leaves its ids not concluded, with the sentence', () => {
    const verdicts = computeVerdicts(
      catalogue,
      [
        outcome('lists the voices', 'not-concluded', ['AUTH-A', 'AUTH-C'], {
          // No check failed before the throttled request (one that had would stand: see below).
          conclusions: {
            'AUTH-A': [
              throttledBy(
                'throttled: 429 ×9 (Retry-After: 1) to GET http://x/v1/speak/voices; waited 58.0 s',
              ),
            ],
            'AUTH-C': [
              throttledBy(
                'throttled: 429 ×9 (Retry-After: 1) to GET http://x/v1/speak/voices; waited 58.0 s',
              ),
            ],
          },
        }),
        outcome('another', 'passed', ['AUTH-B']),
      ],
      { areas: ['auth'], throttled },
    );
    const a = verdicts.requirements.find((r) => r.id === fabricated('AUTH-A'))!;
    expect(a.status).toBe('not-concluded');
    expect(a.notJudged?.wouldJudgeIt).toBe('--max-rps under the limit');
    expect(a.message).toBe(
      'Not concluded (throttled): lists the voices: throttled: 429 ×9 (Retry-After: 1) to GET http://x/v1/speak/voices; waited 58.0 s',
    );
    expect(verdicts.summary.mustFailed + verdicts.summary.shouldFailed).toBe(0);
    expect(exitCodeFor(verdicts, 'strict')).toBe(EXIT.failed);
  });

  test('a run stopped by its budget while throttled says so for what never ran', () => {
    const verdicts = computeVerdicts(catalogue, [], {
      areas: ['auth'],
      stopped: { reason: 'budget', sentence: 'the run budget of 25 s (--max-time) ran out' },
      throttled,
    });
    expect(verdicts.requirements.find((r) => r.id === fabricated('AUTH-A'))!.message).toBe(
      `Not concluded (${throttled}): the run budget of 25 s (--max-time) ran out before any covering test ran.`,
    );
  });

  test("the run's own figures join an INFO requirement's observations", () => {
    const verdicts = computeVerdicts(
      catalogue,
      [outcome('observes', 'passed', ['AUTH-D'], { observations: [said('When this test ran: x.')] })],
      { areas: ['auth'], runObservations: { 'AUTH-D': [said('Whole run: y.')] } },
    );
    expect(verdicts.requirements.find((r) => r.id === fabricated('AUTH-D'))!.message).toBe(
      'When this test ran: x. · Whole run: y.',
    );
  });
});

describe('judged: CONFORMS only when every MUST (strict, acceptance: and SHOULD) was judged', () => {
  const small = [
    req('AUTH-A', 'MUST'),
    req('AUTH-B', 'MUST'),
    req('AUTH-C', 'SHOULD'),
    req('AUTH-D', 'INFO'),
  ];
  /** A and C pass, D observed; B not observed: one MUST not judged. */
  const unjudgedMust = [
    outcome('a', 'passed', ['AUTH-A', 'AUTH-C']),
    outcome('d', 'passed', ['AUTH-D']),
    outcome('b waits', 'passed', ['AUTH-B'], {
      conclusions: {
        'AUTH-B': [
          {
            kind: 'not-observed',
            reason: 'access tokens live 900 s (JWT exp)',
            wouldJudge: '--profile acceptance or --expiry full (waits 902 s)',
          },
        ],
      },
    }),
  ];

  test('not observed names what would judge it: carried apart from the reason, counted as not judged', () => {
    const v = computeVerdicts(small, unjudgedMust, { profile: 'strict' });
    const b = v.requirements.find((r) => r.id === fabricated('AUTH-B'))!;
    expect(b.status).toBe('not-observed');
    expect(b.notJudged).toEqual({
      status: 'not-observed',
      reason: 'access tokens live 900 s (JWT exp)',
      wouldJudgeIt: '--profile acceptance or --expiry full (waits 902 s)',
    });
    expect(b.message).not.toContain('would judge it');
    // Judged requirements and INFO carry nothing.
    expect(v.requirements.filter((r) => r.notJudged).map((r) => r.id)).toEqual(['AUTH-B']);
    expect(v.summary.judged).toEqual({ must: 2, mustJudged: 1, should: 1, shouldJudged: 1 });
    expect(judgedText(v.summary.judged)).toBe('judged: 1 of 2 MUST, 1 of 1 SHOULD');
  });

  test('a requirement no test covers, a blocked one and a stopped run each say what would judge them', () => {
    const v = computeVerdicts(
      [...small, req('AUTH-E', 'MUST')],
      [
        outcome('a', 'passed', ['AUTH-A']),
        outcome('b blocked', 'failed', ['AUTH-B'], {
          conclusions: { 'AUTH-B': [blockedBy('login answered 500')] },
        }),
        outcome('c unfinished', 'not-concluded', ['AUTH-C']),
      ],
      { stopped: { reason: 'budget', sentence: 'the run budget of 300 s (--max-time) ran out' } },
    );
    const by = Object.fromEntries(v.requirements.map((r) => [r.id, r.notJudged]));
    expect(by['AUTH-A']).toBeUndefined();
    expect(by['AUTH-B']).toMatchObject({
      status: 'blocked',
      wouldJudgeIt: expect.stringMatching(/step that blocked/),
    });
    expect(by['AUTH-C']).toMatchObject({
      status: 'not-concluded',
      wouldJudgeIt: expect.stringMatching(/--max-time/),
    });
    // Stopped before any covering test ran: not concluded either.
    expect(by['AUTH-E']).toMatchObject({ status: 'not-concluded' });
    const uncovered = computeVerdicts([req('AUTH-E', 'MUST')], []).requirements[0]!;
    expect(uncovered.notJudged).toMatchObject({
      status: 'skipped',
      wouldJudgeIt: expect.stringMatching(/a test that covers it/),
    });
  });

  test('a run that judged nothing is no pass in any profile', () => {
    const nothing = [outcome('b waits', 'passed', ['AUTH-B'], { conclusions: unjudgedMust[2]!.conclusions })];
    for (const profile of ['lenient', 'strict', 'acceptance'] as const) {
      const v = computeVerdicts(small, nothing, { profile, requirements: ['AUTH-B'] });
      expect(gate(v, profile), profile).toMatchObject({ exitCode: EXIT.failed, words: 'NOTHING JUDGED' });
    }
    const none = computeVerdicts(small, [], { requirements: ['AUTH-A'] });
    expect(gate(none, 'strict')).toMatchObject({ words: 'NOTHING JUDGED', reasons: ['no test ran'] });
  });

  test('the reasons name what fails the gate in level order: MUST, then SHOULD, then security', () => {
    const sec = req('SEC-Y', 'SECURITY', 'security');
    const v = computeVerdicts(
      [...small, sec],
      [
        outcome('c fails', 'failed', ['AUTH-C']),
        outcome('y fails', 'failed', ['SEC-Y']),
        outcome('a fails', 'failed', ['AUTH-A']),
        outcome('b blocked', 'failed', ['AUTH-B'], { conclusions: { 'AUTH-B': [blockedBy('no voice')] } }),
      ],
      { profile: 'strict' },
    );
    // Each count names its level: "1 blocked" after a SHOULD count was read as the MUSTs' (issue 41).
    expect(gate(v, 'strict').reasons).toEqual([
      '1 MUST failed, 1 MUST blocked',
      '1 SHOULD failed',
      '1 security check failed',
    ]);
    expect(gate(v, 'lenient').reasons).toEqual(['1 MUST failed, 1 MUST blocked']);
  });

  test('a blocked SHOULD and a blocked security check say their level (never a bare "2 blocked")', () => {
    const sec = req('SEC-Y', 'SECURITY', 'security');
    const v = computeVerdicts(
      [...small, sec],
      [
        outcome('a fails', 'failed', ['AUTH-A']),
        outcome('b passes', 'passed', ['AUTH-B']),
        outcome('c blocked', 'failed', ['AUTH-C'], { conclusions: { 'AUTH-C': [blockedBy('no take')] } }),
        outcome('y blocked', 'failed', ['SEC-Y'], { conclusions: { 'SEC-Y': [blockedBy('no take')] } }),
      ],
      { profile: 'strict' },
    );
    expect(gate(v, 'strict').reasons).toEqual([
      '1 MUST failed',
      '1 SHOULD blocked',
      '1 security check blocked',
    ]);
  });

  test('exit codes and words per profile: not judged is exit 0 in strict and lenient, 1 in acceptance', () => {
    const rows = (['lenient', 'strict', 'acceptance'] as const).map((profile) => {
      const v = computeVerdicts(small, unjudgedMust, { profile });
      const code = exitCodeFor(v, profile);
      return [profile, code, verdictWords(v, profile, code)];
    });
    expect(rows).toEqual([
      ['lenient', EXIT.ok, 'NO MUST FAILED — 1 MUST NOT JUDGED'],
      ['strict', EXIT.ok, 'NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED'],
      ['acceptance', EXIT.failed, 'NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED'],
    ]);
  });

  test('an unjudged SHOULD keeps CONFORMS away in strict and acceptance, not in lenient', () => {
    const shouldSkipped = [
      outcome('a b', 'passed', ['AUTH-A', 'AUTH-B']),
      outcome('c waits', 'skipped', ['AUTH-C'], { observations: [skippedFor('no multi-part take')] }),
    ];
    const words = (profile: 'lenient' | 'strict' | 'acceptance') => {
      const v = computeVerdicts(small, shouldSkipped, { profile });
      const code = exitCodeFor(v, profile);
      return `${verdictWords(v, profile, code)} (exit ${code})`;
    };
    expect(words('lenient')).toBe('CONFORMS (exit 0)');
    expect(words('strict')).toBe('NO MUST OR SHOULD FAILED — 1 SHOULD NOT JUDGED (exit 0)');
    expect(words('acceptance')).toBe('NO MUST OR SHOULD FAILED — 1 SHOULD NOT JUDGED (exit 1)');
  });

  test('everything judged and held: CONFORMS, exit 0, in every profile', () => {
    const all = [
      outcome('a b c', 'passed', ['AUTH-A', 'AUTH-B', 'AUTH-C']),
      outcome('d', 'passed', ['AUTH-D']),
    ];
    for (const profile of ['lenient', 'strict', 'acceptance'] as const) {
      const v = computeVerdicts(small, all, { profile });
      expect(exitCodeFor(v, profile), profile).toBe(EXIT.ok);
      expect(verdictWords(v, profile, EXIT.ok), profile).toBe('CONFORMS');
    }
  });

  test('a failure outranks the gaps; a stopped run is NOT CONCLUDED; a harness bug is no verdict', () => {
    const failing = computeVerdicts(small, [...unjudgedMust, outcome('a fails', 'failed', ['AUTH-A'])]);
    expect(verdictWords(failing, 'strict', exitCodeFor(failing, 'strict'))).toBe('DOES NOT CONFORM');
    const stopped = computeVerdicts(small, [outcome('a', 'passed', ['AUTH-A'])], {
      stopped: { reason: 'signal', sentence: 'SIGINT (interrupted)' },
    });
    expect(verdictWords(stopped, 'strict', exitCodeFor(stopped, 'strict'))).toBe('NOT CONCLUDED');
    // A problem of the run (a file that did not load) with gaps: acceptance says it does not conform.
    const broken = computeVerdicts(small, unjudgedMust, {
      fileErrors: [{ where: 'suites/x.spec.ts', message: 'boom' }],
    });
    expect(verdictWords(broken, 'acceptance', exitCodeFor(broken, 'acceptance'))).toBe('DOES NOT CONFORM');
  });
});

describe('merged rules: back-pressure, INFO and the sdk words', () => {
  test('a check that failed before a later request was throttled still fails its requirement', () => {
    const v = computeVerdicts(
      catalogue,
      [
        outcome('fails, then throttled', 'not-concluded', ['AUTH-A', 'AUTH-B'], {
          conclusions: {
            'AUTH-A': [violated('GET answered 500')],
            'AUTH-B': [throttledBy('throttled: 429 ×3 to GET http://x/v1/speak/voices; waited 25.0 s')],
          },
        }),
      ],
      { areas: ['auth'] },
    );
    expect(v.requirements.find((r) => r.id === fabricated('AUTH-A'))).toMatchObject({ status: 'failed' });
    expect(v.requirements.find((r) => r.id === fabricated('AUTH-B'))).toMatchObject({
      status: 'not-concluded',
    });
    expect(exitCodeFor(v, 'strict')).toBe(EXIT.failed);
  });

  test('an INFO test that did not finish is an observation missed, never a run not concluded', () => {
    const v = computeVerdicts(
      catalogue,
      [
        outcome('a b c e', 'passed', ['AUTH-A', 'AUTH-B', 'AUTH-C', 'AUTH-E']),
        outcome('observes d', 'not-concluded', ['AUTH-D'], {
          conclusions: { 'AUTH-D': [throttledBy('throttled: 429 ×1; waited 25.0 s')] },
        }),
      ],
      { areas: ['auth'] },
    );
    expect(v.requirements.find((r) => r.id === fabricated('AUTH-D'))).toMatchObject({ status: 'info' });
    expect(v.summary.notConcluded).toBe(0);
    expect(exitCodeFor(v, 'strict')).toBe(EXIT.ok);
  });

  test('sdk: only wire facts failed is NOT COMPATIBLE, in the words every report carries', () => {
    const wireFact = { ...req('TAKE-BATCH', 'INFO', 'takes'), source: 'wire-facts' as const };
    const sdkCatalogue = [req('AUTH-A', 'MUST'), wireFact];
    const failing = computeVerdicts(
      sdkCatalogue,
      [outcome('a', 'passed', ['AUTH-A']), outcome('batch order', 'failed', ['TAKE-BATCH'])],
      { profile: 'sdk' },
    );
    const code = exitCodeFor(failing, 'sdk');
    expect(code).toBe(EXIT.failed);
    expect(verdictWords(failing, 'sdk', code)).toMatch(/^NOT COMPATIBLE with the vendor's SDK and clients/);
    const holding = computeVerdicts(
      sdkCatalogue,
      [outcome('a', 'passed', ['AUTH-A']), outcome('batch order', 'passed', ['TAKE-BATCH'])],
      { profile: 'sdk' },
    );
    expect(verdictWords(holding, 'sdk', exitCodeFor(holding, 'sdk'))).toBe(
      "CONFORMS — compatible with the vendor's SDK and clients",
    );
  });
});
