/**
 * The run's own logouts, per customer (issue: fairness to "log out everywhere"). speak-v1.md says a
 * logout "revokes that refresh token. Afterwards no new access token can be obtained with it." and
 * names no other token that must survive it: a server may end every session of the customer with
 * one logout (reference latitude `logout-everywhere`; SEQ-LOGOUT-ONE-SESSION is INFO). The suites run
 * in parallel, so one file's logout may end another file's session of the same customer; a refresh
 * refused after such a logout is evidence of nothing the contract requires. Every logout the run
 * sends is recorded before it is sent and again when answered, so a refusal it caused always finds
 * it (`loggedOutSince`).
 */
import { randomUUID } from 'node:crypto';
import { type FactStore, runFacts } from './run-facts.ts';

const customer = (email: string) => email.trim().toLowerCase();

/** Sends a logout of `email`'s customer through `send` (given the logout's key), recorded around it. */
export async function recordedLogout<T>(
  email: string | undefined,
  send: (key?: string) => Promise<T>,
  facts: FactStore = runFacts(),
): Promise<T> {
  if (email === undefined) return send();
  const key = `logout:${randomUUID()}` as const;
  facts.record({ type: 'logout', key, email: customer(email), phase: 'sent' });
  try {
    return await send(key);
  } finally {
    facts.record({ type: 'logout', key, email: customer(email), phase: 'answered' });
  }
}

/**
 * Whether the run logged out some session of `email`'s customer that may have ended a session
 * logged in at `sinceMs` (epoch ms, taken before its login was sent): a logout still unanswered,
 * or answered at or after it; `except` the logout of that key (the caller's own).
 */
export function loggedOutSince(
  email: string,
  sinceMs: number,
  facts: FactStore = runFacts(),
  except?: string,
): boolean {
  const mine = facts.ofType('logout').filter((f) => f.email === customer(email) && f.key !== except);
  const answeredAt = new Map(mine.filter((f) => f.phase === 'answered').map((f) => [f.key, f.atMs ?? 0]));
  return mine.some(
    (f) => f.phase === 'sent' && (answeredAt.get(f.key) ?? Number.POSITIVE_INFINITY) >= sinceMs,
  );
}
