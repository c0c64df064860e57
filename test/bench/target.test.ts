/** bench's targets (issue 51 item 7): too few runs near a target are INCONCLUSIVE, never "met". */
import { describe, expect, test } from 'vitest';
import { judgeTarget, worstOutcome } from '../../src/figures/target.ts';

describe('judgeTarget', () => {
  test('one run within 10 % of the target: inconclusive, on either side of it', () => {
    expect(judgeTarget([9.6], 10, 'at most')).toBe('inconclusive');
    expect(judgeTarget([10.4], 10, 'at most')).toBe('inconclusive');
  });

  test('one run far from the target decides: met or missed', () => {
    expect(judgeTarget([7], 10, 'at most')).toBe('met');
    expect(judgeTarget([30], 10, 'at most')).toBe('missed');
    expect(judgeTarget([2.5], 1.7, 'at least')).toBe('met');
  });

  test('three runs decide by their median, however close', () => {
    expect(judgeTarget([9.9, 10.1, 9.95], 10, 'at most')).toBe('met');
    expect(judgeTarget([10.05, 10.1, 9.9], 10, 'at most')).toBe('missed');
  });

  test('the worst outcome: a miss, else undecided, else met', () => {
    expect(worstOutcome(['met', 'inconclusive'])).toBe('inconclusive');
    expect(worstOutcome(['inconclusive', 'missed'])).toBe('missed');
    expect(worstOutcome(['met'])).toBe('met');
  });
});
