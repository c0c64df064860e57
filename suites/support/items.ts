/**
 * Creating voices and takes, reading one back, and waiting for them: every item created is tracked
 * for cleanup, every wait is bounded (the run's ready timeout) and polls at a small interval,
 * recording the status sequence and each observed body for the ordering and info checks.
 * Lists are in lists.ts, scenario mechanics (once, prefetch, useSharedVoice) in scenarios.ts,
 * shared assertions in assertions.ts.
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import type { Take, Voice } from '../../schemas/types.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { distinctRuns, isDone } from '../../src/checks/status.ts';
import {
  against,
  allowedWaitMs,
  type Exchange,
  expectSchema,
  NotWaitedAgain,
  type ObservedSequence,
  OwnWaits,
  ReadyBoundExceeded,
  recordSequence,
  runThrottle,
  runWaitLedger,
  type SpeakClient,
  type SpeakContext,
  type WaitLedger,
  withOwnWaits,
} from '../../src/harness/index.ts';
import { expectCreated } from './assertions.ts';
import { perFile } from './per-file.ts';

/** The shapes of schemas/ (generated types): what the contract says a voice and a take are. */
export type { Take, TakeInfo, Voice } from '../../schemas/types.ts';

const POLL_START_MS = 60;
const POLL_MAX_MS = 300;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * expectSchema for a Voice or Take body: a schema finding is evidence against the kind's field-types
 * requirement wherever it surfaces (a generation step, a wait), so check() attributes it there.
 */
export function expectItemSchema(kind: ItemKind, schema: string, json: unknown, what: string): void {
  against(kind === 'take' ? 'TAKE-FIELD-TYPES' : 'VOICE-FIELD-TYPES', () => expectSchema(schema, json, what));
}

/** The schema of one item of `kind`. */
const schemaOf = (kind: ItemKind) => (kind === 'take' ? 'Take' : 'Voice');

/**
 * POST /{kind}s/generate: a 2xx with the item, tracked for cleanup as soon as it has an id (before
 * its schema is judged, so a malformed item is still deleted), then schema-checked.
 */
async function generate(
  s: SpeakContext,
  kind: ItemKind,
  body: Record<string, unknown>,
): Promise<{ exchange: Exchange; json: unknown }> {
  const exchange = await s.api.post(`/v1/speak/${kind}s/generate`, body);
  const json = expectCreated(exchange, `${kind} generation`);
  const id = (json as Record<string, unknown> | null)?.[`${kind}_id`];
  if (typeof id === 'string' && id) s.track(kind, id);
  expectItemSchema(kind, schemaOf(kind), json, `the generated ${kind}`);
  return { exchange, json };
}

export async function generateVoice(
  s: SpeakContext,
  body: Record<string, unknown>,
): Promise<{ exchange: Exchange; voice: Voice }> {
  const { exchange, json } = await generate(s, 'voice', body);
  return { exchange, voice: json as Voice };
}

export async function generateTake(
  s: SpeakContext,
  body: Record<string, unknown>,
): Promise<{ exchange: Exchange; take: Take }> {
  const { exchange, json } = await generate(s, 'take', body);
  return { exchange, take: json as Take };
}

export async function getItem<T>(s: SpeakContext, kind: ItemKind, id: string, client = s.api): Promise<T> {
  const exchange = await client.get(`/v1/speak/${kind}s/${encodeURIComponent(id)}`);
  const json = expectCreated(exchange, `GET ${kind} ${id.slice(0, 8)}`);
  if (Array.isArray(json)) {
    throw new Finding(
      `GET /v1/speak/${kind}s/{id} answered an array (${json.length} items), expected one object`,
      {
        where: exchange.url,
        expected: 'object',
        actual: 'array',
        requirement: kind === 'take' ? 'TAKE-GET-OBJECT' : 'VOICE-GET-OBJECT',
      },
    );
  }
  expectItemSchema(kind, schemaOf(kind), json, `the ${kind} from GET`);
  return json as T;
}

export interface Polled<T> {
  final: T;
  /** Every status observed, in order, starting with the one passed in (if any). */
  statuses: string[];
  /** Every body observed, in order. */
  snapshots: T[];
  /** When each snapshot was observed (ms since the epoch): the first one passed in, when polling began. */
  times: number[];
  ms: number;
}

/** One type for a polled sequence, this file's and the run's (src/harness/run-sequences.ts). */
export type { ObservedSequence };

/** Every body sequence waitUntilDone observed in this file. */
const sequencesOf = perFile<ObservedSequence[]>(() => []);

/** Every body sequence waitUntilDone observed in this file (this SpeakContext), for checks over all of them. */
export function observedSequences(s: SpeakContext): readonly ObservedSequence[] {
  return sequencesOf(s);
}

/** The run's ledger of stuck waits (src/harness/wait-ledger.ts): one wait per stuck thing, run-wide. */
function waitLedger(): WaitLedger {
  return runWaitLedger();
}

/**
 * Polls GET /{kind}s/{id} until a done state (ready | error | timeout), bounded by the run's
 * ready timeout from `since` (the item's creation when it was made before this wait, e.g. the
 * shared voice; default: now), not counting the time the server asked it to wait (its Retry-After:
 * the run's holds, the polls' own waits). Throws a Finding when the bound passes or the final state is not
 * `ready` (unless `acceptFailure`). A wait that runs its whole bound is written in the run's ledger;
 * from then on, waits of the same kind end early with NotWaitedAgain (the stuck item itself after
 * one poll, another after twice the slowest done item of its kind this run, at least a second).
 */
export async function waitUntilDone<T extends { status: string }>(
  s: SpeakContext,
  kind: ItemKind,
  id: string,
  /** `client`: the customer the item is of (the run's second identity's own items); default s.api. */
  o: {
    first?: T;
    boundMs?: number;
    acceptFailure?: boolean;
    since?: number;
    /** The run's held time (SharedThrottle.heldPastMs) at `since`. */
    heldSince?: number;
    client?: SpeakClient;
  } = {},
): Promise<Polled<T>> {
  const bound = o.boundMs ?? s.config.timeouts.readyMs;
  const started = Math.min(o.since ?? Date.now(), Date.now());
  // The bound counts the wait's own time: while the server's Retry-After holds the whole run (a
  // 429), no poll can be sent, so that hold is not counted (back-pressure is never a verdict): from
  // the item's creation when `since` is given (`heldSince`: the run's held time then), else from now;
  // nor is the time a poll waited as the server asked (a 503's Retry-After: the polls' own waits).
  const throttle = runThrottle();
  const heldAtStart =
    o.since !== undefined && o.heldSince !== undefined ? o.heldSince : throttle.heldPastMs();
  const polls = new OwnWaits();
  return withOwnWaits(polls, () => poll());

  async function poll(): Promise<Polled<T>> {
    const snapshots: T[] = o.first ? [o.first] : [];
    const times: number[] = o.first ? [Date.now()] : [];
    sequencesOf(s).push({ kind, id, snapshots });
    let interval = POLL_START_MS;
    for (;;) {
      const item = await getItem<T>(s, kind, id, o.client);
      snapshots.push(item);
      times.push(Date.now());
      if (isDone(item.status)) break;
      // A run-wide hold and a poll's own wait may overlap: never more left out than has passed.
      const elapsedMs = Date.now() - started;
      const heldMs = Math.min(elapsedMs, Math.max(0, throttle.heldPastMs() - heldAtStart) + polls.ms());
      const waitedMs = elapsedMs - heldMs;
      if (waitedMs > bound) {
        const stuck = {
          kind,
          id,
          statuses: distinctRuns(snapshots.map((x) => x.status)),
          polls: snapshots.length,
          waitedMs,
          boundMs: bound,
          ...(heldMs > 0 ? { heldMs } : {}),
        };
        waitLedger().recordStuck(stuck);
        throw new ReadyBoundExceeded(stuck, item.status);
      }
      const known = allowedWaitMs(waitLedger(), kind, id, bound);
      if (known.stuck && waitedMs >= known.allowedMs) {
        throw new NotWaitedAgain(kind, id, known.stuck, {
          status: item.status,
          waitedMs,
          sameItem: known.stuck.id === id,
        });
      }
      await sleep(interval);
      interval = Math.min(POLL_MAX_MS, Math.round(interval * 1.3));
    }
    waitLedger().recordDone(kind, id, Date.now() - started);
    // Judged by the takes file too, whichever file polled it (issue 49: every read is evidence).
    recordSequence({ kind, id, snapshots });
    const final = snapshots[snapshots.length - 1]!;
    if (final.status !== 'ready' && !o.acceptFailure) {
      throw new Finding(`${kind} ${id.slice(0, 8)} ended in ${show(final.status)} instead of ready`, {
        where: `${kind} ${id}`,
        expected: 'ready',
        actual: final.status,
      });
    }
    return { final, statuses: snapshots.map((x) => x.status), snapshots, times, ms: Date.now() - started };
  }
}
