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

export interface ListQuery {
  ids: string[] | null;
  length: number | null;
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

function integerParam(query: Record<string, unknown>, name: IntegerName): number | null {
  const raw = query[name];
  if (raw === undefined) return null;
  const { min, max } = bounds(name);
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
    length: integerParam(query, 'length'),
    page: integerParam(query, 'page') ?? 1,
    older: integerParam(query, 'older'),
    newer: integerParam(query, 'newer'),
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
  if (q.ids !== null && !(idColumn === 'take_id' && defects.has('take-id-filter-ignored'))) {
    if (q.ids.length === 0) where.push('0');
    else {
      where.push(`${idColumn} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(q.ids));
    }
  }
  if (q.older !== null) {
    where.push(defects.has('list-bounds-exclusive') ? 'timestamp_ms < ?' : 'timestamp_ms <= ?');
    params.push(q.older);
  }
  if (q.newer !== null && !defects.has('list-newer-ignored')) {
    where.push(defects.has('list-bounds-exclusive') ? 'timestamp_ms > ?' : 'timestamp_ms >= ?');
    params.push(q.newer);
  }
  let sql = `SELECT * FROM ${table} WHERE ${where.join(' AND ')} ORDER BY timestamp_ms DESC, ${idColumn} DESC`;
  const offset = q.length === null ? 0 : (defects.has('paging-off-by-one') ? q.page : q.page - 1) * q.length;
  if (!Number.isSafeInteger(offset)) {
    // A page that starts past 2^53 items is past the end of any list (and past what SQLite's
    // 64-bit OFFSET can hold): empty, never an overflow.
    sql += ' LIMIT 0';
  } else if (q.length !== null) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(q.length, offset);
  } else if (q.page > 1) {
    sql += ' LIMIT 0';
  }
  return { sql, params };
}
