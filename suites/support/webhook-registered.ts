/**
 * Every done and status call is judged, not one sample (issue 49): each item a scenario of the
 * webhooks file made with a hook (the main take, the post_url take, the retried take, the websocket
 * take, the voice, the in-progress attempts) has its own sink token, so every call that arrived
 * under it was registered for that item. Each done call must be about that item (its id), be a done
 * body of its kind (schema, a done status) and agree with what the run saw of it (polling's final
 * status, GET right after the call); each status call must be a Take about that take, and a done
 * status it carries the one the run saw. A worker that mixes up its queue, sending one take's body
 * to another take's hook, is caught on whichever take it happens to. An item no call of a hook had
 * come for is not judged on it (hasCallsOf): nothing was seen, so it is neither a pass nor a failure.
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import type { Take, Voice } from '../../schemas/types.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { assertDoneBodyOfTake, assertStatusCallOfTake, callsOf } from '../../src/checks/webhook-calls.ts';
import { assertWebhookBodyMatchesGet } from '../../src/checks/webhooks.ts';
import {
  check,
  expectSchema,
  notObserved,
  type SpeakContext,
  statusOf,
  type WebhookCall,
} from '../../src/harness/index.ts';
import type { WebhookScenarios } from './webhook-scenarios.ts';
import { ARRIVAL_BOUND_MS, type InProgressAttempt, type TakeScenario } from './webhook-takes.ts';

/** One item with a done_webhook, with every call its token received and what the run saw of it. */
export interface RegisteredItem {
  kind: ItemKind;
  id: string;
  /** "post_url take tk_…" */
  label: string;
  calls: readonly WebhookCall[];
  /** The status the run last saw the item in (polling, or the websocket's last Take message). */
  seenStatus?: string;
  /** What GET answered right after the first done call, when the run asked. */
  getAfterDone?: unknown;
}

const takeItem =
  (label: string) =>
  (s: TakeScenario): RegisteredItem => ({
    kind: 'take',
    id: s.takeId,
    label: `${label} take ${s.takeId}`,
    calls: s.calls,
    ...(statusOf(s.polled.final) ? { seenStatus: statusOf(s.polled.final) } : {}),
    ...(s.getAfterDone !== undefined ? { getAfterDone: s.getAfterDone } : {}),
  });

const websocketItem = ({ r, streamed, calls }: Awaited<ReturnType<WebhookScenarios['websocketTake']>>) =>
  r.takeId
    ? {
        kind: 'take' as const,
        id: r.takeId,
        label: `websocket take ${r.takeId}`,
        calls,
        ...(streamed.at(-1) ? { seenStatus: streamed.at(-1)!.status } : {}),
      }
    : undefined;

/** An in-progress attempt (WEBHOOK-STATUS-AGREES-POLLING's takes, status and done hooks) as an item. */
export function attemptItem(a: InProgressAttempt): RegisteredItem {
  return takeItem(`in-progress (${a.characters} characters)`)(a.scenario);
}

/** Only the items whose scenarios completed (a failed one is its own test's to report). */
async function completed(items: Promise<RegisteredItem | undefined>[]): Promise<RegisteredItem[]> {
  const settled = await Promise.allSettled(items);
  return settled.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
}

/** The file's takes with a status_webhook besides the in-progress attempts (the main and the websocket take). */
export function statusHookedItems(w: WebhookScenarios, speak: SpeakContext): Promise<RegisteredItem[]> {
  return completed([w.mainTake(speak).then(takeItem('main')), w.websocketTake(speak).then(websocketItem)]);
}

/** The file's items with a done_webhook besides the in-progress attempts. */
export async function registeredItems(w: WebhookScenarios, speak: SpeakContext): Promise<RegisteredItem[]> {
  return completed([
    w.mainTake(speak).then(takeItem('main')),
    w.postUrlTake(speak).then(takeItem('post_url')),
    w.retriedTake(speak).then(takeItem('retried')),
    w.websocketTake(speak).then(websocketItem),
    w.webhookVoice(speak).then(({ voiceId, polled, calls }) => ({
      kind: 'voice' as const,
      id: voiceId,
      label: `voice ${voiceId}`,
      calls,
      ...(statusOf(polled.final) ? { seenStatus: statusOf(polled.final) } : {}),
    })),
  ]);
}

/**
 * Every status call of take `item` is about it: a Take (schema) with its id, and a done status only
 * the one the run saw it end with. Throws the first finding, naming the take.
 */
export function assertStatusCallsOfItem(item: RegisteredItem): void {
  for (const call of callsOf(item.calls, 'status')) {
    const what = `${item.label}: status call #${call.index}`;
    expectSchema('Take', call.json, `${what} body`);
    assertStatusCallOfTake(call.json, item.id, what, item.seenStatus);
  }
}

/**
 * Every done call of `item` is about it: its id, a done body of its kind, the status the run saw.
 * Throws the first finding, naming the item.
 */
export function assertDoneCallsOfItem(item: RegisteredItem): void {
  for (const call of callsOf(item.calls, 'done')) {
    const what = `${item.label}: done call #${call.index}`;
    if (item.kind === 'take') {
      expectSchema('Take', call.json, `${what} body`);
      const status = assertDoneBodyOfTakeNamed(call.json, item);
      if (status === 'ready') expectSchema('TakeInfo', (call.json as Take).info, `${what} body info`);
    } else {
      expectSchema('Voice', call.json, `${what} body`);
      const voiceId = (call.json as Voice | null)?.voice_id;
      if (voiceId !== item.id)
        throw new Finding(
          `${what}: the body is about voice ${show(voiceId)}, not the voice the hook was registered for`,
          {
            where: `${what} /voice_id`,
            expected: item.id,
            actual: voiceId,
          },
        );
    }
    const status = statusOf(call.json);
    if (item.seenStatus !== undefined && status !== item.seenStatus)
      throw new Finding(
        `${what}: the body says ${show(status)}, the run saw the ${item.kind} end ${item.seenStatus}`,
        {
          where: `${what} /status`,
          expected: item.seenStatus,
          actual: status,
        },
      );
  }
}

/**
 * Whether a call of `hook` came for `item` while the webhooks file waited. Only such an item is
 * judged on those calls: a loop over none would hold having judged nothing, and none yet is no
 * failure either (the contract gives the calls no time; whether they come is judged at the run's end).
 */
export function hasCallsOf(item: RegisteredItem, hook: 'done' | 'status'): boolean {
  return callsOf(item.calls, hook).length > 0;
}

/**
 * WEBHOOK-DONE-BODY-TAKE on every done call of each of `items` that has one; how many items were
 * judged (0: the test concluded nothing about them and says why itself, see noCallYet).
 */
export function judgeDoneCallsOfItems(items: readonly RegisteredItem[]): number {
  const judged = items.filter((item) => hasCallsOf(item, 'done'));
  for (const item of judged) check('WEBHOOK-DONE-BODY-TAKE', () => assertDoneCallsOfItem(item));
  return judged.length;
}

/**
 * WEBHOOK-STATUS-CALLED on every status call of each of `items` that has one; how many items were
 * judged (0: as judgeDoneCallsOfItems).
 */
export function judgeStatusCallsOfItems(items: readonly RegisteredItem[]): number {
  const judged = items.filter((item) => hasCallsOf(item, 'status'));
  for (const item of judged) check('WEBHOOK-STATUS-CALLED', () => assertStatusCallsOfItem(item));
  return judged.length;
}

/** Why a test judged no call of `hook` on `items` (notObserved's reason and what would judge it). */
export function noCallYet(
  items: readonly RegisteredItem[],
  hook: 'done' | 'status',
): [reason: string, wouldJudge: string] {
  // Whether the calls come at all is judged at the end of the run, by the requirement that says so.
  const later = hook === 'done' ? 'WEBHOOK-DONE-CALLED' : 'WEBHOOK-STATUS-AGREES-POLLING';
  const subject = items.length === 0 ? 'no take was made' : items.map((item) => item.label).join(', ');
  return [
    `${subject}: no ${hook} call had come when the webhooks file stopped waiting (${ARRIVAL_BOUND_MS / 1000} s after the take was seen done), nothing to judge (whether ${hook} calls come at all is ${later}'s, judged at the end of the run)`,
    `a server whose ${hook} calls arrive within ${ARRIVAL_BOUND_MS / 1000} s of the take being done`,
  ];
}

/** Whether the run compared `item`'s first done call with GET made right after it. */
export function comparedWithGet(item: RegisteredItem): boolean {
  return hasCallsOf(item, 'done') && item.getAfterDone !== undefined;
}

/**
 * WEBHOOK-DONE-BODY-EQUALS-GET on each of `items` the run compared with GET (comparedWithGet). None:
 * not observed, naming why each was not (the websocket take and the voice never carry a GET here;
 * the voice's is its own test's), so a pass is never an item that had nothing to compare.
 */
export function judgeDoneCallsAgainstGet(items: readonly RegisteredItem[]): void {
  const compared = items.filter(comparedWithGet);
  for (const item of compared)
    check('WEBHOOK-DONE-BODY-EQUALS-GET', () => assertFirstDoneCallEqualsGet(item));
  if (compared.length === 0) notObserved('WEBHOOK-DONE-BODY-EQUALS-GET', ...noneComparedWithGet(items));
}

/** Why none of `items` was compared with GET (notObserved's reason and what would judge it). */
export function noneComparedWithGet(items: readonly RegisteredItem[]): [reason: string, wouldJudge: string] {
  const why = (item: RegisteredItem) =>
    hasCallsOf(item, 'done')
      ? `${item.label}: no GET was made right after its done call`
      : `${item.label}: no done call within ${ARRIVAL_BOUND_MS / 1000} s of it being seen done`;
  return [
    `no item had both a done call and a GET made right after it to compare (${items.length === 0 ? 'no item was made' : items.map(why).join('; ')})`,
    `a server whose done calls arrive within ${ARRIVAL_BOUND_MS / 1000} s of the item being done`,
  ];
}

/**
 * The first done call of `item` equals GET made right after it. Only for an item comparedWithGet:
 * without either side nothing was compared, and saying so is the caller's (a bug of speakcheck here).
 */
export function assertFirstDoneCallEqualsGet(item: RegisteredItem): void {
  const call = callsOf(item.calls, 'done')[0];
  if (!call || item.getAfterDone === undefined)
    throw new Error(
      `${item.label}: no done call and GET after it to compare (judge only comparedWithGet items)`,
    );
  assertWebhookBodyMatchesGet(call.json, item.getAfterDone, `${item.label} done_webhook`);
}

function assertDoneBodyOfTakeNamed(body: unknown, item: RegisteredItem): string {
  try {
    return assertDoneBodyOfTake(body, item.id);
  } catch (err) {
    if (err instanceof Finding) throw new Finding(`${item.label}: ${err.message}`, err.facts);
    throw err;
  }
}
