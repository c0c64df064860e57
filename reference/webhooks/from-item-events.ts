/**
 * Turns item events (reference/events: every status change of a take or voice, in seq order,
 * body = the item exactly as GET returns it then) into outbox deliveries.
 *
 * - `status_webhook`: one call per event, the event's body.
 * - `done_webhook`: one call, at the first event whose status is done (ready, error, timeout); the
 *   outbox's unique index makes a second one impossible. The api writes `ready` only once the audio
 *   is stored, so the call goes out after the audio is fetchable.
 * - A voice done while its embedded example take is not yet done: its done call waits for the
 *   take's done event, and carries the voice body with the finished example take in it.
 *
 * Handling an event is one short SQLite transaction (deliveries + cursor): it never waits on the
 * network, so the event tail (and with it synthesis) is never held up by a sink.
 */

import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { isDone } from '../store/status.ts';
import type { HookName, ItemKind, WebhookOutbox } from './outbox-store.ts';
import { type WebhookAllow, webhookTargetRefusal, webhookTargetUrl } from './target.ts';

/** The fields of reference/events' ItemEvent that webhooks use. */
export interface WebhookSourceEvent {
  seq: number;
  kind: ItemKind;
  itemId: string;
  status: string;
  body: unknown;
  createdMs: number;
}

export interface EventHandlerOptions {
  allow: WebhookAllow;
  log?: (message: string) => void;
}

/** Returns the subscriber for the item event tail; true when it added a delivery (wake the loop). */
export function createItemEventHandler(
  outbox: WebhookOutbox,
  options: EventHandlerOptions,
): (event: WebhookSourceEvent) => boolean {
  /** Defect webhook-done-other-take: the first take's done body, sent for every later take. */
  let firstTakeDoneBody: string | undefined;
  /** Defect status-webhook-other-take: the first status-hooked take and its body at each status. */
  let firstStatusTake: { id: string; bodies: Map<string, string>; latest: string } | undefined;
  /**
   * The body of a status call: the event's, or with status-webhook-other-take, for every take but
   * the first with a status_webhook, the first take's body at the same status (a worker mixing up
   * its queue: each call is a valid Take in a valid order, about the wrong take).
   */
  const statusBody = (event: WebhookSourceEvent, hookValue: unknown, json: string): string => {
    if (event.kind !== 'take' || webhookTargetUrl(hookValue) === null) return json;
    if (!defects.has('status-webhook-other-take')) return json;
    firstStatusTake ??= { id: event.itemId, bodies: new Map(), latest: json };
    if (firstStatusTake.id !== event.itemId)
      return firstStatusTake.bodies.get(event.status) ?? firstStatusTake.latest;
    firstStatusTake.bodies.set(event.status, json);
    firstStatusTake.latest = json;
    return json;
  };
  /** Defect voice-done-stale-body: each voice's body at its first event (its creation, waiting). */
  const firstVoiceBody = new Map<string, string>();
  /** Defect status-webhook-started-late: each take's started call, held until the take is done. */
  const heldStarted = new Map<string, { seq: number; json: string }>();
  return (event) => {
    if (event.seq <= outbox.lastHandledSeq()) return false; // replayed after a restart: done already
    return outbox.transaction(() => {
      let added = false;
      const body = asRecord(event.body);
      const enqueue = (
        hook: HookName,
        hookValue: unknown,
        json: string,
        itemId = event.itemId,
        kind = event.kind,
        eventSeq = event.seq,
      ) => {
        const url = webhookTargetUrl(hookValue);
        if (url === null) return;
        if (hook === 'done' && defects.has('webhook-done-never')) return;
        if (hook === 'status' && event.status === 'started' && defects.has('webhook-status-missing')) return;
        // Latitude status-webhook-no-waiting: the creation is no progress change; no call for it.
        if (hook === 'status' && event.status === 'waiting' && latitude.has('status-webhook-no-waiting'))
          return;
        const refusal = webhookTargetRefusal(url, options.allow);
        if (refusal !== null) options.log?.(`webhook ${hook} of ${kind} ${itemId} not sent: ${refusal}`);
        const created = outbox.enqueue(
          { eventSeq, kind, itemId, hook, url, body: json, createdMs: event.createdMs },
          refusal,
        );
        added ||= created && refusal === null;
      };

      if (body !== null) {
        const json = JSON.stringify(body);
        if (
          event.kind === 'voice' &&
          defects.has('voice-done-stale-body') &&
          !firstVoiceBody.has(event.itemId)
        )
          firstVoiceBody.set(event.itemId, json);
        const held = event.kind === 'take' && defects.has('status-webhook-started-late');
        // Defect status-webhook-started-late: the started call waits for the take's done status (a
        // retry queue that parked it), then goes out after the done call.
        if (held && event.status === 'started') heldStarted.set(event.itemId, { seq: event.seq, json });
        else enqueue('status', body.status_webhook, statusBody(event, body.status_webhook, json));
        const started = held && isDone(event.status) ? heldStarted.get(event.itemId) : undefined;
        if (started) enqueue('status', body.status_webhook, started.json, event.itemId, 'take', started.seq);
        if (isDone(event.status)) {
          const exampleTake = event.kind === 'voice' ? asRecord(body.example_take) : null;
          const exampleTakeId = typeof exampleTake?.take_id === 'string' ? exampleTake.take_id : null;
          const doneUrl = webhookTargetUrl(body.done_webhook);
          if (exampleTake && exampleTakeId && !isDone(String(exampleTake.status)) && doneUrl) {
            outbox.waitForExampleTake({
              voiceId: event.itemId,
              exampleTakeId,
              eventSeq: event.seq,
              url: doneUrl,
              voiceBody: json,
            });
          } else if (event.kind === 'take' && doneUrl && defects.has('webhook-done-other-take')) {
            // A worker mixing up its queue: every take but the first is told it is the first.
            firstTakeDoneBody ??= json;
            enqueue('done', body.done_webhook, firstTakeDoneBody);
          } else if (event.kind === 'voice' && defects.has('voice-done-stale-body')) {
            // Defect voice-done-stale-body: the voice's done call carries the Voice as it was created.
            enqueue('done', body.done_webhook, firstVoiceBody.get(event.itemId) ?? json);
          } else if (event.kind === 'take' && defects.has('done-body-without-webhooks')) {
            // Defect done-body-without-webhooks: the sender strips its own targets from what it posts.
            const stripped = { ...body, status_webhook: null, done_webhook: null };
            enqueue('done', body.done_webhook, JSON.stringify(stripped));
          } else {
            enqueue('done', body.done_webhook, json);
          }
        }
      }

      if (event.kind === 'take' && isDone(event.status)) {
        for (const voice of outbox.releaseVoicesWaitingFor(event.itemId)) {
          const voiceBody = {
            ...(JSON.parse(voice.voiceBody) as Record<string, unknown>),
            example_take: body,
          };
          enqueue('done', voice.url, JSON.stringify(voiceBody), voice.voiceId, 'voice');
        }
      }
      outbox.setLastHandledSeq(event.seq);
      return added;
    });
  };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
