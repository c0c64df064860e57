/**
 * WEBHOOK-STATUS-ORDERED is judged on two status calls or more (suites/support/status-order.ts):
 * with none or one nothing is compared, so it is not observed, never held.
 */
import { describe, expect, test } from 'vitest';
import { runWithChecks } from '../../src/harness/check.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import { judgeStatusOrder } from '../../suites/support/status-order.ts';

const ID = 'WEBHOOK-STATUS-ORDERED';

/** What judging `statuses` concluded for the id, as inside a covers() test of it. */
function judged(statuses: string[]): Conclusions[string] | undefined {
  const conclusions: Conclusions = {};
  runWithChecks({ ids: [ID], conclusions }, () =>
    judgeStatusOrder(ID, statuses, 'take tk_1 status_webhook calls', 'a slower take'),
  );
  return conclusions[ID];
}

describe('the order of status calls', () => {
  test.each([
    [[], /no status call arrived; an order needs two/],
    [['ready'], /one status call \(ready\) arrived; an order needs two/],
  ])('with %j: not observed, with why and what would judge it', (statuses, reason) => {
    expect(judged(statuses)).toEqual([
      { kind: 'not-observed', reason: expect.stringMatching(reason), wouldJudge: 'a slower take' },
    ]);
  });

  test('two calls in order: held', () => {
    expect(judged(['progress_50', 'ready'])).toEqual([{ kind: 'held' }]);
  });

  test('a done status left for another: violated', () => {
    expect(judged(['ready', 'progress_50'])).toEqual([expect.objectContaining({ kind: 'violated' })]);
  });
});
