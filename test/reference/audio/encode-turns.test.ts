/** The ffmpeg limiter of reference/audio/encode.ts: at most N encoders at once, the rest in order. */
import { describe, expect, it } from 'vitest';
import { createTurns } from '../../../reference/audio/encode.ts';

describe('createTurns', () => {
  it('lets `slots` holders in at once and the next one in as soon as one releases, in order', async () => {
    const turn = createTurns(2);
    const order: string[] = [];
    const a = await turn();
    const b = await turn();
    const c = turn().then((release) => {
      order.push('c');
      return release;
    });
    const d = turn().then((release) => {
      order.push('d');
      return release;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order, 'two hold their turns: the third and fourth wait').toEqual([]);
    a();
    a(); // a second release of one turn frees nothing more
    const releaseC = await c;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['c']);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    // Both slots free again: two more get in at once.
    await turn();
    await turn();
  });
});
