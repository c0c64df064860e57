/**
 * Every error answer is JSON `{"detail": "..."}` naming the problem:
 * - schema violations → 422 naming the field (`body/name: must be string`);
 * - malformed JSON, empty JSON body → 400; unsupported media type → 415; too large → 413;
 * - ApiError carries its own status (401, 403, 404, 409, 422 ...);
 * - a known path asked with a method it lacks → 405 with `Allow` (api/method-not-allowed.ts);
 * - an unknown route → 404 naming method and path;
 * - anything unexpected → 500 with a generic detail (logged; never for bad input).
 */

import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';

/** The status of an invalid body or query: 422, or 400 with latitude status-400. */
function invalidStatus(): number {
  return latitude.has('status-400') ? 400 : 422;
}

/**
 * The detail of an invalid body or query: one line, or with latitude detail-list FastAPI's list of
 * error objects (`[{"loc": [...], "msg": ..., "type": ...}]`), one per problem.
 */
function invalidDetail(line: string): unknown {
  if (!latitude.has('detail-list')) return line;
  return line.split('; ').map((problem) => {
    const at = problem.indexOf(': ');
    const where = at > 0 ? problem.slice(0, at) : 'body';
    return {
      loc: where.split('/').filter((part) => part !== ''),
      msg: at > 0 ? problem.slice(at + 2) : problem,
      type: 'value_error',
    };
  });
}

/** The field of an error body (`detail`; `error` under the error-without-detail defect). */
export function errorKey(): string {
  return defects.has('error-without-detail') ? 'error' : 'detail';
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** The most specific problems of an Ajv result, one line: "<where>/<field>: <message>; ...". */
export function describeAjvErrors(
  errors: readonly Partial<ErrorObject>[] | null | undefined,
  where = 'body',
): string {
  if (!errors || errors.length === 0) return `${where}: invalid`;
  // anyOf/oneOf wrap the real problems; keep those that say what is wrong.
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const chosen = useful.length > 0 ? useful : errors;
  const lines = new Set<string>();
  for (const e of chosen) {
    const path = e.instancePath ?? '';
    let message = e.message ?? 'invalid';
    const params = e.params as Record<string, unknown> | undefined;
    if (e.keyword === 'additionalProperties' && params?.additionalProperty) {
      message = `unknown field ${String(params.additionalProperty)}`;
    } else if (e.keyword === 'required' && params?.missingProperty) {
      lines.add(`${where}${path}/${String(params.missingProperty)}: is required`);
      continue;
    } else if (e.keyword === 'enum' && Array.isArray(params?.allowedValues)) {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    lines.add(`${where}${path}: ${message}`);
    if (lines.size >= 4) break;
  }
  return [...lines].join('; ');
}

export function installErrorHandling(app: FastifyInstance, log: (line: string) => void): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (defects.has('error-without-detail')) {
      const status =
        error instanceof ApiError ? error.statusCode : error.validation ? 422 : (error.statusCode ?? 500);
      return reply.code(status).send({ error: error instanceof ApiError ? error.detail : error.message });
    }
    const invalid =
      ('validation' in error && error.validation) || (error instanceof ApiError && error.statusCode === 422);
    if (invalid && defects.has('invalid-body-500'))
      return reply.code(500).send({ detail: 'internal server error' });
    if (error instanceof ApiError && error.statusCode === 404 && defects.has('unknown-id-500')) {
      return reply.code(500).send({ detail: 'internal server error' });
    }
    // Latitude unknown-id-400: which 4xx an unknown identifier gets is not shown.
    if (error instanceof ApiError && error.statusCode === 404 && latitude.has('unknown-id-400')) {
      return reply.code(400).headers(error.headers).send({ detail: error.detail });
    }
    if (error instanceof ApiError && error.statusCode === 422) {
      return reply
        .code(invalidStatus())
        .headers(error.headers)
        .send({ detail: invalidDetail(error.detail) });
    }
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    if (error.validation) {
      return reply.code(invalidStatus()).send({
        detail: invalidDetail(
          describeAjvErrors(error.validation as ErrorObject[], error.validationContext ?? 'body'),
        ),
      });
    }
    const status = error.statusCode ?? 500;
    const malformedJson = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError;
    if (malformedJson && defects.has('malformed-json-500'))
      return reply.code(500).send({ detail: 'internal server error' });
    if (status >= 400 && status < 500) {
      const detail = malformedJson
        ? `malformed JSON body: ${error.message}`
        : error.message || `request refused (${status})`;
      return reply.code(status).send({ detail });
    }
    log(`internal error on ${request.method} ${request.url.split('?')[0]}: ${error.stack ?? error.message}`);
    return reply.code(500).send({ detail: 'internal server error' });
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      [errorKey()]: `no such route: ${request.method} ${request.url.split('?')[0]}`,
    });
  });
}
