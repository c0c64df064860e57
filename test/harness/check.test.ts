/** check() and checkStep(): what they record per requirement id, and what they let through. */
import { describe, expect, test } from 'vitest';
import {
  type CheckTallies,
  check,
  checkStep,
  isSetupFailure,
  markSetupFailure,
  NotObservable,
  notObservable,
  runWithChecks,
  StepFailed,
} from '../../src/harness/check.ts';
import type { HarnessErrorNote } from '../../src/verdict/verdict.ts';

const inTest = <T>(ids: string[], fn: () => T) => {
  const tallies: CheckTallies = {};
  return { tallies, result: runWithChecks({ ids, tallies }, fn) };
};

describe('check', () => {
  test('sync and async checks are soft and tallied per id', async () => {
    const { tallies, result } = inTest(['A', 'B'], async () => {
      const a = check('A', () => undefined);
      const b = check('B', () => {
        throw new Error('b is wrong');
      });
      const c = await check('A', async () => {
        throw new Error('a is wrong later');
      });
      return [a, b, c];
    });
    expect(await result).toEqual([true, false, false]);
    expect(tallies).toEqual({
      A: { passed: 1, failed: ['a is wrong later'] },
      B: { passed: 0, failed: ['b is wrong'] },
    });
  });

  test('checkStep returns the value, or fails its id and stops with a StepFailed (a setup failure)', async () => {
    const { tallies, result } = inTest(['A'], async () => {
      expect(await checkStep('A', async () => 42)).toBe(42);
      await checkStep('A', () => {
        throw new Error('generation answered 500');
      });
    });
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailed);
    expect(isSetupFailure(err)).toBe(true);
    expect((err as Error).message).toBe('A: generation answered 500');
    expect(tallies.A).toEqual({ passed: 1, failed: ['generation answered 500'] });
  });

  test('notObservable stops the test, never failing an id (covers() makes it a skip: not judged)', () => {
    let thrown: unknown;
    const { tallies } = inTest(['A'], () => {
      try {
        check('A', () => notObservable('the take was ready too fast'));
      } catch (error) {
        thrown = error;
      }
    });
    expect(thrown).toBeInstanceOf(NotObservable);
    expect((thrown as Error).message).toBe('not observable: the take was ready too fast');
    expect(tallies).toEqual({});
  });

  test('a check of an id the test does not cover, or outside a test, is a harness bug', () => {
    expect(() => inTest(['A'], () => check('B', () => undefined))).toThrow(/does not cover it/);
    expect(() => check('A', () => undefined)).toThrow(/outside a covers\(\) test/);
  });

  test('a skip inside a check stays a skip', () => {
    const skip = Object.assign(new Error('skipped'), { code: 'VITEST_PENDING' });
    expect(() =>
      inTest(['A'], () =>
        check('A', () => {
          throw skip;
        }),
      ),
    ).toThrow(skip);
  });

  test('markSetupFailure tags a shared scenario error', () => {
    const err = new Error('voice never ready');
    expect(isSetupFailure(err)).toBe(false);
    markSetupFailure(err);
    expect(isSetupFailure(err)).toBe(true);
  });
});

describe('harness errors', () => {
  test('a programming error from our own code inside a check is noted beside its failure', () => {
    const tallies: CheckTallies = {};
    const harnessErrors: HarnessErrorNote[] = [];
    runWithChecks({ ids: ['A'], tallies, harnessErrors }, () => {
      check('A', () => {
        const bug = new TypeError('items is undefined');
        bug.stack = 'TypeError: items is undefined\n    at list (/repo/src/checks/lists.ts:40:7)';
        throw bug;
      });
      check('A', () => {
        throw new Error('expected 200, got 500');
      });
    });
    expect(tallies).toEqual({ A: { passed: 0, failed: ['items is undefined', 'expected 200, got 500'] } });
    expect(harnessErrors).toEqual([
      { message: 'items is undefined', bug: 'TypeError: items is undefined (at src/checks/lists.ts:40)' },
    ]);
  });
});
