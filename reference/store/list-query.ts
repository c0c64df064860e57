/**
 * The list query of voices and takes (speak-v1.md + wire-facts.md Lists):
 * - `voice_id` / `take_id`: comma-separated ids, only these;
 * - `length`: page size, absent = unlimited; `page`: from 1, default 1 (needs no length: page 1 of an
 *   unlimited list is the whole list, later pages are empty);
 * - `older` / `newer`: inclusive bounds on timestamp_ms.
 * Order (documented, deterministic): timestamp_ms descending (newest first), then id descending.
 */
import { schemas } from '../../schemas/index.ts';
import { defects } from '../defects/index.ts';
import { deletedTakes, takeDeletedMs } from '../defects/sequence-memory.ts';
import { latitude } from '../latitude/index.ts';

/** Latitude default-page-length: the page size when `length` is absent. */
export const DEFAULT_PAGE_LENGTH = 5;

/** The page size without `length`: none (the whole list), 5 (default-page-length) or 1 (default-page-length-1). */
function defaultLength(): number | null {
  if (latitude.has('default-page-length-1')) return 1;
  return latitude.has('default-page-length') ? DEFAULT_PAGE_LENGTH : null;
}

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
/** Longest echo of a rejected value in a detail (a hostile query may be megabytes long). */
const ECHO_CHARS = 40;

type IntegerName = 'length' | 'page' | 'older' | 'newer';

/** The bounds of an integer parameter, from schemas/ListQuery.schema.json (what the OpenAPI document says). */
function bounds(name: IntegerName): { min: number; max: number } {
  const property = (schemas.ListQuery!.properties as Record<string, { minimum: number; maximum: number }>)[
    name
  ]!;
  return { min: property.minimum, max: property.maximum };
}

function echo(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return text.length > ECHO_CHARS ? `${JSON.stringify(text.slice(0, ECHO_CHARS))}…` : JSON.stringify(text);
}

/** `minimum` overrides the schema's lower bound (latitude pages-from-0 makes 0 a page). */
function integerParam(query: Record<string, unknown>, name: IntegerName, minimum?: number): number | null {
  const raw = query[name];
  if (raw === undefined) return null;
  const { max } = bounds(name);
  const min = minimum ?? bounds(name).min;
  if (typeof raw !== 'string' || !INTEGER.test(raw.trim())) {
    const what = Array.isArray(raw) ? 'given once' : 'an integer';
    throw new ListQueryError(`query/${name}: must be ${what} (got ${echo(raw)})`);
  }
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ListQueryError(`query/${name}: must be an integer from ${min} to ${max} (got ${echo(raw)})`);
  }
  return value;
}

export function parseListQuery(query: Record<string, unknown>, idParam: 'voice_id' | 'take_id'): ListQuery {
  let ids: string[] | null = null;
  const rawIds = query[idParam];
  if (rawIds !== undefined) {
    const joined = Array.isArray(rawIds) ? rawIds.join(',') : rawIds;
    if (typeof joined !== 'string') throw new ListQueryError(`query/${idParam}: must be a string`);
    ids = joined
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  return {
    ids,
    length: integerParam(query, 'length') ?? defaultLength(),
    page: integerParam(query, 'page', firstPage()) ?? firstPage(),
    older: integerParam(query, 'older'),
    newer: integerParam(query, 'newer'),
  };
}

/**
 * Defect list-stale-after-delete: the earliest deletion of a take the filter names (the snapshot
 * the delete path cached), or undefined when it names none.
 */
function snapshotOf(ids: readonly string[] | null): number | undefined {
  const times = (ids ?? []).flatMap((id) => takeDeletedMs.get(id) ?? []);
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** SQL for one user's list of `table` (voices or takes) under `q`. */
export function listSql(
  table: 'voices' | 'takes',
  idColumn: 'voice_id' | 'take_id',
  userId: string,
  q: ListQuery,
): { sql: string; params: unknown[] } {
  // Defect leak-list: an id filter replaces the owner condition instead of narrowing it.
  const leak = q.ids !== null && defects.has('leak-list');
  const where = leak ? [] : ['user_id = ?'];
  const params: unknown[] = leak ? [] : [userId];
  if (table === 'takes' && latitude.has('example-takes-hidden')) where.push('example_of IS NULL');
  // Defect take-list-ready-only: takes still in progress are left out of the take list.
  if (table === 'takes' && defects.has('take-list-ready-only')) where.push("status = 'ready'");
  // Defect voice-list-inner-join: voices without a description are left out of the voice list.
  if (table === 'voices' && defects.has('voice-list-inner-join')) where.push('description IS NOT NULL');
  if (q.ids !== null && !(idColumn === 'take_id' && defects.has('take-id-filter-ignored'))) {
    if (q.ids.length === 0) where.push('0');
    else {
      where.push(`${idColumn} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(q.ids));
    }
  }
  // Defect list-stale-after-delete: a filter naming a deleted take answers the list as it was then.
  const snapshotMs =
    table === 'takes' && defects.has('list-stale-after-delete') ? snapshotOf(q.ids) : undefined;
  if (snapshotMs !== undefined) {
    where.push('timestamp_ms <= ?');
    params.push(snapshotMs);
  }
  const exclusive =
    latitude.has('bounds-exclusive') ||
    (defects.has('list-bounds-exclusive-when-paged') && q.length !== null);
  if (q.older !== null && !defects.has('list-older-ignored')) {
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
  // Defect list-skips-after-delete: a deleted take named in the filter still counts in the offset.
  const skew =
    table === 'takes' &&
    pageIndex > 0 &&
    defects.has('list-skips-after-delete') &&
    (q.ids ?? []).some((id) => deletedTakes.has(id))
      ? 1
      : 0;
  const offset =
    q.length === null ? 0 : (defects.has('paging-off-by-one') ? pageIndex + 1 : pageIndex) * q.length + skew;
  if (!Number.isSafeInteger(offset)) {
    // A page that starts past 2^53 items is past the end of any list (and past what SQLite's
    // 64-bit OFFSET can hold): empty, never an overflow.
    sql += ' LIMIT 0';
  } else if (q.length !== null && pageIndex > 0 && defects.has('list-length-first-page-only')) {
    // Defect list-length-first-page-only: a later page runs from its offset to the end of the list.
    sql += ' LIMIT -1 OFFSET ?';
    params.push(offset);
  } else if (q.length !== null) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(q.length, offset);
  } else if (pageIndex > 0) {
    sql += ' LIMIT 0';
  }
  return { sql, params };
}
