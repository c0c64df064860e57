/**
 * What a route of the API declares in its fastify `schema`, the one source of its validation and
 * of its part of the OpenAPI document (api/openapi.ts assembles the document from the registered
 * routes):
 * - `body`, `querystring`, `params`: JSON Schemas fastify validates with the shared Ajv (422 naming
 *   the field); `$ref`s name schemas/ by `$id` (`TakeGenerate.json`);
 * - `operationId`, `tags`, `summary`, `description`, `security`: the OpenAPI operation's fields, by
 *   their OpenAPI names (as @fastify/swagger reads them);
 * - `responses`: the OpenAPI responses (every status the operation can give, with links);
 * - `documented`: what the document says beyond what fastify validates: a body narrowed per model
 *   (the model rules are checked in code, api/generation-rules.ts, with their own messages), the
 *   body's example and whether it is optional, and per parameter a narrower schema or an example.
 * Routes without an `operationId` (docs pages, signed URLs, _meta) stay out of the document.
 */

export type Json = Record<string, unknown>;

export interface DocumentedParameter {
  /** The parameter's schema in the document when narrower than the validated one (e.g. an enum of model names). */
  schema?: Json;
  example?: unknown;
  /** In the document although the validated schema leaves it out (the handler answers 422 itself). */
  required?: boolean;
}

export interface Documented {
  /** The request body's schema in the document, when narrower than the validated `body`. */
  body?: unknown;
  bodyExample?: unknown;
  /** false: the body may be left out (refresh and logout take the token from the bearer header too). */
  bodyRequired?: boolean;
  parameters?: Record<string, DocumentedParameter>;
  /**
   * One operation per value of a path parameter, on fixed paths (the audio route: `.../wav`,
   * `.../mp3`, ...), each with these fields; api/openapi.ts keeps the template when asked.
   */
  expand?: {
    parameter: string;
    values: readonly string[];
    operation(value: string): { operationId: string; summary: string; description: string };
  };
}

declare module 'fastify' {
  interface FastifySchema {
    operationId?: string;
    tags?: string[];
    summary?: string;
    description?: string;
    /** `[]`: no bearer token (the document's default is the bearer scheme). */
    security?: Array<Record<string, string[]>>;
    /** OpenAPI response objects by status code. */
    responses?: Record<string, Json>;
    documented?: Documented;
  }
}

/** Path parameters of the id routes. */
export interface TakeIdParams {
  take_id: string;
}
export interface VoiceIdParams {
  voice_id: string;
}

/**
 * A params schema: every property a non-empty string (fastify never gives a route an empty
 * segment), with its description (null: none).
 */
export function stringParams(properties: Record<string, string | null>): Json {
  return {
    type: 'object',
    required: Object.keys(properties),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, description]) => [
        name,
        { type: 'string', minLength: 1, ...(description === null ? {} : { description }) },
      ]),
    ),
  };
}
