/**
 * The run's own logouts (src/facts/logouts.ts): a refusal of a session is explained by a logout of
 * the same customer that was in flight or answered after the session's login, never by one answered
 * before it nor by another customer's.
 */
import { describe, expect, test } from 'vitest';
import { loggedOutSince, recordedLogout } from '../../src/facts/logouts.ts';
import { memoryFacts } from '../../src/facts/run-facts.ts';

describe('loggedOutSince', () => {
  test('a logout answered after the login explains a refusal; one before it does not', async () => {
    const facts = memoryFacts();
    await recordedLogout('A@example.test', async () => true, facts);
    const answered = facts.ofType('logout').at(-1)!.atMs!;
    expect(loggedOutSince('a@example.test', answered, facts)).toBe(true);
    expect(loggedOutSince('a@example.test', answered + 1, facts)).toBe(false);
    expect(loggedOutSince('b@example.test', 0, facts)).toBe(false);
  });

  test('a logout still in flight explains a refusal of a session logged in after it was sent', async () => {
    const facts = memoryFacts();
    let seen: boolean | undefined;
    await recordedLogout(
      'a@example.test',
      async () => {
        seen = loggedOutSince('a@example.test', Date.now() + 60_000, facts);
      },
      facts,
    );
    expect(seen).toBe(true);
  });

  test('a logout that threw is still answered (recorded in finally)', async () => {
    const facts = memoryFacts();
    await expect(
      recordedLogout('a@example.test', async () => Promise.reject(new Error('reset')), facts),
    ).rejects.toThrow('reset');
    expect(loggedOutSince('a@example.test', Date.now() + 60_000, facts)).toBe(false);
  });

  test('without an email (a permanent token) nothing is recorded', async () => {
    const facts = memoryFacts();
    expect(await recordedLogout(undefined, async () => 7, facts)).toBe(7);
    expect(facts.ofType('logout')).toHaveLength(0);
  });
});
