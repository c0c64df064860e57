/**
 * Lists of voices and takes: the query of store/list-query.ts, one user's items, in the documented
 * order. A list route declares its query schema (from schemas/ListQuery.schema.json, so the document
 * shows it) and validates it with parseListQuery, which reads its bounds from the same schema and
 * knows the latitude switches (pages from 0): the validated `request.query` is the parsed query.
 */
import type { Database } from 'better-sqlite3';
import type { FastifySchemaCompiler } from 'fastify';
import { schemas } from '../../schemas/index.ts';
import { type ListQuery, ListQueryError, listSql, parseListQuery } from '../store/list-query.ts';
import { ApiError } from './errors.ts';
import type { Json } from './route-schema.ts';

type IdColumn = 'voice_id' | 'take_id';

/** The query schema of a list route: its id filter and the paging parameters of ListQuery. */
export function listQuerySchema(idColumn: IdColumn): Json {
  const properties = schemas.ListQuery!.properties as Record<string, Json>;
  return {
    type: 'object',
    properties: Object.fromEntries(
      [idColumn, 'length', 'page', 'older', 'newer'].map((name) => [name, properties[name]!]),
    ),
  };
}

/** The route's validator compiler: the querystring is parsed by parseListQuery (422 naming the parameter). */
export function listQueryValidator(idColumn: IdColumn): FastifySchemaCompiler<unknown> {
  return () => (query: unknown) => {
    try {
      return { value: parseListQuery((query ?? {}) as Record<string, unknown>, idColumn) };
    } catch (error) {
      if (error instanceof ListQueryError) return { error: new ApiError(422, error.message) };
      throw error;
    }
  };
}

export function listRows<Row>(
  db: Database,
  table: 'voices' | 'takes',
  idColumn: IdColumn,
  userId: string,
  query: ListQuery,
): Row[] {
  const { sql, params } = listSql(table, idColumn, userId, query);
  return db.prepare(sql).all(...params) as Row[];
}
