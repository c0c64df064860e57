/**
 * Item events (seam: docs/dev/contracts.md). Every status change of a take or voice, and its creation,
 * is written as a row of item_events in the same transaction as the change; the API process tails the
 * table and calls subscribers (webhooks) in seq order. Workers write events too (they share the
 * database) and tell the API over IPC, which calls wake(); a slow poll covers a missed wake.
 */
import type { Database } from 'better-sqlite3';
import type { ItemKind } from '../../schemas/item-kind.ts';

export interface ItemEvent {
  seq: number;
  kind: ItemKind;
  itemId: string;
  userId: string;
  status: string;
  body: unknown;
  createdMs: number;
}

export interface ItemEventTail {
  subscribe(name: string, handler: (e: ItemEvent) => void | Promise<void>): void;
  wake(): void;
  close(): void;
}

/** Must run inside the transaction that changes the item; `item` is the body GET returns now. */
export function recordItemEvent(
  db: Database,
  kind: ItemKind,
  item: object & { status: string },
  userId: string,
): void {
  const id =
    kind === 'take' ? (item as { take_id?: unknown }).take_id : (item as { voice_id?: unknown }).voice_id;
  db.prepare(
    'INSERT INTO item_events (kind, item_id, user_id, status, body, created_ms) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(kind, String(id), userId, item.status, JSON.stringify(item), Date.now());
}

interface EventRow {
  seq: number;
  kind: ItemKind;
  item_id: string;
  user_id: string;
  status: string;
  body: string;
  created_ms: number;
}

interface Subscriber {
  name: string;
  handler: (e: ItemEvent) => void | Promise<void>;
  cursor: number;
}

const BATCH = 500;

/**
 * Tails item_events from the beginning for each subscriber (a subscriber keeps its own cursor and
 * skips what it has handled in an earlier run, as webhooks do with their persisted cursor).
 */
export function createItemEventTail(
  db: Database,
  o: { pollMs?: number; log?: (line: string) => void } = {},
): ItemEventTail {
  const subscribers: Subscriber[] = [];
  const select = db.prepare('SELECT * FROM item_events WHERE seq > ? ORDER BY seq LIMIT ?');
  let closed = false;
  let running = false;
  let again = false;

  const drain = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (subscribers.length === 0) break;
        const from = Math.min(...subscribers.map((s) => s.cursor));
        const rows = select.all(from, BATCH) as EventRow[];
        for (const row of rows) {
          if (closed) return;
          const event: ItemEvent = {
            seq: row.seq,
            kind: row.kind,
            itemId: row.item_id,
            userId: row.user_id,
            status: row.status,
            body: JSON.parse(row.body),
            createdMs: row.created_ms,
          };
          for (const s of subscribers) {
            if (s.cursor >= row.seq) continue;
            try {
              await s.handler(event);
            } catch (error) {
              o.log?.(
                `item event subscriber ${s.name} failed on seq ${row.seq}: ${(error as Error).message}`,
              );
            }
            s.cursor = row.seq;
          }
        }
        if (rows.length === BATCH) again = true;
      } while (again && !closed);
    } finally {
      running = false;
    }
  };

  const kick = () => {
    if (!closed) drain().catch((error) => o.log?.(`item event tail: ${(error as Error).message}`));
  };
  const timer = setInterval(kick, o.pollMs ?? 250);
  timer.unref();

  return {
    subscribe(name, handler) {
      subscribers.push({ name, handler, cursor: 0 });
      kick();
    },
    wake: kick,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
