/**
 * Websocket URLs the worker must not upgrade (an expired one, one with its secret removed or
 * altered). Refused means not upgraded: any non-101 answer, or a connection closed before an answer
 * (src/checks/upgrade-refusal.ts says why, and what is neither). The status of each refusal is an
 * observation; only an accepted connection fails. The refusals are judged next to an unaltered URL
 * that opens: a server that refuses every URL, or cannot be reached, shows nothing about the ones
 * altered.
 */
import { Finding } from '../../src/checks/finding.ts';
import {
  classifyUpgradeFailure,
  describeUpgradeOutcome,
  isRefusal,
  type UpgradeOutcome,
} from '../../src/checks/upgrade-refusal.ts';
import {
  notObserved,
  observe,
  type RequirementId,
  SpeakStreamConnection,
  WsClientError,
} from '../../src/harness/index.ts';

/** One upgrade of `url`; an accepted connection is closed at once. Lets through what is no outcome (back-pressure past its bound). */
export async function attemptUpgrade(url: string, timeoutMs: number): Promise<UpgradeOutcome> {
  let conn: SpeakStreamConnection;
  try {
    conn = await SpeakStreamConnection.connect(url, { timeoutMs });
  } catch (error) {
    const outcome = error instanceof WsClientError ? classifyUpgradeFailure(error) : undefined;
    if (outcome === undefined) throw error;
    return outcome;
  }
  await conn.close();
  return { kind: 'accepted' };
}

/** A URL the worker must not upgrade, and why it must not ("query parameter sig altered at 25 % of its length"). */
export interface MustNotUpgrade {
  url: string;
  why: string;
}

/** A URL the worker must not upgrade, tried: why it must not, and what became of the upgrade. */
export interface TriedUpgrade {
  why: string;
  outcome: UpgradeOutcome;
}

/**
 * Inside `check(id, …)`: none of `urls` may be upgraded. Fails (a Finding naming each) when one
 * was accepted; observes how each was refused, a 5xx or a closed connection named as such. Then
 * tries `unaltered()` (a URL as issued, not used yet): unless it opens, the refusals do not show
 * that `difference` (what the altered URLs lack) made them, and `id` is not observed; nor is it
 * when an altered URL got neither an answer nor a closed connection (no connection at all, no
 * answer in time).
 */
export async function expectUpgradesRefused(
  id: RequirementId,
  urls: readonly MustNotUpgrade[],
  unaltered: () => Promise<string>,
  o: { timeoutMs: number; difference: string },
): Promise<void> {
  const tried: TriedUpgrade[] = [];
  for (const { url, why } of urls) tried.push({ why, outcome: await attemptUpgrade(url, o.timeoutMs) });
  await judgeUpgrades(id, tried, unaltered, o);
}

/**
 * expectUpgradesRefused's judgement of upgrades already tried, for a caller that tries them its own
 * way (past an expiry, again while a leeway lasts: suites/expiry.spec.ts).
 */
export async function judgeUpgrades(
  id: RequirementId,
  tried: readonly TriedUpgrade[],
  unaltered: () => Promise<string>,
  o: { timeoutMs: number; difference: string },
): Promise<void> {
  const accepted = tried.filter((t) => t.outcome.kind === 'accepted');
  if (accepted.length > 0)
    throw new Finding(
      `${accepted.map((t) => t.why).join('; ')}: the worker accepted the connection; it must not upgrade it`,
      {
        expected: 'not upgraded (any answer but 101, or the connection closed)',
        actual: '101 Switching Protocols',
      },
    );
  for (const { why, outcome } of tried)
    observe('websocket.upgrade-refused', '{why}: {outcome}', {
      values: { kind: outcome.kind, status: 'status' in outcome ? outcome.status : null },
      particulars: { why, outcome: describeUpgradeOutcome(outcome) },
    });
  const control = await attemptUpgrade(await unaltered(), o.timeoutMs);
  if (control.kind !== 'accepted')
    return notObserved(
      id,
      `an unaltered URL was not upgraded either (${describeUpgradeOutcome(control)}): the refusals do not show that ${o.difference} made the difference`,
      'a run where the server accepts an unaltered websocket URL',
    );
  const unseen = tried.filter((t) => !isRefusal(t.outcome));
  if (unseen.length > 0)
    notObserved(
      id,
      `neither accepted nor refused: ${unseen.map((t) => `${t.why}: ${describeUpgradeOutcome(t.outcome)}`).join('; ')}`,
      'an answer to the upgrade of each URL, or the connection closed by the server',
    );
}
