/**
 * Checks on the webhook calls a scenario received (speak-v1.md Events → Webhooks): how often each
 * hook was called and with what (a done call not yet come judged at the end of the run), whether the
 * calls report every status that polling (or the websocket) saw (one not reported yet, judged at the
 * end of the run too), the audio right after the done
 * call, how soon the call came, what the item shows of its last call, and a slow sink not delaying
 * the item. Pure functions of what arrived; the suite makes the items, runs the sink and validates
 * bodies against schemas.
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import { statusOf, type WebhookCall } from '../client/webhook-sink.ts';
import { Finding, show } from './finding.ts';
import { isDone } from './status.ts';
import type { TimelineEntry } from './webhooks.ts';

/** The calls of one hook (`done`, `status`), in arrival order. */
export function callsOf<C extends Pick<WebhookCall, 'hook'>>(calls: readonly C[], hook: string): C[] {
  return calls.filter((c) => c.hook === hook);
}

/** The statuses the calls carried, in arrival order ('?' where a body has none). */
export function calledStatuses(calls: ReadonlyArray<Pick<WebhookCall, 'json'>>): string[] {
  return calls.map((c) => statusOf(c.json));
}

/** The calls as a timeline (arrival time, status carried) for formatTimeline. */
export function callTimeline(
  calls: ReadonlyArray<Pick<WebhookCall, 'json' | 'receivedMs'>>,
): TimelineEntry[] {
  return calls.map((c) => ({ atMs: c.receivedMs, status: statusOf(c.json) }));
}

/**
 * How long the run waited for a call the contract gives no time (a done call, a status call) before
 * judging it at the end of the run. `seen`: what showed the item done ("take polled ready");
 * `waitedMs`: from then to the judging; `leastMs`: the least the run waits.
 */
export interface RunEndWait {
  seen: string;
  waitedMs: number;
  leastMs: number;
}

/** The wait of a call judged at the end of the run, for a message (`item`: what was seen done). */
function waitedToRunEnd(o: RunEndWait, item = 'it'): string {
  return `in the ${Math.round(o.waitedMs / 1000)} s from when ${item} was seen done (${o.seen}) to the end of the run (the contract gives no time; the ${o.leastMs / 1000} s the run waits at least are speakcheck's)`;
}

/**
 * WEBHOOK-DONE-CALLED / WEBHOOK-VOICE-DONE, judged at the end of the run: the done hook of `subject`
 * was called by then (`count` calls). "When the result is ready, the service sends an HTTP POST to
 * that URL" gives no time: only a call that never came is a violation, never one that came late.
 */
export function assertCalledByRunEnd(count: number, subject: string, o: RunEndWait): void {
  if (count > 0) return;
  throw new Finding(`${subject}: done_webhook was never called: none arrived ${waitedToRunEnd(o)}`, {
    where: `${subject} done_webhook`,
    expected: 'a call by the end of the run',
    actual: '0 calls',
  });
}

/** WEBHOOK-DONE-ONCE: the done hook of `subject` was called exactly once, with a done status. */
export function assertDoneCalledOnceWhenDone(
  doneCalls: ReadonlyArray<Pick<WebhookCall, 'json'>>,
  subject: string,
): void {
  if (doneCalls.length !== 1) {
    throw new Finding(
      `${subject}: done_webhook was called ${doneCalls.length} times (statuses ${show(calledStatuses(doneCalls))}); expected exactly once`,
      { where: `${subject} done_webhook`, expected: 1, actual: doneCalls.length },
    );
  }
  assertCalledWhenDone(doneCalls[0]!.json, subject, 'take');
}

/** A hook (`hook`: `done_webhook`, `a {"post_url"} done_webhook` ...) of `subject` was called exactly once. */
export function assertCalledOnce(count: number, subject: string, hook: string): void {
  if (count === 1) return;
  throw new Finding(`${subject}: ${hook} called ${count} times; expected once`, {
    expected: 1,
    actual: count,
  });
}

/** The hook of `subject` was not called twice (that it was called at all is judged apart). */
export function assertNotCalledAgain(count: number, subject: string, hook: string): void {
  if (count > 1) assertCalledOnce(count, subject, hook);
}

/** The hook of `subject` was called at all (`why`: what else was seen, e.g. "voice polled done"). */
export function assertCalled(count: number, subject: string, hook: string, why: string): void {
  if (count > 0) return;
  throw new Finding(`${subject}: ${hook} was never called (${why})`, { expected: 'a call', actual: 'none' });
}

/** The done call's body carries a done status (`item`: what `subject` is, a take or a voice). */
export function assertCalledWhenDone(body: unknown, subject: string, item: ItemKind): void {
  const status = statusOf(body);
  if (!isDone(status)) {
    throw new Finding(`${subject}: done_webhook called while the ${item} was ${status}, not done`, {
      expected: 'ready | error | timeout',
      actual: status,
    });
  }
}

/**
 * WEBHOOK-DONE-BODY-TAKE (its schema aside): the done call's body is about take `takeId` and has a
 * done status. Returns the status.
 */
export function assertDoneBodyOfTake(body: unknown, takeId: string): string {
  const bodyTakeId =
    body !== null && typeof body === 'object' ? (body as { take_id?: unknown }).take_id : undefined;
  if (bodyTakeId !== takeId) {
    throw new Finding(`done_webhook body is about take ${show(bodyTakeId)}, expected ${takeId}`);
  }
  const status = statusOf(body);
  if (!isDone(status)) {
    throw new Finding(`take ${takeId}: the done_webhook body has status ${show(status)}, not a done status`, {
      where: 'done_webhook body /status',
      expected: 'ready | error | timeout',
      actual: status,
    });
  }
  return status;
}

/**
 * WEBHOOK-STATUS-CALLED (its schema aside): a status call registered for take `takeId` is about that
 * take, and a done status it carries is the one the run saw the take end with (`seenStatus`, when
 * the run saw the end). `what` names the call ("main take tk_…: status call #2").
 */
export function assertStatusCallOfTake(
  body: unknown,
  takeId: string,
  what: string,
  seenStatus?: string,
): void {
  const bodyTakeId =
    body !== null && typeof body === 'object' ? (body as { take_id?: unknown }).take_id : undefined;
  if (bodyTakeId !== takeId)
    throw new Finding(
      `${what}: the body is about take ${show(bodyTakeId)}, not the take the hook was registered for`,
      { where: `${what} /take_id`, expected: takeId, actual: bodyTakeId },
    );
  const status = statusOf(body);
  if (seenStatus !== undefined && isDone(status) && status !== seenStatus)
    throw new Finding(`${what}: the body says ${show(status)}, the run saw the take end ${seenStatus}`, {
      where: `${what} /status`,
      expected: seenStatus,
      actual: status,
    });
}

/** What fetching one format of a take's audio right after its done call gave. */
export interface AudioAtDone {
  format: string;
  redirectStatus: number;
  fetchStatus: number | null;
  bytes: number;
  /** What is wrong with the bytes: not the format's container (a placeholder, the wav, …). */
  problem?: string;
}

/** WEBHOOK-DONE-AUDIO-FETCHABLE: every format answered 307, then 200 with its container's bytes. */
export function assertAudioFetchableAtDone(audio: readonly AudioAtDone[], takeId: string): void {
  const missing = audio.filter(
    (a) => a.redirectStatus !== 307 || a.fetchStatus !== 200 || a.bytes === 0 || a.problem !== undefined,
  );
  if (missing.length === 0) return;
  throw new Finding(
    `take ${takeId}: right after the done call, audio was not fetchable: ${missing
      .map(
        (a) =>
          `${a.format} → ${a.redirectStatus}${a.fetchStatus === null ? '' : ` then ${a.fetchStatus}`} (${a.bytes} bytes)${a.problem ? `: ${a.problem}` : ''}`,
      )
      .join('; ')}`,
    { expected: '307 then 200 with audio for every format', actual: audio },
  );
}

/** WEBHOOK-DONE-ARRIVAL-BOUND: the done call came at most `boundMs` after polling saw the take done. */
export function assertArrivedWithin(lagMs: number, boundMs: number, takeId: string): void {
  if (lagMs <= boundMs) return;
  throw new Finding(`take ${takeId}: done call arrived ${lagMs} ms after polling saw the take done`, {
    expected: `<= ${boundMs} ms`,
    actual: lagMs,
  });
}

/**
 * The statuses `seen` (status changes polling or the websocket saw) that no status call reported, in
 * the order seen. `waiting` is not looked for: it is what the generate call answered, and a server
 * may start reporting at the first change.
 */
export function statusesNotCalled(
  seen: readonly string[],
  statusCalls: ReadonlyArray<Pick<WebhookCall, 'json'>>,
): string[] {
  const called = new Set(calledStatuses(statusCalls));
  return seen.filter((status) => status !== 'waiting' && !called.has(status));
}

/**
 * WEBHOOK-STATUS-AGREES-POLLING / -WEBSOCKET: every status `seen` (`seenBy` names who saw it) was
 * also reported by a status call (statusesNotCalled). `byRunEnd`: judged at the end of the run on
 * every call that came by then (the contract gives the calls no time), said in the message.
 */
export function assertStatusesCalled(
  seen: readonly string[],
  statusCalls: ReadonlyArray<Pick<WebhookCall, 'json'>>,
  subject: string,
  seenBy: string,
  byRunEnd?: RunEndWait,
): void {
  const missing = statusesNotCalled(seen, statusCalls);
  if (missing.length === 0) return;
  const called = [...new Set(calledStatuses(statusCalls))];
  throw new Finding(
    `${subject}: ${seenBy} ${show(missing)} but no status call reported ${missing.length > 1 ? 'them' : 'it'} (called: ${show(called)})${byRunEnd ? ` ${waitedToRunEnd(byRunEnd, 'the take')}` : ''}`,
    { expected: [...seen], actual: called },
  );
}

/** WEBHOOK-LAST-CALL-SHOWN: the item's `{"post_url"}` webhook field shows a last call answered 200. */
export function assertLastCallShown(hookField: unknown, takeId: string): void {
  const shown = (hookField ?? {}) as { timestamp_ms?: unknown; status_code?: unknown };
  if (typeof shown.timestamp_ms !== 'number' || shown.status_code !== 200) {
    throw new Finding(
      `take ${takeId}: done_webhook does not show the last call (timestamp_ms, status_code 200)`,
      {
        expected: { post_url: '...', timestamp_ms: 'integer', status_code: 200 },
        actual: hookField,
      },
    );
  }
}

/** The call WEBHOOK-LAST-CALL-RECORD compares the item's record with. */
export interface DeliveredCall {
  /** The URL the hook was given. */
  postUrl: string;
  /** What the sink answered. */
  answeredStatus: number;
}

/**
 * WEBHOOK-LAST-CALL-RECORD: what is wrong with the call record `hookField` the take shows for the
 * delivered `call` (empty when nothing): the URL given, a time after the take was created
 * (`takeTimestampMs`), the status the hook answered.
 */
export function callRecordProblems(
  hookField: unknown,
  takeTimestampMs: unknown,
  call: DeliveredCall,
): string[] {
  const shown = (hookField !== null && typeof hookField === 'object' ? hookField : {}) as Record<
    string,
    unknown
  >;
  const timestamp = shown.timestamp_ms;
  return [
    shown.post_url !== call.postUrl && 'post_url is not the URL given',
    !(Number.isInteger(timestamp) && (timestamp as number) >= Number(takeTimestampMs)) &&
      'timestamp_ms is not the time of a call made after the take was created',
    shown.status_code !== call.answeredStatus &&
      `status_code is not ${call.answeredStatus}, what the hook answered`,
  ].filter((p): p is string => typeof p === 'string');
}

/**
 * WEBHOOK-LAST-CALL-RECORD: the record `hookField` take `takeId` shows, `boundMs` after the call was
 * answered, names the delivered call (see callRecordProblems).
 */
export function assertCallRecorded(
  hookField: unknown,
  take: { takeId: string; timestampMs: unknown; path: string },
  call: DeliveredCall,
  boundMs: number,
): void {
  const problems = callRecordProblems(hookField, take.timestampMs, call);
  if (problems.length === 0) return;
  throw new Finding(
    `take ${take.takeId}: ${boundMs} ms after its done call was answered ${call.answeredStatus}, done_webhook shows ${show(hookField)}: ${problems.join('; ')}`,
    {
      where: `GET ${take.path} /done_webhook`,
      expected: {
        post_url: call.postUrl,
        timestamp_ms: `an integer >= the take's timestamp_ms ${show(take.timestampMs)}`,
        status_code: call.answeredStatus,
      },
      actual: hookField,
    },
  );
}

/**
 * WEBHOOK-SLOW-SINK-NO-DELAY: how long a take may take to be done with a sink answering after
 * `delayMs`, against `baselineMs` without webhooks. A server that waited on the sink would lose
 * `delayMs` per status call before ready (waiting, started, progress...: at least three); half the
 * baseline plus two delays are left for noise on a busy machine.
 */
export function slowSinkAllowanceMs(baselineMs: number, delayMs: number): number {
  return baselineMs * 1.5 + 2 * delayMs;
}

/** WEBHOOK-SLOW-SINK-NO-DELAY: the take was done within slowSinkAllowanceMs. */
export function assertNotDelayedBySlowSink(
  slowMs: number,
  baselineMs: number,
  delayMs: number,
  takeId: string,
): void {
  const allowed = slowSinkAllowanceMs(baselineMs, delayMs);
  if (slowMs <= allowed) return;
  throw new Finding(
    `take ${takeId} took ${slowMs} ms to be done with a sink answering after ${delayMs} ms, against ${baselineMs} ms without webhooks`,
    { expected: `<= ${Math.round(allowed)} ms`, actual: slowMs },
  );
}
