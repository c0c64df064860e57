/** Lists of voices and takes: the query of store/list-query.ts, one user's items, in the documented order. */
import type { Database } from 'better-sqlite3';
import { ListQueryError, listSql, parseListQuery } from '../store/list-query.ts';
import { ApiError } from './errors.ts';

export function listRows<Row>(
  db: Database,
  table: 'voices' | 'takes',
  idColumn: 'voice_id' | 'take_id',
  userId: string,
  query: unknown,
): Row[] {
  let parsed: ReturnType<typeof parseListQuery>;
  try {
    parsed = parseListQuery((query ?? {}) as Record<string, unknown>, idColumn);
  } catch (error) {
    if (error instanceof ListQueryError) throw new ApiError(422, error.message);
    throw error;
  }
  const { sql, params } = listSql(table, idColumn, userId, parsed);
  return db.prepare(sql).all(...params) as Row[];
}
