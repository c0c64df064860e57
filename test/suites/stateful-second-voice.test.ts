/**
 * The second customer's voice of the sequences (suites/stateful/second-customer.ts, ownVoice) is
 * waited for by the run's wait (waitUntilDone), so the wait ledger learns a stuck voice once: the
 * next voice of the run is not waited for its whole bound again.
 */
import { beforeEach, expect, test } from 'vitest';
import { resetMemoryFacts } from '../../src/facts/run-facts.ts';
import type { Exchange, SpeakClient, SpeakContext } from '../../src/harness/index.ts';
import { NotWaitedAgain, ReadyBoundExceeded } from '../../src/harness/index.ts';
import { ownVoice } from '../../suites/stateful/second-customer.ts';
import { voiceBody } from '../support/voice-body.ts';

// A run of its own: no stuck or done voice of another test file in this thread (the ledger's facts).
beforeEach(() => resetMemoryFacts());

const answer = (url: string, json: unknown): Exchange =>
  ({ status: 200, json, text: JSON.stringify(json), headers: {}, method: 'GET', url }) as unknown as Exchange;

/** A second customer whose voices never get ready; counts the polls. */
function stuckCustomer() {
  let made = 0;
  const polls: string[] = [];
  const client = {
    post: async (path: string) => answer(`http://127.0.0.1:1${path}`, { voice_id: `vc_second${++made}` }),
    get: async (path: string) => {
      polls.push(path);
      return answer(`http://127.0.0.1:1${path}`, voiceBody(decodeURIComponent(path.split('/').pop()!)));
    },
  } as unknown as SpeakClient;
  return { client, polls };
}

test("a stuck second customer's voice is written in the run's wait ledger, and the next one is not waited out again", async () => {
  const speak = {
    config: { timeouts: { readyMs: 200 } },
    model: { name: 'm1', genders: ['female'] },
    prefix: (name: string) => `speakcheck-${name}`,
  } as unknown as SpeakContext;
  const { client, polls } = stuckCustomer();
  await expect(ownVoice(speak, client, 'sequences-second')).rejects.toBeInstanceOf(ReadyBoundExceeded);
  expect(polls.length).toBeGreaterThanOrEqual(1);
  const before = polls.length;
  await expect(ownVoice(speak, client, 'sequences-second')).rejects.toBeInstanceOf(NotWaitedAgain);
  expect(polls.length - before).toBeLessThanOrEqual(2);
});
