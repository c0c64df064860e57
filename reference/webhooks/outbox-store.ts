/**
 * The webhook outbox: one row per call to make, persisted in the stack's SQLite database so that
 * deliveries (with their attempt count and next attempt time) survive a restart.
 *
 * Claiming a delivery counts the attempt and pushes its next attempt time past the call's timeout
 * (a lease) in one statement, before the call is made: a stack stopped mid-call finds the delivery
 * due again after the lease, with the interrupted attempt counted.
 */
import type { Database } from 'better-sqlite3';
import type { ItemKind } from '../../schemas/item-kind.ts';
import { hostedLatency } from '../latitude/hosted-latency.ts';
import { latitude } from '../latitude/index.ts';
/** Latitude webhooks-late-no-retry: how late every webhook call leaves. */
export const LATE_WEBHOOK_MS = 1_000;

/** Latitude hosted-latency: a webhook call leaves 0.2–0.5 s after the change. */
function hostedWebhookDelayMs(): number {
  return hostedLatency()?.webhookMs() ?? 0;
}

export type HookName = 'status' | 'done';
export type { ItemKind };
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'refused';

export interface NewDelivery {
  eventSeq: number;
  kind: ItemKind;
  itemId: string;
  hook: HookName;
  url: string;
  body: string;
  createdMs: number;
}

export interface Delivery extends NewDelivery {
  id: number;
  state: DeliveryState;
  attempts: number;
  nextAttemptMs: number;
}

/** A row of reference/events' item_events table, as far as webhooks read it. */
export interface WebhookSourceRow {
  seq: number;
  kind: ItemKind;
  item_id: string;
  status: string;
  body: string;
  created_ms: number;
}

export interface LastCall {
  post_url: string;
  timestamp_ms: number | null;
  status_code: number | null;
}

const MIGRATION = `
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('take', 'voice')),
  item_id TEXT NOT NULL,
  hook TEXT NOT NULL CHECK (hook IN ('status', 'done')),
  url TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'refused')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  last_attempt_ms INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  UNIQUE (event_seq, kind, item_id, hook)
);
-- done_webhook is called exactly once per item: a second done row cannot exist.
CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_done_once
  ON webhook_deliveries (kind, item_id) WHERE hook = 'done';
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, next_attempt_ms);
CREATE INDEX IF NOT EXISTS webhook_deliveries_item ON webhook_deliveries (kind, item_id, hook, id);
-- How far the item event log has been turned into deliveries (one row).
CREATE TABLE IF NOT EXISTS webhook_event_cursor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_seq INTEGER NOT NULL
);
-- A voice that is done while its example take is not: its done hook waits for the take.
CREATE TABLE IF NOT EXISTS webhook_voice_waits (
  voice_id TEXT PRIMARY KEY,
  example_take_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  voice_body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_voice_waits_take ON webhook_voice_waits (example_take_id);
`;

/** Creates the outbox tables when they are missing (idempotent: run at every start). */
export function migrateWebhookOutbox(db: Database): void {
  db.exec(MIGRATION);
}

interface DeliveryRow {
  id: number;
  event_seq: number;
  kind: ItemKind;
  item_id: string;
  hook: HookName;
  url: string;
  body: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_ms: number;
  created_ms: number;
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventSeq: row.event_seq,
    kind: row.kind,
    itemId: row.item_id,
    hook: row.hook,
    url: row.url,
    body: row.body,
    state: row.state,
    attempts: row.attempts,
    nextAttemptMs: row.next_attempt_ms,
    createdMs: row.created_ms,
  };
}

export class WebhookOutbox {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    migrateWebhookOutbox(db);
  }

  /** Runs `fn` in one transaction (an event's deliveries and the cursor move together). */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate();
  }

  lastHandledSeq(): number {
    const row = this.#db.prepare('SELECT last_seq FROM webhook_event_cursor WHERE id = 1').get() as
      | { last_seq: number }
      | undefined;
    return row?.last_seq ?? 0;
  }

  setLastHandledSeq(seq: number): void {
    this.#db
      .prepare(
        'INSERT INTO webhook_event_cursor (id, last_seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)',
      )
      .run(seq);
  }

  /**
   * Item events recorded after `afterSeq`, read straight from reference/events' `item_events`
   * table (its columns are part of the contract): at start, events the stack recorded but had not
   * turned into deliveries before it stopped. Empty when the table does not exist (yet).
   */
  itemEventsAfter(afterSeq: number): WebhookSourceRow[] {
    const exists = this.#db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'item_events'")
      .get();
    if (!exists) return [];
    return this.#db
      .prepare(
        'SELECT seq, kind, item_id, status, body, created_ms FROM item_events WHERE seq > ? ORDER BY seq',
      )
      .all(afterSeq) as WebhookSourceRow[];
  }

  /** Adds a delivery; false when it exists already (same event and hook, or a second done). */
  enqueue(d: NewDelivery, refusal: string | null = null): boolean {
    const result = this.#db
      .prepare(
        `INSERT OR IGNORE INTO webhook_deliveries
           (event_seq, kind, item_id, hook, url, body, state, next_attempt_ms, created_ms, last_error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        d.eventSeq,
        d.kind,
        d.itemId,
        d.hook,
        d.url,
        d.body,
        refusal === null ? 'pending' : 'refused',
        // Latitude webhooks-late-no-retry: every call leaves a little late.
        d.createdMs + (latitude.has('webhooks-late-no-retry') ? LATE_WEBHOOK_MS : 0) + hostedWebhookDelayMs(),
        d.createdMs,
        refusal,
      );
    return result.changes === 1;
  }

  /**
   * Claims up to `limit` due deliveries, each the oldest pending one of its item and hook (so
   * calls of one item and hook go out in event order), counting the attempt and leasing it.
   */
  claimDue(nowMs: number, limit: number, leaseMs: number, exceptIds: ReadonlySet<number>): Delivery[] {
    return this.transaction(() => {
      const rows = this.#db
        .prepare(
          `SELECT d.* FROM webhook_deliveries d
            WHERE d.state = 'pending' AND d.next_attempt_ms <= ?
              AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries p
                 WHERE p.state = 'pending' AND p.kind = d.kind AND p.item_id = d.item_id
                   AND p.hook = d.hook AND p.id < d.id)
            ORDER BY d.next_attempt_ms, d.id
            LIMIT ?`,
        )
        .all(nowMs, limit + exceptIds.size) as DeliveryRow[];
      const claim = this.#db.prepare(
        'UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_ms = ? WHERE id = ?',
      );
      const claimed: Delivery[] = [];
      for (const row of rows) {
        if (exceptIds.has(row.id) || claimed.length >= limit) continue;
        claim.run(nowMs + leaseMs, row.id);
        claimed.push(toDelivery({ ...row, attempts: row.attempts + 1, next_attempt_ms: nowMs + leaseMs }));
      }
      return claimed;
    });
  }

  /** Records an attempt's outcome: delivered, given up (failed), or due again at `nextAttemptMs`. */
  recordAttempt(
    id: number,
    o: {
      state: Exclude<DeliveryState, 'refused'>;
      attemptMs: number;
      statusCode: number | null;
      error: string | null;
      nextAttemptMs: number;
    },
  ): void {
    this.#db
      .prepare(
        `UPDATE webhook_deliveries
            SET state = ?, last_attempt_ms = ?, last_status_code = ?, last_error = ?, next_attempt_ms = ?
          WHERE id = ?`,
      )
      .run(o.state, o.attemptMs, o.statusCode, o.error, o.nextAttemptMs, id);
  }

  /** When the next pending delivery becomes due (ms since the epoch), or null when none is pending. */
  nextDueMs(): number | null {
    const row = this.#db
      .prepare("SELECT min(next_attempt_ms) AS due FROM webhook_deliveries WHERE state = 'pending'")
      .get() as { due: number | null };
    return row.due;
  }

  /** The last call made for an item's hook, in the SDK's `{post_url, timestamp_ms, status_code}` form. */
  lastCall(kind: ItemKind, itemId: string, hook: HookName): LastCall | null {
    return lastWebhookCall(this.#db, kind, itemId, hook);
  }

  /** Every delivery of an item, oldest first (for tests and diagnostics). */
  deliveriesOf(kind: ItemKind, itemId: string): Delivery[] {
    return (
      this.#db
        .prepare('SELECT * FROM webhook_deliveries WHERE kind = ? AND item_id = ? ORDER BY id')
        .all(kind, itemId) as DeliveryRow[]
    ).map(toDelivery);
  }

  /** Parks a done voice's done hook until its example take is done. */
  waitForExampleTake(w: {
    voiceId: string;
    exampleTakeId: string;
    eventSeq: number;
    url: string;
    voiceBody: string;
  }): void {
    this.#db
      .prepare(
        `INSERT OR IGNORE INTO webhook_voice_waits (voice_id, example_take_id, event_seq, url, voice_body)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(w.voiceId, w.exampleTakeId, w.eventSeq, w.url, w.voiceBody);
  }

  /** Removes and returns the voices waiting for this example take. */
  releaseVoicesWaitingFor(
    takeId: string,
  ): { voiceId: string; eventSeq: number; url: string; voiceBody: string }[] {
    const rows = this.#db
      .prepare(
        'SELECT voice_id, event_seq, url, voice_body FROM webhook_voice_waits WHERE example_take_id = ?',
      )
      .all(takeId) as { voice_id: string; event_seq: number; url: string; voice_body: string }[];
    if (rows.length > 0)
      this.#db.prepare('DELETE FROM webhook_voice_waits WHERE example_take_id = ?').run(takeId);
    return rows.map((r) => ({
      voiceId: r.voice_id,
      eventSeq: r.event_seq,
      url: r.url,
      voiceBody: r.voice_body,
    }));
  }
}

/** The last call made for an item's hook (null before any); usable without an outbox instance. */
export function lastWebhookCall(
  db: Database,
  kind: ItemKind,
  itemId: string,
  hook: HookName,
): LastCall | null {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'webhook_deliveries'")
    .get();
  if (!exists) return null;
  const row = db
    .prepare(
      `SELECT url, last_attempt_ms, last_status_code FROM webhook_deliveries
        WHERE kind = ? AND item_id = ? AND hook = ? AND last_attempt_ms IS NOT NULL
        ORDER BY last_attempt_ms DESC, id DESC LIMIT 1`,
    )
    .get(kind, itemId, hook) as
    | { url: string; last_attempt_ms: number; last_status_code: number | null }
    | undefined;
  return row
    ? { post_url: row.url, timestamp_ms: row.last_attempt_ms, status_code: row.last_status_code }
    : null;
}
