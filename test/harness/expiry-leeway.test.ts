/**
 * An expired credential the server still accepts is tried again while its leeway lasts
 * (src/harness/expiry.ts askPastExpiry, RFC 7519 §4.1.4): refused within it passes, accepted past it
 * fails, and a test that cannot try until the leeway's end concludes nothing. Fake timers: the
 * waits are the clock's, not a stopwatch's.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { askPastExpiry } from '../../src/harness/expiry.ts';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A server that accepts (200) until `refusesFromMs`, then refuses (401); every try is recorded. */
function server(refusesFromMs: number) {
  const tries: number[] = [];
  return {
    tries,
    ask: async () => {
      tries.push(Date.now());
      return { status: Date.now() >= refusesFromMs ? 401 : 200 };
    },
  };
}

const refused = (answer: { status: number }) => answer.status >= 400;
/** The wait between tries on the fake clock. */
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an expired credential past its lifetime', () => {
  test('refused at once: one try, no leeway used', async () => {
    const s = server(0);
    const past = await askPastExpiry({
      ask: s.ask,
      refused,
      expiresAtMs: 998_000,
      leewayMs: 300_000,
      stopAtMs: 2_000_000,
      wait,
    });
    expect(past).toMatchObject({ kind: 'refused', pastMs: 2_000 });
    expect(s.tries).toHaveLength(1);
  });

  test('refused within the leeway: tried again every 2 s until then, and passes', async () => {
    const s = server(1_010_000); // the server allows 12 s past the lifetime
    const pending = askPastExpiry({
      ask: s.ask,
      refused,
      expiresAtMs: 998_000,
      leewayMs: 300_000,
      stopAtMs: 2_000_000,
      wait,
    });
    await vi.runAllTimersAsync();
    const past = await pending;
    expect(past).toMatchObject({ kind: 'refused', pastMs: 12_000 });
    expect(s.tries.map((t) => t - 1_000_000)).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
  });

  test('still accepted once the leeway is over: a verdict, the last try at its end', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const pending = askPastExpiry({
      ask: s.ask,
      refused,
      expiresAtMs: 998_000,
      leewayMs: 5_000,
      stopAtMs: 2_000_000,
      wait,
    });
    await vi.runAllTimersAsync();
    expect(await pending).toMatchObject({ kind: 'accepted', pastMs: 5_000 });
    expect(s.tries.at(-1)).toBe(1_003_000);
  });

  test('no leeway: accepted past the margin is a verdict at the first try', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    expect(
      await askPastExpiry({
        ask: s.ask,
        refused,
        expiresAtMs: 998_000,
        leewayMs: 0,
        stopAtMs: 2_000_000,
        wait,
      }),
    ).toMatchObject({ kind: 'accepted' });
    expect(s.tries).toHaveLength(1);
  });

  test('the test cannot try until the leeway is over: within the leeway, no verdict', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const pending = askPastExpiry({
      ask: s.ask,
      refused,
      expiresAtMs: 998_000,
      leewayMs: 300_000,
      stopAtMs: 1_005_000,
      wait,
    });
    await vi.runAllTimersAsync();
    expect(await pending).toMatchObject({ kind: 'within-leeway', pastMs: 6_000 });
    expect(s.tries.at(-1)).toBeLessThanOrEqual(1_005_000);
  });
});
