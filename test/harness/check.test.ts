/** check(), checkStep() and notObserved(): what they conclude per requirement id, and what they let through. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { assertProperty } from '../../fixtures/property.ts';
import { Finding } from '../../src/checks/finding.ts';
import {
  CannotObserve,
  cannotObserve,
  check,
  checkStep,
  markSetupFailure,
  notObserved,
  runWithChecks,
  StepFailed,
} from '../../src/harness/check.ts';
import { classify } from '../../src/harness/disposition.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import { fabricated } from '../support/fabricated-id.ts';

const inTest = <T>(ids: string[], fn: () => T) => {
  const conclusions: Conclusions = {};
  return { conclusions, result: runWithChecks({ ids, conclusions }, fn) };
};

describe('check', () => {
  test('sync and async checks are soft and concluded per id', async () => {
    const { conclusions, result } = inTest([fabricated('A'), fabricated('B')], async () => {
      const a = check(fabricated('A'), () => undefined);
      const b = check(fabricated('B'), () => {
        throw new Error('b is wrong');
      });
      const c = await check(fabricated('A'), async () => {
        throw new Error('a is wrong later');
      });
      return [a, b, c];
    });
    expect(await result).toEqual([true, false, false]);
    expect(conclusions).toEqual({
      A: [{ kind: 'held' }, { kind: 'violated', message: 'a is wrong later' }],
      B: [{ kind: 'violated', message: 'b is wrong' }],
    });
  });

  test('checkStep returns the value, or fails its id and stops with a StepFailed', async () => {
    const { conclusions, result } = inTest([fabricated('A')], async () => {
      expect(await checkStep(fabricated('A'), async () => 42)).toBe(42);
      await checkStep(fabricated('A'), () => {
        throw new Error('generation answered 500');
      });
    });
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailed);
    expect(classify(err).kind).toBe('step-failed');
    expect((err as Error).message).toBe('A: generation answered 500');
    expect(conclusions.A).toEqual([
      { kind: 'held' },
      { kind: 'violated', message: 'generation answered 500' },
    ]);
  });

  test('notObserved inside a check: that check concludes nothing else, and the test goes on', () => {
    const { conclusions, result } = inTest([fabricated('A'), fabricated('B')], () => {
      const a = check(fabricated('A'), () =>
        notObserved(fabricated('A'), 'the take was ready too fast', 'a slower server'),
      );
      const b = check(fabricated('B'), () => undefined);
      return [a, b];
    });
    expect(result).toEqual([false, true]);
    expect(conclusions).toEqual({
      A: [{ kind: 'not-observed', reason: 'the take was ready too fast', wouldJudge: 'a slower server' }],
      B: [{ kind: 'held' }],
    });
  });

  test('cannotObserve stops the test with its reason and remedy, recording nothing by itself', () => {
    let thrown: unknown;
    const { conclusions } = inTest([fabricated('A')], () => {
      try {
        check(fabricated('A'), () => cannotObserve('no second identity', '--second-token'));
      } catch (error) {
        thrown = error;
      }
    });
    expect(thrown).toBeInstanceOf(CannotObserve);
    expect(classify(thrown)).toEqual({
      kind: 'cannot-observe',
      reason: 'no second identity',
      wouldJudge: '--second-token',
    });
    expect(conclusions).toEqual({});
  });

  test('a CannotObserve behind a wrapper (a property that failed on it) is still not observed, and no shrinking', async () => {
    const unobservable = new CannotObserve('the list was not read to its end', 'an account with fewer takes');
    expect(classify(new Error('property failed', { cause: unobservable }))).toEqual({
      kind: 'cannot-observe',
      reason: 'the list was not read to its end',
      wouldJudge: 'an account with fewer takes',
    });
    let calls = 0;
    const error = await assertProperty(
      'unobservable property',
      fc.asyncProperty(fc.integer(), async () => {
        calls++;
        throw unobservable;
      }),
      { numRuns: 50, seed: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBe(unobservable);
    expect(calls).toBe(1);
  });

  test('a check of an id the test does not cover, or outside a test, is a harness bug', () => {
    expect(() => inTest([fabricated('A')], () => check(fabricated('B'), () => undefined))).toThrow(
      /does not cover it/,
    );
    expect(() => check(fabricated('A'), () => undefined)).toThrow(/outside a covers\(\) test/);
    expect(() => inTest([fabricated('A')], () => notObserved(fabricated('B'), 'r', 'w'))).toThrow(
      /does not cover it/,
    );
  });

  test('a skip inside a check stays a skip', () => {
    const skip = Object.assign(new Error('skipped'), { code: 'VITEST_PENDING' });
    expect(() =>
      inTest([fabricated('A')], () =>
        check(fabricated('A'), () => {
          throw skip;
        }),
      ),
    ).toThrow(skip);
  });

  test('markSetupFailure tags a shared scenario error', () => {
    const err = new Error('voice never ready');
    expect(classify(err).kind).toBe('finding');
    markSetupFailure(err);
    expect(classify(err).kind).toBe('setup');
  });
});

describe('run-wide facts', () => {
  const silent = () =>
    new Finding('request 7 got no message while the connection stayed open', {
      requirement: 'WS-SERIALIZED',
      runFact: true,
    });

  test('a finding a run-wide fact names fails that requirement where the test covers it', () => {
    const { conclusions } = inTest(['WS-SERIALIZED', fabricated('WS-X')], () => {
      check(fabricated('WS-X'), () => {
        throw silent();
      });
    });
    expect(conclusions).toEqual({
      'WS-SERIALIZED': [
        { kind: 'violated', message: 'request 7 got no message while the connection stayed open' },
      ],
    });
  });

  test('elsewhere it stops the test (covers() blocks what is left), failing nothing', () => {
    let thrown: unknown;
    const { conclusions } = inTest(['WS-RANDOM-TEXTS'], () => {
      try {
        check('WS-RANDOM-TEXTS', () => {
          throw silent();
        });
      } catch (error) {
        thrown = error;
      }
    });
    expect(classify(thrown)).toMatchObject({ kind: 'run-fact', requirement: 'WS-SERIALIZED' });
    expect(conclusions).toEqual({});
  });
});

describe('harness errors', () => {
  test('a programming error from our own code inside a check is a harness bug, not a violation', () => {
    const { conclusions } = inTest([fabricated('A')], () => {
      check(fabricated('A'), () => {
        const bug = new TypeError('items is undefined');
        bug.stack = 'TypeError: items is undefined\n    at list (/repo/src/checks/lists.ts:40:7)';
        throw bug;
      });
      check(fabricated('A'), () => {
        throw new Error('expected 200, got 500');
      });
    });
    expect(conclusions).toEqual({
      A: [
        {
          kind: 'harness-bug',
          message: 'items is undefined',
          bug: 'TypeError: items is undefined (at src/checks/lists.ts:40)',
        },
        { kind: 'violated', message: 'expected 200, got 500' },
      ],
    });
  });
});
