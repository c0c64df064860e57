/**
 * A test's own waits (src/client/own-waits.ts): wall time in which at least one of its requests
 * waited as the server asked, counted once however many waited together, and also for an account
 * it runs inside.
 */
import { expect, test } from 'vitest';
import { currentOwnWaits, OwnWaits, withOwnWaits } from '../../src/client/own-waits.ts';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('overlapping waits count once; the running one counts so far', () => {
  const c = clock();
  const waits = new OwnWaits(undefined, c.now);
  waits.begin();
  c.advance(100);
  waits.begin();
  c.advance(50);
  waits.end();
  c.advance(50);
  expect(waits.ms()).toBe(200);
  waits.end();
  c.advance(1000);
  expect(waits.ms(), 'no wait since').toBe(200);
});

test('an account opened inside another counts for the outer one too', () => {
  const c = clock();
  const outer = new OwnWaits(undefined, c.now);
  const inner = withOwnWaits(outer, () => new OwnWaits(currentOwnWaits(), c.now));
  inner.begin();
  c.advance(300);
  inner.end();
  expect(inner.ms()).toBe(300);
  expect(outer.ms()).toBe(300);
});

test('the account follows the async context of the body it was given', async () => {
  const waits = new OwnWaits();
  const seen = await withOwnWaits(waits, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return currentOwnWaits();
  });
  expect(seen).toBe(waits);
  expect(currentOwnWaits()).toBeUndefined();
});
