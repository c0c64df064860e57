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
 */
import { isDone } from '../../src/checks/status.ts';
import { assertCalled, assertCalledByRunEnd, assertCalledWhenDone } from '../../src/checks/webhook-calls.ts';
import {
  check,
  expectSchema,
  notObserved,
  type RemoteWebhookSink,
  type RequirementIds,
  type SettleEntry,
  type WebhookCall,
} from '../../src/harness/index.ts';
import { ARRIVAL_BOUND_MS, doneCalls, type Polled, type TakeScenario } from './webhook-takes.ts';

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
  assertCalledByRunEnd(calls.length, entry.subject, {
    seen: entry.why ?? 'seen done',
    waitedMs: nowMs - entry.fromMs,
    leastMs: entry.windowMs,
  });
  if (entry.requirement !== 'WEBHOOK-VOICE-DONE') return;
  expectSchema('Voice', calls[0]!.json, `${entry.subject} done_webhook body`);
  assertCalledWhenDone(calls[0]!.json, entry.subject, 'voice');
}

/** When each call came, relative to the moment the entry's window starts. */
export function arrivals(entry: Pick<FiledEntry, 'fromMs'>, calls: readonly WebhookCall[]): string {
  return calls.map((c) => `+${((c.receivedMs - entry.fromMs) / 1000).toFixed(1)} s`).join(', ');
}

/** How many of an entry's calls end its wait early (never, for a window that only ends). */
const ENOUGH: Partial<Record<FiledExpectation, number>> = { retried: 2, called: 1 };

/**
 * The calls an entry judges: those that arrived within its window (so the verdict does not depend
 * on how long the run took), once the window has passed (sooner when a `retried` one has its retry,
 * a `called` one its call). `later`: what arrived after the window, for the report; a `called`
 * entry's judge counts them too (a call that came is no "never called").
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
        (calls) => enough !== undefined && ofHook(calls).length >= enough,
        Math.max(0, end - Date.now()),
      )
      .catch(() => theSink.calls(entry.token)),
  );
  return {
    calls: arrived.filter((c) => c.receivedMs <= end),
    later: arrived.filter((c) => c.receivedMs > end),
  };
}
