/**
 * Published documentation (speak-v1.md, What the service does): the interactive reference and
 * redoc are HTML; openapi.json is a valid OpenAPI document declaring every path of the contract.
 * Authentication 1 exempts only /version from the bearer, so the docs are fetched with it; what
 * they answer without it is reported.
 */
import { Finding, show } from '../src/checks/finding.ts';
import {
  AUTH_OPERATIONS,
  assertDeclaresOperations,
  assertValidOpenApi,
  CONTRACT_OPERATIONS,
  missingOperations,
} from '../src/checks/openapi.ts';
import {
  check,
  covers,
  type Exchange,
  expectJson,
  observe,
  type SpeakClient,
  type SpeakContext,
} from '../src/harness/index.ts';

const MAX_REDIRECTS = 3;

/** GET, following same-origin redirects (e.g. /docs → /docs/) a few times; the kit never follows them. */
async function getFollowing(speak: SpeakContext, client: SpeakClient, path: string): Promise<Exchange> {
  let exchange = await client.get(path, {
    headers: { accept: 'text/html,application/json;q=0.9,*/*;q=0.8' },
  });
  for (let hop = 0; hop < MAX_REDIRECTS && exchange.status >= 300 && exchange.status < 400; hop++) {
    const location = exchange.headers.location;
    if (!location) break;
    const next = new URL(location, exchange.url);
    if (next.origin !== new URL(speak.config.baseUrl).origin) break;
    exchange = await client.get(`${next.pathname}${next.search}`);
  }
  return exchange;
}

/** What a path that cannot exist answers: a page equal to it is a catch-all, not a reference. */
const catchAll = async (speak: SpeakContext): Promise<string> =>
  (await getFollowing(speak, speak.api, '/v1/speak/speakcheck-no-such-page')).text;

/** An HTML page that renders the API definition (it names it: a URL to openapi.json, or the document inline). */
async function assertReferencePage(speak: SpeakContext, path: string): Promise<void> {
  const exchange = await getFollowing(speak, speak.api, path);
  const type = exchange.headers['content-type'] ?? '';
  if (exchange.status !== 200 || !/^text\/html/i.test(type) || !/<html|<!doctype html/i.test(exchange.text)) {
    throw new Finding(
      `GET ${path} answered ${exchange.status} ${show(type || 'no content-type')}: ${show(exchange.text, 120)}; expected an HTML page`,
      {
        where: path,
        expected: '200 text/html',
        actual: `${exchange.status} ${type}`,
      },
    );
  }
  if (!/openapi/i.test(exchange.text)) {
    throw new Finding(
      `GET ${path} is an HTML page that never names the OpenAPI definition it should render`,
      {
        where: path,
        expected: 'a reference to openapi.json (or the document inline)',
        actual: show(exchange.text, 200),
      },
    );
  }
  if (exchange.text === (await catchAll(speak))) {
    throw new Finding(
      `GET ${path} answers the same page as a path that does not exist: a catch-all, not a reference`,
      {
        where: path,
      },
    );
  }
}

const openapi = async (speak: SpeakContext): Promise<Record<string, unknown>> => {
  const exchange = await getFollowing(speak, speak.api, '/v1/speak/openapi.json');
  if (exchange.status !== 200)
    throw new Finding(`GET /v1/speak/openapi.json answered ${exchange.status}: ${show(exchange.text)}`);
  return expectJson(exchange, 'GET /v1/speak/openapi.json') as Record<string, unknown>;
};

// Each test concludes through its check: a body that returned before it would conclude nothing.
covers(
  ['DOCS-INTERACTIVE-HTML'],
  '/v1/speak/docs is an HTML page rendering the OpenAPI definition',
  async ({ speak }) => {
    await check('DOCS-INTERACTIVE-HTML', () => assertReferencePage(speak, '/v1/speak/docs'));
  },
);

covers(
  ['DOCS-REDOC-HTML'],
  '/v1/speak/redoc is an HTML page rendering the OpenAPI definition',
  async ({ speak }) => {
    await check('DOCS-REDOC-HTML', () => assertReferencePage(speak, '/v1/speak/redoc'));
  },
);

covers(['DOCS-OPENAPI-VALID'], '/v1/speak/openapi.json is a valid OpenAPI document', async ({ speak }) => {
  const document = await openapi(speak);
  await check('DOCS-OPENAPI-VALID', async () => {
    observe('docs.openapi', 'OpenAPI {openapi}', {
      values: { openapi: await assertValidOpenApi(document, 'GET /v1/speak/openapi.json') },
    });
  });
});

covers(
  ['DOCS-OPENAPI-PATHS'],
  'openapi.json declares every /v1/speak operation of the contract',
  async ({ speak }) => {
    const document = await openapi(speak);
    check('DOCS-OPENAPI-PATHS', () =>
      assertDeclaresOperations(document, CONTRACT_OPERATIONS, 'GET /v1/speak/openapi.json'),
    );
  },
);

covers(['DOCS-OPENAPI-AUTH-PATHS'], 'openapi.json and the auth endpoints (reported)', async ({ speak }) => {
  const missing = missingOperations(
    (await openapi(speak)) as { paths?: Record<string, Record<string, unknown>> },
    AUTH_OPERATIONS,
  );
  check('DOCS-OPENAPI-AUTH-PATHS', () => {
    observe(
      'docs.auth-endpoints',
      missing.length ? 'not declared: {missing}' : 'the auth endpoints are declared',
      {
        values: { missing: missing.join(', ') },
      },
    );
    if (missing.length) throw new Finding(`the definition does not declare ${missing.join(', ')}`);
  });
});

covers(['DOCS-WITHOUT-TOKEN'], 'docs without a token (reported)', async ({ speak }) => {
  const answers: string[] = [];
  for (const path of ['/v1/speak/docs', '/v1/speak/redoc', '/v1/speak/openapi.json']) {
    const exchange = await getFollowing(speak, speak.anon, path);
    answers.push(`${path}: ${exchange.status}`);
  }
  check('DOCS-WITHOUT-TOKEN', () =>
    observe('docs.without-token', 'without a token: {answers}', { values: { answers: answers.join('; ') } }),
  );
});
