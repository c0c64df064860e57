/**
 * The fastify app of the reference stack: one plugin per resource (api/plugins/), request schemas
 * as `$ref`s into schemas/ compiled by the shared Ajv, every error `{"detail": ...}` (api/errors.ts).
 * Public: /auth/*, /v1/speak/version, the docs and the signed audio URLs; everything else needs a
 * bearer token (api/authenticate.ts).
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { installDefectHeader } from '../defects/header.ts';
import { installLatitudeHeader } from '../latitude/header.ts';
import { latitude } from '../latitude/index.ts';
import { authenticate } from './authenticate.ts';
import type { ApiContext } from './context.ts';
import { installErrorHandling } from './errors.ts';
import { audioPlugin } from './plugins/audio.ts';
import { authPlugin } from './plugins/auth.ts';
import { docsPlugin } from './plugins/docs.ts';
import { metaPlugin } from './plugins/meta.ts';
import { modelsPlugin } from './plugins/models.ts';
import { takesPlugin } from './plugins/takes.ts';
import { versionPlugin } from './plugins/version.ts';
import { voicesPlugin } from './plugins/voices.ts';

/** A plugin added by another owner (e.g. websocket-address): registered in the protected scope. */
export type ProtectedPlugin = (app: FastifyInstance, ctx: ApiContext) => Promise<void>;

const REDACTED_QUERY = /(X-Amz-Signature|access_token|refresh_token|token|secret)=[^&]*/gi;

export async function buildApp(
  ctx: ApiContext,
  extra: { protectedPlugins?: ProtectedPlugin[] } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
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
  });
  installDefectHeader(app);
  installLatitudeHeader(app);
  app.setValidatorCompiler(({ schema }) => ctx.ajv.compile(schema));
  // Response schemas are documentation (and `$ref`s into schemas/ that fast-json-stringify cannot
  // resolve): answers are serialized as they are, so a route never fails on its own schema.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.decorateRequest('userId', '');
  // Clients often send `content-type: application/json` on every request, also on a DELETE or a
  // refresh without a body: an empty body is "no body" (the route decides), not a 400.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
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
  installErrorHandling(app, ctx.log);
  app.addHook('onResponse', async (request, reply) => {
    const url = request.url.replace(REDACTED_QUERY, '$1=REDACTED');
    ctx.log(`${request.method} ${url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
  });

  await app.register(async (open) => {
    await authPlugin(open, ctx);
    await versionPlugin(open);
  });
  // Its own scope: latitude docs-need-token adds a bearer guard to the docs routes only.
  await app.register(async (docs) => docsPlugin(docs, ctx));
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
