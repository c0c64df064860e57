/**
 * /v1/speak/openapi.json, /v1/speak/docs (Swagger UI from swagger-ui-dist) and /v1/speak/redoc
 * (Redoc's standalone bundle from the redoc package), all served locally (no CDN) and without a
 * token, so a browser can open them.
 */

import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { authenticate } from '../authenticate.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { buildOpenApi, type DocumentedRoute, type DocumentOptions } from '../openapi.ts';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const REDOC_BUNDLE = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const SWAGGER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Speak v1 — Swagger UI</title>
<link rel="stylesheet" href="/v1/speak/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/v1/speak/docs/assets/swagger-ui-bundle.js"></script>
<script src="/v1/speak/docs/assets/swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/speak/openapi.json', dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout',
  validatorUrl: null });</script>
</body></html>`;

// Swagger UI: validatorUrl null, or every host but localhost shows a badge image fetched from
// validator.swagger.io. Redoc: its sidebar footer's logo is an <img> from cdn.redoc.ly with no option
// to turn it off; an empty src makes the browser fire the image's error handler (which hides it)
// without a request. Both found, and guarded against a library upgrade, by test/reference/api/api-docs.int.test.ts.
const REDOC_CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const REDOC_OFFLINE_BUNDLE = readFileSync(REDOC_BUNDLE, 'utf8').replaceAll(REDOC_CDN_LOGO, '""');

const REDOC_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Speak v1 — Redoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v1/speak/openapi.json"></redoc>
<script src="/v1/speak/redoc/redoc.standalone.js"></script></body></html>`;

/** Defect docs-placeholder: the page a docs route serves before anyone wires up the renderer. */
const PLACEHOLDER_HTML =
  '<!doctype html><html><body><h1>Speak API</h1><p>Documentation coming soon.</p></body></html>';

/**
 * The document's form: the audio paths templated (`{format}` with an enum) under latitude
 * templated-audio-path, and without webm under defect openapi-format-enum-incomplete.
 */
function documentOptions(): DocumentOptions {
  if (defects.has('openapi-format-enum-incomplete')) return { templated: true, omitValues: ['webm'] };
  return { templated: latitude.has('templated-audio-path') };
}

/** The document of `routes` (the API's routes, complete once the app is ready), with the defects that alter it. */
function documentOf(routes: readonly DocumentedRoute[]): Record<string, unknown> {
  const document = buildOpenApi(routes, documentOptions());
  if (defects.has('openapi-missing-path'))
    delete (document.paths as Record<string, unknown>)['/v1/speak/takes/{take_id}'];
  // Defect openapi-info-no-version: the Info object lacks its required `version`.
  if (defects.has('openapi-info-no-version')) delete (document.info as Record<string, unknown>).version;
  return document;
}

export async function docsPlugin(
  app: FastifyInstance,
  ctx: ApiContext,
  routes: readonly DocumentedRoute[],
): Promise<void> {
  // Latitude docs-need-token: "Every request needs Authorization ... except the /version endpoint."
  if (latitude.has('docs-need-token')) app.addHook('onRequest', authenticate(ctx));
  // Built at the first request: every plugin has registered its routes by then.
  let document: Record<string, unknown> | undefined;
  app.get('/v1/speak/openapi.json', async () => {
    document ??= documentOf(routes);
    return document;
  });
  app.get('/v1/speak/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(defects.has('docs-placeholder') ? PLACEHOLDER_HTML : SWAGGER_HTML),
  );
  app.get<{ Params: { file: string } }>('/v1/speak/docs/assets/:file', async (request, reply) => {
    const { file } = request.params;
    const type = SWAGGER_ASSETS[file];
    if (!type) throw new ApiError(404, `no such asset: ${file}`);
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=3600')
      .send(createReadStream(join(SWAGGER_DIR, file)));
  });
  app.get('/v1/speak/redoc', async (_request, reply) =>
    // Defect redoc-not-served: the Redoc page is turned off; its path answers as an unknown route.
    defects.has('redoc-not-served')
      ? reply.callNotFound()
      : reply.type('text/html; charset=utf-8').send(REDOC_HTML),
  );
  app.get('/v1/speak/redoc/redoc.standalone.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(REDOC_OFFLINE_BUNDLE),
  );
}
