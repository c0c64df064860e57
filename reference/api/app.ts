/**
 * The fastify app of the reference stack: one plugin per resource (api/plugins/), request schemas
 * as `$ref`s into schemas/ compiled by the shared Ajv, every error `{"detail": ...}` (api/errors.ts).
 * Public: /auth/*, /v1/speak/version, the docs and (same-origin mode only) the signed audio URLs;
 * everything else needs a bearer token (api/authenticate.ts). The signed audio URLs normally live on
 * the blob-store listener (buildBlobApp), another origin.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { wedgeAfterFirstTake } from '../defects/hang.ts';
import { installDefectHeader } from '../defects/header.ts';
import { defects } from '../defects/index.ts';
import { installBackpressure } from '../latitude/backpressure.ts';
import { installLatitudeHeader } from '../latitude/header.ts';
import { installHostedRequestLatency } from '../latitude/hosted-requests.ts';
import { latitude } from '../latitude/index.ts';
import { authenticate } from './authenticate.ts';
import type { ApiContext } from './context.ts';
import { errorKey, installErrorHandling } from './errors.ts';
import { answerMethodNotAllowed } from './method-not-allowed.ts';
import { collectDocumentedRoutes } from './openapi.ts';
import { audioPlugin, signedAudioRoute } from './plugins/audio.ts';
import { authPlugin } from './plugins/auth.ts';
import { docsPlugin } from './plugins/docs.ts';
import { metaPlugin } from './plugins/meta.ts';
import { modelsPlugin } from './plugins/models.ts';
import { takesPlugin } from './plugins/takes.ts';
import { versionPlugin } from './plugins/version.ts';
import { voicesPlugin } from './plugins/voices.ts';
import { routeValidatorCompiler } from './validate.ts';

/** A plugin added by another owner (e.g. websocket-address): registered in the protected scope. */
export type ProtectedPlugin = (app: FastifyInstance, ctx: ApiContext) => Promise<void>;

/** The status node's own handler would give a parser error (431 for oversized headers, else 400). */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = STATUS_CODES[status] ?? 'Bad Request';
  const body = JSON.stringify({
    detail:
      status === 431
        ? 'request line or headers larger than 16 KiB (a URL or token that long is not one this server issues)'
        : `malformed HTTP request (${error.code ?? error.message})`,
  });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const REDACTED_QUERY = /(X-Amz-Signature|access_token|refresh_token|token|secret)=[^&]*/gi;

/** The fastify instance every listener of the stack shares: JSON errors, defect header, redacted log. */
function createServer(ctx: ApiContext): FastifyInstance {
  const app = Fastify({
    // serve --tls: https only, no plain-http fallback on the same port.
    ...(ctx.https ? { https: ctx.https } : {}),
    logger: false,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: true,
    // Errors the router raises before any handler (a URL that is not valid percent-encoding, a
    // malformed content type) also answer {"detail"}.
    frameworkErrors: (error, _request, genericReply) => {
      (genericReply as unknown as FastifyReply)
        .code(error.statusCode && error.statusCode < 500 ? error.statusCode : 400)
        .send({ detail: error.message });
    },
    // What node's HTTP parser refuses before fastify sees a request (headers or URL over 16 KiB,
    // a malformed request line) is answered with {"detail"} too, and the connection closed.
    clientErrorHandler: answerClientError,
  });
  installDefectHeader(app);
  // Defect json-as-text-plain: every JSON body goes out declared as text/plain (the bytes unchanged).
  // Defect error-text-plain: error answers only (the error serializer sets its own type).
  const textPlain = defects.has('json-as-text-plain') ? () => true : (code: number) => code >= 400;
  if (defects.has('json-as-text-plain') || defects.has('error-text-plain'))
    app.addHook('onSend', async (_request, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      if (/^application\/json/i.test(type) && textPlain(reply.statusCode))
        reply.header('content-type', 'text/plain; charset=utf-8');
      return payload;
    });
  installLatitudeHeader(app);
  if (defects.has('api-wedges-after-first-take')) wedgeAfterFirstTake(app);
  answerMethodNotAllowed(app, errorKey);
  installErrorHandling(app, ctx.log);
  app.addHook('onResponse', async (request, reply) => {
    const url = request.url.replace(REDACTED_QUERY, '$1=REDACTED');
    ctx.log(`${request.method} ${url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
  });
  return app;
}

/**
 * The blob-store listener: signed audio URLs only, on an origin of its own (as the real service's
 * object storage), so clients that drop Authorization on a cross-origin redirect (curl, browsers)
 * reach it without the bearer token.
 */
export async function buildBlobApp(ctx: ApiContext): Promise<FastifyInstance> {
  const app = createServer(ctx);
  // As a bucket's CORS rule: a page on the API's origin (the Swagger UI, a player) that follows the
  // redirect here reads the audio (the signature authorises, no credentials are involved).
  app.addHook('onSend', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  await app.register(async (scoped) => signedAudioRoute(scoped, ctx));
  return app;
}

export async function buildApp(
  ctx: ApiContext,
  extra: { protectedPlugins?: ProtectedPlugin[] } = {},
): Promise<FastifyInstance> {
  const app = createServer(ctx);
  // Latitude rate-limit / transient-503 answer first: a refused request is not processed at all.
  installBackpressure(app, {
    rps: ctx.options.rateLimitRps,
    burst: ctx.options.rateLimitBurst,
    ...(ctx.options.rateLimitRetryAfterSeconds !== undefined
      ? { retryAfterSeconds: ctx.options.rateLimitRetryAfterSeconds }
      : {}),
  });
  installHostedRequestLatency(app);
  app.setValidatorCompiler(routeValidatorCompiler(ctx.ajv));
  // The OpenAPI document is generated from the routes that declare an operation (api/openapi.ts).
  const documented = collectDocumentedRoutes(app);
  // Response schemas are documentation (and `$ref`s into schemas/ that fast-json-stringify cannot
  // resolve): answers are serialized as they are, so a route never fails on its own schema.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest('userId', '');
  // Clients often send `content-type: application/json` on every request, also on a DELETE or a
  // refresh without a body: an empty body is "no body" (the route decides), not a 400.
  // `__proto__` / `constructor.prototype` keys are dropped (no prototype poisoning) rather than
  // refused: JSON allows any key, and the OpenAPI document allows extra fields where the schema does.
  const defaultJsonParser = app.getDefaultJsonParser('remove', 'remove');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') done(null, undefined);
    else defaultJsonParser(request, text, done);
  });
  if (latitude.has('any-content-type-parsed')) {
    // As a lenient body parser does: any content type is read as JSON (text/plain has its own parser).
    app.removeContentTypeParser('text/plain');
    app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) =>
      defaultJsonParser(request, typeof body === 'string' ? body : body.toString('utf8'), done),
    );
  }

  await app.register(async (open) => {
    // Defect auth-under-v1-prefix: the authentication endpoints live inside the interface's prefix.
    if (defects.has('auth-under-v1-prefix'))
      await open.register(async (moved) => authPlugin(moved, ctx), { prefix: '/v1/speak' });
    else await authPlugin(open, ctx);
    await versionPlugin(open);
  });
  // Its own scope: latitude docs-need-token adds a bearer guard to the docs routes only.
  await app.register(async (docs) => docsPlugin(docs, ctx, documented));
  await app.register(async (scoped) => audioPlugin(scoped, ctx));
  await app.register(async (scoped) => {
    scoped.addHook('onRequest', authenticate(ctx));
    await modelsPlugin(scoped);
    await voicesPlugin(scoped, ctx);
    await takesPlugin(scoped, ctx);
    await metaPlugin(scoped, ctx);
    for (const plugin of extra.protectedPlugins ?? []) await plugin(scoped, ctx);
  });
  return app;
}
