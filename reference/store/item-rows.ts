/**
 * What the takes and voices tables share: one row per item keyed by `<kind>_id`, owned by a user,
 * created in `waiting` together with its creation event (reference/events), read back as the
 * resource that event carries. takes.ts and voices.ts keep what is their own: columns and resources.
 */
import type { Database } from 'better-sqlite3';
import type { ItemKind } from '../../schemas/item-kind.ts';
import { recordItemEvent } from '../events/item-events.ts';

export type { ItemKind };

/** A column value as SQLite stores it (JSON columns are already strings: db.ts toJsonColumn). */
export type ColumnValue = string | number | null;

const TABLES = {
  take: { table: 'takes', key: 'take_id' },
  voice: { table: 'voices', key: 'voice_id' },
} as const;

export function getItemRow<Row>(db: Database, kind: ItemKind, id: string): Row | undefined {
  const { table, key } = TABLES[kind];
  return db.prepare(`SELECT * FROM ${table} WHERE ${key} = ?`).get(id) as Row | undefined;
}

export function getUserItemRow<Row>(
  db: Database,
  kind: ItemKind,
  userId: string,
  id: string,
): Row | undefined {
  const { table, key } = TABLES[kind];
  return db.prepare(`SELECT * FROM ${table} WHERE ${key} = ? AND user_id = ?`).get(id, userId) as
    | Row
    | undefined;
}

/**
 * Inserts an item row in `waiting` (`columns` holds the key and `user_id`; the names are the
 * callers' constants, never input), reads it back as its resource and records the creation event.
 * Call inside a transaction.
 */
export function insertItemRow<Row, Resource extends object & { status: string }>(
  db: Database,
  kind: ItemKind,
  columns: Record<string, ColumnValue> & { user_id: string },
  toResource: (row: Row) => Resource,
): Resource {
  const { table, key } = TABLES[kind];
  const names = Object.keys(columns);
  db.prepare(
    `INSERT INTO ${table} (${names.join(', ')}, status) VALUES (${names.map(() => '?').join(', ')}, 'waiting')`,
  ).run(...Object.values(columns));
  const item = toResource(getItemRow<Row>(db, kind, String(columns[key]))!);
  recordItemEvent(db, kind, item, columns.user_id);
  return item;
}
