/**
 * The OpenAPI 3.1 document, generated from the routes: every route whose schema names an
 * `operationId` (api/route-schema.ts) becomes an operation of its path, with its parameters from
 * the route's `params` and `querystring` schemas, its request body from the route's `body` schema
 * (or the narrower one it documents), and the responses it declares. components.schemas are the
 * schema files of schemas/, their `$ref`s rewritten to `#/components/schemas/...` (OpenAPI 3.1 uses
 * JSON Schema 2020-12, so they go in unchanged otherwise), plus the bodies narrowed per model
 * (api/openapi-parts.ts). Undeclared methods on a declared path answer 405 with `Allow`
 * (api/method-not-allowed.ts).
 *
 * Why not @fastify/swagger: its OpenAPI responses carry no `links` (Schemathesis' stateful phase
 * follows them from login and from voice/take generation) and it marks every body required
 * (refresh and logout take an optional one); the few lines here assemble exactly what the routes say.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';
import { rewriteSchemaRefs, schemas } from '../../schemas/index.ts';
import { takeGenerateForModels, voiceGenerateForModels } from './openapi-parts.ts';
import { API_VERSION } from './plugins/version.ts';
import type { Json } from './route-schema.ts';

export interface DocumentedRoute {
  method: string;
  /** fastify's form: `/v1/speak/takes/:take_id`. */
  url: string;
  schema: FastifySchema;
}

/**
 * The routes registered on `app` from now on that declare an operation (call before registering
 * the plugins; the list fills as they register).
 */
export function collectDocumentedRoutes(app: FastifyInstance): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    if (!route.schema?.operationId) return;
    for (const method of [route.method].flat()) {
      // fastify adds a HEAD route beside every GET; the document declares the GET.
      if (method !== 'HEAD')
        routes.push({ method: method.toLowerCase(), url: route.url, schema: route.schema });
    }
  });
  return routes;
}

/** A schema of schemas/ or of a route, as the document writes it: `X.json` refs → `#/components/schemas/X`. */
export function documentSchema(value: unknown): unknown {
  return rewriteSchemaRefs(value, '#/components/schemas/');
}

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/** The parameters of one part (`path` from params, `query` from querystring) of a route. */
function parametersOf(schema: FastifySchema, part: 'params' | 'querystring'): Json[] {
  const object = schema[part] as { properties?: Record<string, Json>; required?: string[] } | undefined;
  const where = part === 'params' ? 'path' : 'query';
  return Object.entries(object?.properties ?? {}).map(([name, property]) => {
    const { description, ...validated } = property;
    const documented = schema.documented?.parameters?.[name] ?? {};
    const required = where === 'path' || documented.required || object?.required?.includes(name);
    return {
      name,
      in: where,
      ...(required ? { required: true } : {}),
      ...(description === undefined ? {} : { description }),
      schema: documented.schema ?? documentSchema(validated),
      ...(documented.example === undefined ? {} : { example: documented.example }),
    };
  });
}

function requestBodyOf(schema: FastifySchema): Json | undefined {
  const documented = schema.documented ?? {};
  if (schema.body === undefined && documented.body === undefined) return undefined;
  return {
    required: documented.bodyRequired ?? true,
    content: {
      'application/json': {
        schema: documented.body ?? documentSchema(schema.body),
        ...(documented.bodyExample === undefined ? {} : { example: documented.bodyExample }),
      },
    },
  };
}

function operationOf(schema: FastifySchema): Json {
  const parameters = [...parametersOf(schema, 'params'), ...parametersOf(schema, 'querystring')];
  const requestBody = requestBodyOf(schema);
  return {
    operationId: schema.operationId,
    tags: schema.tags,
    summary: schema.summary,
    ...(schema.description === undefined ? {} : { description: schema.description }),
    ...(schema.security === undefined ? {} : { security: schema.security }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: schema.responses ?? {},
  };
}

/** Links to an operation the document does not declare are dropped (a templated path has no per-format operations). */
function pruneDanglingLinks(paths: Record<string, Record<string, Json>>): void {
  const declared = new Set(
    Object.values(paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId)),
  );
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
        const links = response.links as Record<string, { operationId: string }> | undefined;
        if (!links) continue;
        for (const [name, link] of Object.entries(links))
          if (!declared.has(link.operationId)) delete links[name];
      }
    }
  }
}

export interface DocumentOptions {
  /**
   * Operations that declare `documented.expand` (the audio route: one per format) are written once
   * per value with fixed paths, unless `templated`: then as the route is, with the parameter's enum.
   */
  templated?: boolean;
  /** Values left out of every expanded parameter's enum (defect openapi-format-enum-incomplete). */
  omitValues?: readonly string[];
}

function expandedPaths(route: DocumentedRoute, operation: Json, o: DocumentOptions): Record<string, Json> {
  const path = openApiPath(route.url);
  const expand = route.schema.documented?.expand;
  const parameters = (operation.parameters ?? []) as Json[];
  if (!expand) return { [path]: operation };
  const values = expand.values.filter((value) => !o.omitValues?.includes(value));
  if (o.templated) {
    const narrowed = parameters.map((p) =>
      p.name === expand.parameter
        ? { ...p, schema: { type: 'string', enum: values }, example: values[0] }
        : p,
    );
    return { [path]: { ...operation, parameters: narrowed } };
  }
  return Object.fromEntries(
    values.map((value) => [
      path.replace(`{${expand.parameter}}`, value),
      {
        ...operation,
        ...expand.operation(value),
        parameters: parameters.filter((p) => p.name !== expand.parameter),
      },
    ]),
  );
}

/** The document for the routes collected by collectDocumentedRoutes (call once they are registered). */
export function buildOpenApi(routes: readonly DocumentedRoute[], o: DocumentOptions = {}): Json {
  const components: Json = {};
  for (const [name, schema] of Object.entries(schemas)) components[name] = documentSchema(schema);
  components.VoiceGenerateForModels = voiceGenerateForModels();
  components.TakeGenerateForModels = takeGenerateForModels();
  components.TakeGenerateBatchForModels = {
    ...(components.TakeGenerateBatch as Json),
    items: { $ref: '#/components/schemas/TakeGenerateForModels' },
  };
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    for (const [path, operation] of Object.entries(expandedPaths(route, operationOf(route.schema), o))) {
      paths[path] = { ...paths[path], [route.method]: operation };
    }
  }
  pruneDanglingLinks(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Speak v1 (speakcheck reference stack)',
      version: `${API_VERSION.version}.${API_VERSION.minor}`,
      description:
        'Text-to-speech: models, voices and takes, token authentication, signed audio URLs. Every error is JSON with `detail`. A declared path asked with an undeclared method answers 405 with `Allow`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: ['auth', 'models', 'voices', 'takes', 'audio', 'meta'].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The access_token of POST /auth/login (or a permanent token).',
        },
      },
    },
  };
}
