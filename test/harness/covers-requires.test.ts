/**
 * covers()'s `requires`: a precondition declared with the test. Unmet, the body does not run and
 * every id is concluded as the precondition says (not applicable, or not observed) with its reason;
 * met, the test runs as without it. The covers() tests below run first (a file's tests run in
 * order); the last test reads what each left in its task meta.
 */
import { describe, expect, type RunnerTestCase, test, vi } from 'vitest';
import { check } from '../../src/harness/check.ts';
import { covers, type Unmet } from '../../src/harness/covers.ts';
import { catalogue, type RequirementId } from '../../src/requirements/index.ts';

// Allure labels are a reporting aid with no Allure runtime here (it would only print that it has none).
vi.mock('allure-js-commons');

const [A, B, C] = catalogue.filter((r) => r.level === 'MUST').map((r) => r.id) as [
  RequirementId,
  RequirementId,
  RequirementId,
];

const NO_SINK: Unmet = {
  conclusion: 'not-applicable',
  reason: 'webhooks: the server cannot reach the sink',
  wouldJudge: '--webhook-url',
};
const bodiesRun: string[] = [];

describe('covers() with a precondition', () => {
  covers(
    [A, B],
    'unmet: not applicable',
    () => {
      bodiesRun.push('unmet: not applicable');
      throw new Error('the body of a test whose precondition is unmet must not run');
    },
    { requires: () => NO_SINK },
  );

  covers(
    [A],
    'unmet, asynchronously: not observed',
    () => {
      bodiesRun.push('unmet, asynchronously: not observed');
    },
    {
      requires: async () => ({
        conclusion: 'not-observed',
        reason: 'no take in progress',
        wouldJudge: 'slower',
      }),
    },
  );

  covers(
    [C],
    'met: the body runs',
    () => {
      // Its check holds: a body that concluded and observed nothing would be not observed (issue 48).
      check(C, () => bodiesRun.push('met: the body runs'));
    },
    { requires: () => undefined },
  );

  test('each left its conclusions; only the met one ran its body', ({ task }) => {
    const byName = (name: string) => {
      const found = task.suite?.tasks.find((t) => t.name === name) as RunnerTestCase | undefined;
      expect(found?.result?.state, name).toBe('pass');
      return found?.meta.conclusions;
    };
    const notApplicable = { kind: 'not-applicable', reason: NO_SINK.reason, wouldJudge: NO_SINK.wouldJudge };
    expect(byName('unmet: not applicable')).toEqual({ [A]: [notApplicable], [B]: [notApplicable] });
    expect(byName('unmet, asynchronously: not observed')).toEqual({
      [A]: [{ kind: 'not-observed', reason: 'no take in progress', wouldJudge: 'slower' }],
    });
    expect(byName('met: the body runs')).toEqual({ [C]: [{ kind: 'held' }] });
    expect(bodiesRun).toEqual(['met: the body runs']);
  });
});
