/**
 * The list query of voices and takes (speak-v1.md + wire-facts.md Lists):
 * - `voice_id` / `take_id`: comma-separated ids, only these;
 * - `length`: page size, absent = unlimited; `page`: from 1, default 1 (needs no length: page 1 of an
 *   unlimited list is the whole list, later pages are empty);
 * - `older` / `newer`: inclusive bounds on timestamp_ms.
 * Order (documented, deterministic): timestamp_ms descending (newest first), then id descending.
 */
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';

/** Latitude default-page-length: the page size when `length` is absent. */
export const DEFAULT_PAGE_LENGTH = 5;

/** The number of the first page: 1, or 0 with latitude pages-from-0. */
function firstPage(): number {
  return latitude.has('pages-from-0') ? 0 : 1;
}
export interface ListQuery {
  ids: string[] | null;
  length: number | null;
  /** The page number as asked (counted from firstPage()). */
  page: number;
  older: number | null;
  newer: number | null;
}

export class ListQueryError extends Error {}

const INTEGER = /^-?\d+$/;

function integerParam(query: Record<string, unknown>, name: string, min: number): number | null {
  const raw = query[name];
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || !INTEGER.test(raw.trim())) {
    throw new ListQueryError(`query parameter ${name} must be an integer (got ${JSON.stringify(raw)})`);
  }
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ListQueryError(`query parameter ${name} must be an integer >= ${min} (got ${raw})`);
  }
  return value;
}

export function parseListQuery(query: Record<string, unknown>, idParam: 'voice_id' | 'take_id'): ListQuery {
  let ids: string[] | null = null;
  const rawIds = query[idParam];
  if (rawIds !== undefined) {
    const joined = Array.isArray(rawIds) ? rawIds.join(',') : rawIds;
    if (typeof joined !== 'string') throw new ListQueryError(`query parameter ${idParam} must be a string`);
    ids = joined
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  return {
    ids,
    length:
      integerParam(query, 'length', 1) ?? (latitude.has('default-page-length') ? DEFAULT_PAGE_LENGTH : null),
    page: integerParam(query, 'page', firstPage()) ?? firstPage(),
    older: integerParam(query, 'older', 0),
    newer: integerParam(query, 'newer', 0),
  };
}

/** SQL for one user's list of `table` (voices or takes) under `q`. */
export function listSql(
  table: 'voices' | 'takes',
  idColumn: 'voice_id' | 'take_id',
  userId: string,
  q: ListQuery,
): { sql: string; params: unknown[] } {
  const where = ['user_id = ?'];
  const params: unknown[] = [userId];
  if (table === 'takes' && latitude.has('example-takes-hidden')) where.push('example_of IS NULL');
  if (q.ids !== null && !(idColumn === 'take_id' && defects.has('take-id-filter-ignored'))) {
    if (q.ids.length === 0) where.push('0');
    else {
      where.push(`${idColumn} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(q.ids));
    }
  }
  const exclusive =
    latitude.has('bounds-exclusive') ||
    (defects.has('list-bounds-exclusive-when-paged') && q.length !== null);
  if (q.older !== null) {
    where.push(exclusive ? 'timestamp_ms < ?' : 'timestamp_ms <= ?');
    params.push(q.older);
  }
  if (q.newer !== null && !defects.has('list-newer-ignored')) {
    where.push(exclusive ? 'timestamp_ms > ?' : 'timestamp_ms >= ?');
    params.push(q.newer);
  }
  const direction = latitude.has('oldest-first') ? 'ASC' : 'DESC';
  let sql = `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY timestamp_ms ${direction}, ${idColumn} ${direction}`;
  const pageIndex = q.page - firstPage();
  if (q.length !== null) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(q.length, (defects.has('paging-off-by-one') ? pageIndex + 1 : pageIndex) * q.length);
  } else if (pageIndex > 0) {
    sql += ' LIMIT 0';
  }
  return { sql, params };
}
