/**
 * The ready bound counts the wait's own time (suites/support/items.ts waitUntilDone): while the
 * server's Retry-After holds the whole run, no poll can be sent, so that hold is not counted —
 * back-pressure is never a verdict. A wait with no hold still fails at its bound.
 */
import { beforeEach, expect, test } from 'vitest';
import type { Status } from '../../schemas/types.ts';
import { waitAsAsked } from '../../src/client/own-waits.ts';
import { resetMemoryFacts } from '../../src/facts/run-facts.ts';
import type { Exchange, SpeakClient, SpeakContext } from '../../src/harness/index.ts';
import { ReadyBoundExceeded, runThrottle } from '../../src/harness/index.ts';
import { waitUntilDone } from '../../suites/support/items.ts';
import { voiceBody } from '../support/voice-body.ts';

const answer = (path: string, status: string): Exchange =>
  ({
    status: 200,
    json: voiceBody(decodeURIComponent(path.split('/').pop()!), status as Status),
    text: '',
    headers: {},
    method: 'GET',
    url: `http://127.0.0.1:1${path}`,
  }) as unknown as Exchange;

/** A context whose voices are ready `readyAfterMs` after the first poll; `onPoll` runs at each poll. */
function context(
  readyMs: number,
  readyAfterMs: number,
  onPoll: (n: number) => void | Promise<void> = () => undefined,
) {
  let first: number | undefined;
  let polls = 0;
  const api = {
    get: async (path: string) => {
      first ??= Date.now();
      await onPoll(++polls);
      return answer(path, Date.now() - first >= readyAfterMs ? 'ready' : 'waiting');
    },
  } as unknown as SpeakClient;
  return { config: { timeouts: { readyMs } }, api } as unknown as SpeakContext;
}

// Each test a run of its own: no hold, no stuck or done item of an earlier test in this thread.
beforeEach(() => {
  runThrottle().reset({});
  resetMemoryFacts();
});

test("a hold of the server's Retry-After during the wait is not counted against the ready bound", async () => {
  const throttle = runThrottle();
  // The server asks the whole run to wait 400 ms at the first poll: the item is ready 500 ms after
  // it, past the 300 ms bound in wall time, within it in the wait's own time.
  const s = context(300, 500, (n) => {
    if (n === 1) throttle.noteThrottled(429, 400, 400);
  });
  const polled = await waitUntilDone(s, 'voice', `vc_held${Date.now()}`);
  expect(polled.final.status).toBe('ready');
  expect(polled.ms).toBeGreaterThanOrEqual(500);
});

test("a poll's own wait as the server asked (a 503's Retry-After) is not counted either", async () => {
  const s = context(300, 500, async (n) => {
    if (n === 1) await waitAsAsked(400);
  });
  const polled = await waitUntilDone(s, 'voice', `vc_503${Date.now()}`);
  expect(polled.final.status).toBe('ready');
});

test('a hold under way when the wait starts counts only for the part still ahead', async () => {
  const throttle = runThrottle();
  // Announced just before the wait (another thread's 429): counted in full by heldMs at once, so
  // the wait must count it from heldPastMs, or the 400 ms would stay inside its own time.
  throttle.noteThrottled(429, 400, 400);
  const s = context(300, 500);
  const polled = await waitUntilDone(s, 'voice', `vc_underway${Date.now()}`);
  expect(polled.final.status).toBe('ready');
});

test("an item's wait from its creation does not count the holds since then (the shared voice)", async () => {
  const throttle = runThrottle();
  const heldSince = throttle.heldPastMs();
  const since = Date.now();
  throttle.noteThrottled(429, 400, 400);
  await new Promise((resolve) => setTimeout(resolve, 450)); // another file's wait started after the hold
  const s = context(300, 150);
  const polled = await waitUntilDone(s, 'voice', `vc_since${Date.now()}`, { since, heldSince });
  expect(polled.final.status).toBe('ready');
});

test('without a hold the same wait fails at its bound, naming its own time', async () => {
  const s = context(300, 500);
  const failed = await waitUntilDone(s, 'voice', `vc_plain${Date.now()}`).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(ReadyBoundExceeded);
  expect((failed as ReadyBoundExceeded).stuck.heldMs).toBeUndefined();
  expect((failed as Error).message).toMatch(/within 300 ms \(waited 0\.\d s, \d+ polls/);
});
