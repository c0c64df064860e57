/**
 * The decisions the rest of src/ asks the standing (src/verdict/standing.ts) instead of comparing an
 * outcome's name itself (issue 48): what a test's state is, what a reader acts on, how a
 * requirement moved between two runs.
 */
import { describe, expect, test } from 'vitest';
import type { Conclusion, Conclusions } from '../../src/verdict/conclusion.ts';
import type { TestState } from '../../src/verdict/model.ts';
import {
  changeBetween,
  isAgainst,
  isFine,
  isToActOn,
  type Standable,
  testStateOf,
} from '../../src/verdict/standing.ts';

const notConcluded: Conclusion = {
  kind: 'not-concluded',
  cause: 'timeout',
  reason: 'bound',
  wouldJudge: 'x',
};
const violated: Conclusion = { kind: 'violated', message: 'answered 500' };
const blocked: Conclusion = { kind: 'blocked', by: 'the login failed' };
const held: Conclusion = { kind: 'held' };

const must = (decided?: Conclusion, expected = false): Standable => ({
  level: 'MUST',
  covered: true,
  ...(decided ? { decided } : {}),
  ...(expected ? { expected: { reason: 'known' } } : {}),
});
const info = (decided?: Conclusion): Standable => ({
  level: 'INFO',
  covered: true,
  ...(decided ? { decided } : {}),
});

describe('a test state as the verdict keeps it', () => {
  const cases: [Parameters<typeof testStateOf>[0], boolean, Conclusions | undefined, TestState][] = [
    ['pending', false, undefined, 'skipped'],
    ['pending', true, undefined, 'not-concluded'],
    ['failed', false, { A: [notConcluded] }, 'not-concluded'],
    ['failed', false, { A: [notConcluded, violated] }, 'failed'],
    ['failed', false, undefined, 'failed'],
    ['passed', true, { A: [held] }, 'passed'],
    ['skipped', false, undefined, 'skipped'],
  ];
  test.each(cases)('%s (run stopped: %s, conclusions %j) → %s', (state, stopped, conclusions, kept) => {
    expect(testStateOf(state, stopped, conclusions)).toBe(kept);
  });
});

describe('what a reader acts on', () => {
  test('failed, blocked and not judged MUSTs; not an expected failure, not a pass, never INFO', () => {
    expect([must(violated), must(blocked), must(undefined), must(notConcluded)].map(isToActOn)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([must(held), must(violated, true), info(held), info(violated)].map(isToActOn)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([must(held), info(held), must(violated), must(undefined)].map(isFine)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  test('a conclusion against the server: violated or blocked, nothing else', () => {
    expect([violated, blocked, held, notConcluded].map(isAgainst)).toEqual([true, true, false, false]);
  });
});

describe('how a requirement moved between two runs', () => {
  test.each([
    [must(held), must(violated), 'new-failure', 'worse'],
    [must(blocked), must(violated), 'new-failure', 'worse'],
    [must(violated), must(held), 'fixed', 'better'],
    [must(held), must(blocked), 'no-longer-judged', 'worse'],
    [must(held), must(notConcluded), 'no-longer-judged', 'neither'],
    [must(violated), must(blocked), 'no-longer-judged', 'neither'],
    [must(undefined), must(held), 'newly-judged', 'better'],
    [must(blocked), must(notConcluded), 'verdict-changed', 'neither'],
    [must(held), info(held), 'verdict-changed', 'neither'],
  ] as const)('%j → %j: %s, %s', (from, to, kind, direction) => {
    expect(changeBetween(from, to)).toEqual({ kind, direction });
  });
});
