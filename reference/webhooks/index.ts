/**
 * Webhook delivery of the reference stack: a persisted outbox filled from item events and a
 * delivery loop beside it. The stack composition registers it with one call:
 *
 *   const webhooks = startWebhooks({ db, events, allow: options.webhookAllow });   // ... webhooks.close()
 *
 * Retry policy: see retry-policy.ts. Target policy (`--webhook-allow`): see target.ts.
 */
import type { Database } from 'better-sqlite3';
import { DeliveryLoop } from './delivery-loop.ts';
import { createItemEventHandler, type WebhookSourceEvent } from './from-item-events.ts';
import {
  type HookName,
  type ItemKind,
  type LastCall,
  lastWebhookCall,
  WebhookOutbox,
} from './outbox-store.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import type { WebhookAllow } from './target.ts';

export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
export { WEBHOOK_ALLOW_VALUES, type WebhookAllow, webhookTargetRefusal, webhookTargetUrl } from './target.ts';

/** The part of reference/events' ItemEventTail that webhooks need. */
export interface ItemEventSource {
  subscribe(name: string, handler: (event: WebhookSourceEvent) => void | Promise<void>): void;
}

export interface WebhookOptions {
  db: Database;
  events: ItemEventSource;
  /** Which targets may be called; default `any`. */
  allow?: WebhookAllow;
  /** Overrides of the retry policy (tests shorten the waits). */
  policy?: Partial<RetryPolicy>;
  /** Calls in flight at most; default 8. */
  concurrency?: number;
  log?: (message: string) => void;
}

export interface Webhooks {
  /** The last call of an item's hook, `{post_url, timestamp_ms, status_code}`, or null before any. */
  lastCall(kind: ItemKind, itemId: string, hook: HookName): LastCall | null;
  close(): Promise<void>;
}

export function startWebhooks(options: WebhookOptions): Webhooks {
  const outbox = new WebhookOutbox(options.db);
  const loop = new DeliveryLoop(outbox, {
    policy: { ...DEFAULT_RETRY_POLICY, ...options.policy },
    concurrency: options.concurrency ?? 8,
    ...(options.log ? { log: options.log } : {}),
  });
  const handle = createItemEventHandler(outbox, {
    allow: options.allow ?? 'any',
    ...(options.log ? { log: options.log } : {}),
  });
  // Catch up first, synchronously, so that no live event can move the cursor past older ones:
  // events recorded while the stack stopped between committing them and handling them.
  for (const row of outbox.itemEventsAfter(outbox.lastHandledSeq())) {
    handle({
      seq: row.seq,
      kind: row.kind,
      itemId: row.item_id,
      status: row.status,
      body: JSON.parse(row.body) as unknown,
      createdMs: row.created_ms,
    });
  }
  options.events.subscribe('webhooks', (event) => {
    if (handle(event)) loop.wake();
  });
  // Deliveries left pending by an earlier run of the stack (same data directory) go out now.
  loop.wake();
  return {
    lastCall: (kind, itemId, hook) => outbox.lastCall(kind, itemId, hook),
    close: () => loop.close(),
  };
}

/**
 * A webhook field as GET shows it: a URL string as given; the SDK's object form with `timestamp_ms`
 * and `status_code` of the last call (null before any). The lookup is made only for the object form.
 */
export function presentWebhook(stored: unknown, lastCall: () => LastCall | null): unknown {
  if (stored === null || typeof stored !== 'object' || !('post_url' in stored)) return stored ?? null;
  const call = lastCall();
  return {
    post_url: (stored as { post_url: unknown }).post_url,
    timestamp_ms: call?.timestamp_ms ?? null,
    status_code: call?.status_code ?? null,
  };
}

/**
 * For the item serializer: the resource with each SDK-form webhook shown as
 * `{post_url, timestamp_ms, status_code}` of its last call. Reads only this module's outbox table.
 */
export function withLastWebhookCalls<T extends Record<string, unknown>>(
  db: Database,
  kind: ItemKind,
  resource: T,
): Omit<T, 'status_webhook' | 'done_webhook'> & { status_webhook: unknown; done_webhook: unknown } {
  const itemId = String(kind === 'take' ? resource.take_id : resource.voice_id);
  return {
    ...resource,
    status_webhook: presentWebhook(resource.status_webhook, () =>
      lastWebhookCall(db, kind, itemId, 'status'),
    ),
    done_webhook: presentWebhook(resource.done_webhook, () => lastWebhookCall(db, kind, itemId, 'done')),
  };
}
