/**
 * Lists of voices and takes: the query of store/list-query.ts, one user's items, in the documented
 * order. A list route declares its query schema (from schemas/ListQuery.schema.json, so the document
 * shows it) and validates it with parseListQuery, which reads its bounds from the same schema and
 * knows the latitude switches (pages from 0): the validated `request.query` is the parsed query.
 */
import type { Database } from 'better-sqlite3';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { schemas } from '../../schemas/index.ts';
import { type ListQuery, ListQueryError, listSql, parseListQuery } from '../store/list-query.ts';
import { ApiError } from './errors.ts';
import { AUTH, INVALID, json, LIST_EXAMPLES, LIST_ORDER, MALFORMED, ref } from './openapi-parts.ts';
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

export interface ListRoute<Row, Shown> {
  path: string;
  table: 'voices' | 'takes';
  idColumn: IdColumn;
  operationId: string;
  tag: string;
  summary: string;
  /** The component schema of the list's answer (VoiceList, TakeList). */
  listSchema: string;
  /** A row as the answer shows it. */
  show: (row: Row) => Shown;
}

/** `GET /v1/speak/{voices|takes}`: one user's items in the documented order, the query parsed by parseListQuery. */
export function registerListRoute<Row, Shown>(
  app: FastifyInstance,
  db: Database,
  route: ListRoute<Row, Shown>,
): void {
  const schema = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: LIST_ORDER,
    querystring: listQuerySchema(route.idColumn),
    documented: { parameters: LIST_EXAMPLES },
    responses: { '200': json(ref(route.listSchema)), ...MALFORMED, ...AUTH, ...INVALID },
  };
  app.get<{ Querystring: ListQuery }>(
    route.path,
    { schema, validatorCompiler: listQueryValidator(route.idColumn) },
    async (request) =>
      listRows<Row>(db, route.table, route.idColumn, request.userId, request.query).map(route.show),
  );
}
