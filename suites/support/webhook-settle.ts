/**
 * The settle entries the webhook files file with the run's sink, and how the end-of-run judge
 * (suites/webhooks-settled.spec.ts) waits for the calls of one (src/client/webhook-sink-control.ts
 * keeps them, as JSON).
 *
 * Besides the sink's expectations (a window after a call: once, retried, ordered, posted-json), a
 * done call that has not arrived when the webhooks file stops waiting for it is `called`: the
 * contract says "When the result is ready, the service sends an HTTP POST to that URL" and gives no
 * time ("Delivery details of webhooks (retries, signatures, authentication, timeouts): not shown"), so
 * a call that comes later is no violation there. Its entry's window starts when polling saw the item
 * done and lasts DONE_CALL_WAIT_MS; the judge counts every call that arrived by the time it judges
 * (the end of the run, the latest the run can look) and finds "never called" only once the window
 * has passed with none. A run whose budget (--max-time) ends first is stopped while the judge waits:
 * the requirement is not concluded, never passed.
 *
 * The same holds for status calls (WEBHOOK-STATUS-AGREES-POLLING / -WEBSOCKET): the status_webhook
 * "is called by POST ... each time the take's progress changes", with no time either. A status seen
 * (polled, streamed) that no status call had reported when the file stopped waiting is filed as
 * `statuses-called`, with the same window from the take seen done, and found never reported only
 * once the window has passed; the wait ends as soon as every awaited status has its call.
 */

import { show } from '../../src/checks/finding.ts';
import { isDone } from '../../src/checks/status.ts';
import {
  assertCalled,
  assertCalledByRunEnd,
  assertCalledWhenDone,
  assertStatusesCalled,
  type RunEndWait,
  statusesNotCalled,
} from '../../src/checks/webhook-calls.ts';
import {
  check,
  expectSchema,
  notObserved,
  type RemoteWebhookSink,
  type RequirementIds,
  type SettleEntry,
  type WebhookCall,
} from '../../src/harness/index.ts';
import {
  ARRIVAL_BOUND_MS,
  doneCalls,
  type Polled,
  type SeenStatuses,
  type TakeScenario,
} from './webhook-takes.ts';

/**
 * The least time from the item being seen done after which its done call may be judged never
 * called: a wait chosen by speakcheck, not a number of the contract. The judge looks at the end of
 * the run, so in a full run the server has until then; a short run still waits this long.
 */
export const DONE_CALL_WAIT_MS = 30_000;

/** A settle entry as the webhook files file and judge it (the sink keeps it as JSON). */
export type FiledEntry = SettleEntry;
type FiledExpectation = SettleEntry['expect'];

/** When polling first saw the item in a done status (ms since the epoch); undefined if it never did. */
export function seenDoneMs(polled: Pick<Polled, 'entries'>): number | undefined {
  return polled.entries.find((e) => isDone(e.status))?.atMs;
}

/**
 * WEBHOOK-DONE-CALLED / WEBHOOK-VOICE-DONE in the webhooks file: held when `count` done calls came
 * (true); none yet is no violation there (the scenario filed it for the end of the run): not observed
 * here, with the reason and what judges it (false). `seen`: what polling saw ("take polled ready").
 */
export function doneCalledInFile(
  id: 'WEBHOOK-DONE-CALLED' | 'WEBHOOK-VOICE-DONE',
  subject: string,
  count: number,
  seen: string,
): boolean {
  if (count === 0) {
    notObserved(id, ...doneCallJudgedLater(subject, id));
    return false;
  }
  check(id, () => assertCalled(count, subject, 'done_webhook', seen));
  return true;
}

/**
 * What the webhooks file concludes for a requirement whose done call had not arrived when it stopped
 * waiting (notObserved's reason and what would judge it): the call is awaited at the end of the run.
 */
export function doneCallJudgedLater(
  subject: string,
  id: 'WEBHOOK-DONE-CALLED' | 'WEBHOOK-VOICE-DONE',
): [reason: string, wouldJudge: string] {
  return [
    `${subject}: no done call within ${ARRIVAL_BOUND_MS / 1000} s of it being seen done; the contract gives no time for it, so whether it comes at all is judged at the end of the run`,
    `the settled test of ${id} (suites/webhooks-settled.spec.ts): a call by the end of the run, waited for at least ${DONE_CALL_WAIT_MS / 1000} s after done`,
  ];
}

/**
 * The requirements whose status calls the webhooks file judges on what came, the rest at the end:
 * the statuses polling or the websocket saw (the two AGREES), the done status (WEBHOOK-STATUS-CALLED).
 */
export type StatusesCalledId =
  | 'WEBHOOK-STATUS-CALLED'
  | 'WEBHOOK-STATUS-AGREES-POLLING'
  | 'WEBHOOK-STATUS-AGREES-WEBSOCKET';

/**
 * WEBHOOK-STATUS-AGREES-POLLING / -WEBSOCKET in the webhooks file, for one take: held when every
 * status seen was reported by a status call that came (true); one not reported yet is no violation
 * there (its scenario filed it for the end of the run: statusesCalledEntry) and concludes nothing
 * (false): the test says not observed when nothing else concluded it (statusCallsJudgedLater).
 */
export function statusesCalledInFile(id: StatusesCalledId, take: SeenStatuses): boolean {
  if (statusesNotCalled(take.seen, take.statusCalls).length > 0) return false;
  return check(id, () => assertStatusesCalled(take.seen, take.statusCalls, take.subject, take.seenBy));
}

/**
 * What the webhooks file concludes for a requirement whose status calls had not all come when it
 * stopped waiting (notObserved's reason and what would judge it): they are awaited at the end of the run.
 */
export function statusCallsJudgedLater(
  id: StatusesCalledId,
  take: SeenStatuses,
): [reason: string, wouldJudge: string] {
  const awaited = statusesNotCalled(take.seen, take.statusCalls);
  return [
    `${take.subject}: ${take.seenBy} ${show(awaited)} but no status call had reported ${awaited.length > 1 ? 'them' : 'it'} when the webhooks file stopped waiting; the contract gives the calls no time, so whether they come is judged at the end of the run`,
    `the settled test of ${id} (suites/webhooks-settled.spec.ts): a status call for each by the end of the run, waited for at least ${DONE_CALL_WAIT_MS / 1000} s after the take was seen done`,
  ];
}

/**
 * The `statuses-called` entry for a take whose status calls had not all come (undefined when they
 * had: the webhooks file judged them), its window from when the take was seen done (`seenMs`, `why`
 * says how). `heldNotObserved`: the take was not the state the requirement speaks of (see
 * AwaitedStatuses). The scenario files it, with the take handed to the run's end.
 */
export function statusesCalledEntry(
  requirement: StatusesCalledId,
  take: SeenStatuses & { token: string; seenMs: number | undefined; why: string },
  heldNotObserved?: NonNullable<FiledEntry['awaited']>['heldNotObserved'],
): (Omit<FiledEntry, 'fromMs'> & { fromMs: number | undefined }) | undefined {
  const statuses = statusesNotCalled(take.seen, take.statusCalls);
  if (statuses.length === 0) return undefined;
  return {
    requirement,
    subject: take.subject,
    token: take.token,
    hook: 'status',
    expect: 'statuses-called',
    fromMs: take.seenMs,
    windowMs: DONE_CALL_WAIT_MS,
    why: take.why,
    awaited: { statuses, seenBy: take.seenBy, ...(heldNotObserved ? { heldNotObserved } : {}) },
  };
}

/**
 * A test that judges a take's done call (its body, its once-ness, what came with it) when none had
 * arrived by the end of the file's wait: `ids` are not observed (true), with the reason and what
 * would judge them; false when there is one. `call`: the one the test judges (by default the first
 * that came; `s.doneCall` for what the run asked right after it, made only within the wait).
 */
export function withoutDoneCall(
  s: TakeScenario,
  ids: RequirementIds,
  call: WebhookCall | undefined = doneCalls(s)[0],
): boolean {
  if (call) return false;
  notObserved(ids, ...noDoneCallYet(`take ${s.takeId}`));
  return true;
}

/** Why a test of the done call's particulars concludes nothing without one (see withoutDoneCall). */
export function noDoneCallYet(subject: string): [reason: string, wouldJudge: string] {
  return [
    `${subject}: no done call within ${ARRIVAL_BOUND_MS / 1000} s of it being seen done, nothing to judge (whether it comes at all is WEBHOOK-DONE-CALLED's, judged at the end of the run)`,
    `a server whose done call arrives within ${ARRIVAL_BOUND_MS / 1000} s of the item being done`,
  ];
}

/**
 * The end-of-run judge of a `called` entry: `calls`, every call of its hook that came by now (after
 * its window too: a call that came was called). None is "never called" (the window has passed when
 * the judge asks: callsInWindow). For WEBHOOK-VOICE-DONE the first call also carries the Voice in
 * a done status, as the webhooks file judges a call that came in time.
 */
export function assertCalledBy(entry: FiledEntry, calls: readonly WebhookCall[], nowMs = Date.now()): void {
  assertCalledByRunEnd(calls.length, entry.subject, runEndWait(entry, nowMs));
  if (entry.requirement !== 'WEBHOOK-VOICE-DONE') return;
  expectSchema('Voice', calls[0]!.json, `${entry.subject} done_webhook body`);
  assertCalledWhenDone(calls[0]!.json, entry.subject, 'voice');
}

/** How long an entry judged at the end of the run waited, from when its item was seen done. */
function runEndWait(entry: FiledEntry, nowMs: number): RunEndWait {
  return { seen: entry.why ?? 'seen done', waitedMs: nowMs - entry.fromMs, leastMs: entry.windowMs };
}

/**
 * The end-of-run judge of a `statuses-called` entry: `calls`, every status call of its take that came
 * by now (after its window too: a status reported late was reported). A status still unreported is
 * "never reported" (the window has passed when the judge asks: callsInWindow). Held, an entry whose
 * take was not the state its requirement speaks of is not observed (AwaitedStatuses.heldNotObserved).
 */
export function assertStatusesCalledBy(
  entry: FiledEntry,
  calls: readonly WebhookCall[],
  nowMs = Date.now(),
): void {
  const { awaited } = entry;
  if (!awaited) throw new Error(`a statuses-called entry without its statuses (${entry.subject})`);
  assertStatusesCalled(awaited.statuses, calls, entry.subject, awaited.seenBy, runEndWait(entry, nowMs));
  const { heldNotObserved } = awaited;
  if (heldNotObserved) notObserved(entry.requirement, heldNotObserved.reason, heldNotObserved.wouldJudge);
}

/**
 * Entries about calls the contract gives no time (a done call, a take's status calls): their window
 * starts when the item was seen done, and their judge counts every call that came by the judging.
 */
export function judgedByRunEnd(entry: Pick<FiledEntry, 'expect'>): boolean {
  return entry.expect === 'called' || entry.expect === 'statuses-called';
}

/** When each call came, relative to the moment the entry's window starts. */
export function arrivals(entry: Pick<FiledEntry, 'fromMs'>, calls: readonly WebhookCall[]): string {
  return calls.map((c) => `+${((c.receivedMs - entry.fromMs) / 1000).toFixed(1)} s`).join(', ');
}

/** When an entry's calls (of its hook) end its wait early; never, for a window that only ends. */
const ENOUGH: Partial<
  Record<FiledExpectation, (calls: readonly WebhookCall[], entry: FiledEntry) => boolean>
> = {
  retried: (calls) => calls.length >= 2,
  called: (calls) => calls.length >= 1,
  'statuses-called': (calls, entry) => statusesNotCalled(entry.awaited?.statuses ?? [], calls).length === 0,
};

/**
 * The calls an entry judges: those that arrived within its window (so the verdict does not depend
 * on how long the run took), once the window has passed (sooner when a `retried` one has its retry,
 * a `called` one its call, a `statuses-called` one a call for each status). `later`: what arrived
 * after the window, for the report; the judge of an entry judgedByRunEnd counts them too (a call
 * that came is no "never called").
 */
export async function callsInWindow(
  theSink: Pick<RemoteWebhookSink, 'waitForCalls' | 'calls'>,
  entry: FiledEntry,
): Promise<{ calls: WebhookCall[]; later: WebhookCall[] }> {
  const ofHook = (calls: WebhookCall[]) => calls.filter((c) => entry.hook === '*' || c.hook === entry.hook);
  const end = entry.fromMs + entry.windowMs;
  const enough = ENOUGH[entry.expect];
  const arrived = ofHook(
    await theSink
      .waitForCalls(
        entry.token,
        (calls) => enough?.(ofHook(calls), entry) ?? false,
        Math.max(0, end - Date.now()),
      )
      .catch(() => theSink.calls(entry.token)),
  );
  return {
    calls: arrived.filter((c) => c.receivedMs <= end),
    later: arrived.filter((c) => c.receivedMs > end),
  };
}
