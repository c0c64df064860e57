/**
 * An expired credential the server still accepts is tried again while its leeway lasts
 * (src/harness/expiry.ts askPastExpiry, RFC 7519 §4.1.4): refused within it passes, accepted past it
 * fails, and a test that cannot try until the leeway's end concludes nothing. Fake timers: the
 * waits are the clock's, not a stopwatch's.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { askPastExpiry, doublingWaitMs, triesWithin } from '../../src/harness/expiry.ts';

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

type Tries = Parameters<typeof askPastExpiry<{ status: number }>>[0];

/**
 * askPastExpiry against `s`, its lifetime over 2 s before now with a 300 s leeway and a far bound
 * unless `o` says otherwise, run to its end on the fake clock.
 */
async function tried(s: ReturnType<typeof server>, o: Partial<Tries> = {}) {
  const pending = askPastExpiry({
    ask: s.ask,
    refused,
    expiresAtMs: 998_000,
    leewayMs: 300_000,
    stopAtMs: 2_000_000,
    wait,
    ...o,
  });
  await vi.runAllTimersAsync();
  return pending;
}

describe('an expired credential past its lifetime', () => {
  test('refused at once: one try, no leeway used', async () => {
    const s = server(0);
    const past = await tried(s);
    expect(past).toMatchObject({ kind: 'refused', pastMs: 2_000 });
    expect(s.tries).toHaveLength(1);
  });

  test('refused within the leeway: tried again every 2 s until then, and passes', async () => {
    const s = server(1_010_000); // the server allows 12 s past the lifetime
    const past = await tried(s);
    expect(past).toMatchObject({ kind: 'refused', pastMs: 12_000 });
    expect(s.tries.map((t) => t - 1_000_000)).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
  });

  test('still accepted once the leeway is over: a verdict, the last try at its end', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const past = await tried(s, {
      leewayMs: 5_000,
    });
    expect(past).toMatchObject({ kind: 'accepted', pastMs: 5_000 });
    expect(s.tries.at(-1)).toBe(1_003_000);
  });

  test('no leeway: accepted past the margin is a verdict at the first try', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    expect(
      await tried(s, {
        leewayMs: 0,
      }),
    ).toMatchObject({ kind: 'accepted' });
    expect(s.tries).toHaveLength(1);
  });

  test('the test cannot try until the leeway is over: within the leeway, no verdict', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const past = await tried(s, {
      stopAtMs: 1_005_000,
    });
    expect(past).toMatchObject({ kind: 'within-leeway', pastMs: 6_000, outOf: 'time' });
    expect(s.tries.at(-1)).toBeLessThanOrEqual(1_005_000);
  });
});

/**
 * A credential per try (a websocket URL may be single-use): `ask` is told which try it is, the waits
 * grow (doublingWaitMs), and the tries are as many as the credentials fetched (`maxTries`).
 */
describe('one credential per try, at growing waits', () => {
  test('each try is told its index, the waits double: 2 s, 4 s, 8 s, …', async () => {
    const s = server(1_020_000); // the server allows 22 s past the lifetime
    const attempts: number[] = [];
    const past = await tried(s, {
      ask: (attempt) => {
        attempts.push(attempt);
        return s.ask();
      },
      waitMs: doublingWaitMs,
    });
    expect(past).toMatchObject({ kind: 'refused', pastMs: 32_000 });
    expect(s.tries.map((t) => t - 1_000_000)).toEqual([0, 2_000, 6_000, 14_000, 30_000]);
    expect(attempts).toEqual([0, 1, 2, 3, 4]);
  });

  test('as many credentials as triesWithin says reach the leeway: a verdict, not out of tries', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const maxTries = triesWithin(300_000, doublingWaitMs);
    const past = await tried(s, {
      waitMs: doublingWaitMs,
      maxTries,
      expiresAtMs: 999_500, // the run's own stack: a 0.5 s margin
    });
    expect(past).toMatchObject({ kind: 'accepted', pastMs: 300_000 });
    expect(s.tries.length).toBeLessThanOrEqual(maxTries);
  });

  test('every credential used while still accepted within the leeway: no verdict, out of tries', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const past = await tried(s, {
      waitMs: doublingWaitMs,
      maxTries: 3,
    });
    expect(past).toMatchObject({ kind: 'within-leeway', pastMs: 8_000, outOf: 'tries' });
    expect(s.tries).toHaveLength(3);
  });

  test("a wait that would outrun the test's bound is cut short: one last try at the bound", async () => {
    const s = server(1_025_000);
    const past = await tried(s, {
      waitMs: doublingWaitMs,
      stopAtMs: 1_025_000, // the next doubled try (1 030 000) would come after it
    });
    expect(past).toMatchObject({ kind: 'refused', pastMs: 27_000 });
    expect(s.tries.map((t) => t - 1_000_000)).toEqual([0, 2_000, 6_000, 14_000, 25_000]);
  });

  test('still accepted at the bound: no verdict, out of time', async () => {
    const s = server(Number.POSITIVE_INFINITY);
    const past = await tried(s, {
      waitMs: doublingWaitMs,
      stopAtMs: 1_025_000,
    });
    expect(past).toMatchObject({ kind: 'within-leeway', pastMs: 27_000, outOf: 'time' });
    expect(s.tries.at(-1)).toBe(1_025_000);
  });
});

describe('triesWithin: the credentials a leeway needs', () => {
  test('doubling waits: 9 for the default 300 s, 3 for 5 s, 1 for none', () => {
    expect(triesWithin(300_000, doublingWaitMs)).toBe(9);
    expect(triesWithin(5_000, doublingWaitMs)).toBe(3);
    expect(triesWithin(0, doublingWaitMs)).toBe(1);
  });

  test('a try every 2 s would need one per 2 s of leeway', () => {
    expect(triesWithin(300_000, () => 2_000)).toBe(151);
  });
});
