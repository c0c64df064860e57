/**
 * Versioning (speak-v1.md Versioning, Endpoints → Version; wire-facts Paths): the version endpoint
 * without a token, the /v1/speak prefix, JSON bodies.
 */
import { assertStatus } from '../src/checks/errors.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  ClientDiagnostic,
  check,
  checkStep,
  covers,
  type Exchange,
  expectSchema,
  notObserved,
  observe,
  type SpeakContext,
} from '../src/harness/index.ts';

/**
 * "A `/version` endpoint exists ... Its full path and response shape: not shown": the wire-facts path
 * first, then the literal one at the base URL; the first that answers 200 without a token is it.
 */
const VERSION_PATHS = ['/v1/speak/version', '/version'] as const;

/** major and minor from the wire-facts shape, or from `major`/`minor` when a server names them so. */
function versionNumbers(json: unknown): { major: unknown; minor: unknown } {
  const o = (json ?? {}) as Record<string, unknown>;
  return { major: o.version ?? o.major, minor: o.minor };
}

/**
 * The version answer and the path that gave it (asked anew by each test: no state kept between
 * them). A path that does not answer is no version endpoint: the next is asked, and when none
 * answers 200 the silence is the evidence (against VERSION-NO-TOKEN: src/harness/route-requirement.ts).
 */
async function getVersion(speak: SpeakContext): Promise<{ path: string; exchange: Exchange }> {
  let first: Exchange | undefined;
  let silent: ClientDiagnostic | undefined;
  for (const path of VERSION_PATHS) {
    let exchange: Exchange;
    try {
      exchange = await speak.anon.get(path);
    } catch (err) {
      if (!(err instanceof ClientDiagnostic && err.kind === 'hung')) throw err;
      silent ??= err;
      continue;
    }
    if (exchange.status === 200) return { path, exchange };
    first ??= exchange;
  }
  if (silent) throw silent;
  throw new Finding(
    `GET ${VERSION_PATHS[0]} without a token answered ${first?.status}, expected 200: ${show(first?.text)}`,
    {
      where: VERSION_PATHS[0],
      expected: 200,
      actual: first?.status,
    },
  );
}

function assertJson(exchange: Exchange): void {
  const type = exchange.headers['content-type'] ?? '';
  if (!/^application\/([\w.+-]+\+)?json/i.test(type) || exchange.json === undefined) {
    throw new Finding(
      `${exchange.method} ${new URL(exchange.url).pathname} answered ${show(type || 'no content-type')} / ${show(exchange.text, 80)}, expected a JSON body`,
      {
        where: exchange.url,
        expected: 'application/json',
        actual: type,
      },
    );
  }
}

covers(
  ['VERSION-NO-TOKEN', 'VERSION-MAJOR-MINOR'],
  'the version endpoint answers without a token with major and minor numbers',
  async ({ speak }) => {
    const { path, exchange } = await checkStep('VERSION-NO-TOKEN', async () => {
      const answer = await getVersion(speak);
      assertJson(answer.exchange);
      return answer;
    });
    check('VERSION-MAJOR-MINOR', () => {
      const { major, minor } = versionNumbers(exchange.json);
      if (!Number.isInteger(major) || !Number.isInteger(minor)) {
        throw new Finding(
          `GET ${path}: expected integer major ("version") and minor numbers, got ${show(exchange.json)}`,
          {
            where: path,
            expected: '{version: int, minor: int}',
            actual: exchange.json,
          },
        );
      }
      observe('version.number', 'version {major}.{minor}', {
        values: { major: String(major), minor: String(minor) },
      });
    });
  },
);

covers(
  ['VERSION-MAJOR-MATCHES-PATH'],
  'the reported major version is the path version (1)',
  async ({ speak }) => {
    const { path, exchange } = await getVersion(speak);
    const { major } = versionNumbers(exchange.json);
    check('VERSION-MAJOR-MATCHES-PATH', () => {
      if (major !== 1)
        throw new Finding(`GET ${path}: major version ${show(major)}, but the path says /v1`, {
          expected: 1,
          actual: major,
        });
    });
  },
);

covers(
  ['VERSION-WIRE-SHAPE'],
  'the version body has the SDK shape {version, minor} (reported)',
  async ({ speak }) => {
    const { path, exchange } = await getVersion(speak);
    const json = exchange.json;
    observe('version.answer', 'GET {path} answered {body}', { values: { path, body: show(json) } });
    check('VERSION-WIRE-SHAPE', () => {
      if (path !== VERSION_PATHS[0])
        throw new Finding(`the version endpoint is ${path}, not the SDK's ${VERSION_PATHS[0]}`);
      expectSchema('Version', json, 'the version answer');
      observe('version.sdk-shape', 'version body {body} has the SDK shape', { values: { body: show(json) } });
    });
  },
);

covers(
  ['VERSION-PATH-PREFIX'],
  'the interface answers under /v1/speak and authentication under /auth',
  async ({ speak }) => {
    const models = await speak.api.get('/v1/speak/models');
    // Both halves are asked before anything is judged: one check concludes the id, so a held
    // /v1/speak half never passes it alone when the /auth half could not be judged.
    const authHalf = await judgeAuthHalf(speak);
    check('VERSION-PATH-PREFIX', () => {
      assertStatus(models, 200, 'GET /v1/speak/models');
      authHalf();
    });
  },
);

/**
 * The /auth half of VERSION-PATH-PREFIX, asked now and judged inside the id's check: a login with the
 * run's credentials, or (a permanent token only) an unknown user's login next to a control route.
 */
async function judgeAuthHalf(speak: SpeakContext): Promise<() => void> {
  const { email, password } = speak.config;
  if (email !== undefined && password !== undefined) {
    // A login that works proves the route lives at {auth_url}/auth/login.
    const login = await speak.anon.post('/auth/login', { email, password });
    return () => {
      assertStatus(login, 200, 'POST /auth/login (outside the /v1/speak prefix) with the run’s credentials');
      expectSchema('TokenPair', login.json, 'the login answer');
    };
  }
  // With a permanent token only: an unknown user's 401 says the route is there, unless every
  // unknown /auth path answers 401 too (an auth layer in front of everything). The control is sent
  // before anything is judged, so that a 401 everywhere is seen before the 401 is taken as proof.
  const login = await speak.anon.post('/auth/login', {
    email: `nobody-${Date.now()}@speakcheck.invalid`,
    password: 'x',
  });
  const control = await speak.anon.post('/auth/speakcheck-no-such-route', {});
  observe(
    'version.login-control',
    'POST /auth/login with an unknown user answered {login}; POST /auth/speakcheck-no-such-route answered {status}{also}',
    {
      values: { login: login.status, status: control.status },
      particulars: {
        also:
          login.status === 401 && control.status === 401
            ? ' too: the 401 alone does not prove where login lives.'
            : '.',
      },
    },
  );
  return () => {
    assertStatus(login, 401, 'POST /auth/login (outside the /v1/speak prefix) with an unknown user');
    if (control.status === 401)
      notObserved(
        'VERSION-PATH-PREFIX',
        'POST /auth/login with an unknown user answered 401, but so did POST /auth/speakcheck-no-such-route (a route that does not exist): every /auth path answers 401 (an auth layer in front of them), so the 401 does not show that login lives at /auth/login',
        '--email/--password, or a server answering unknown /auth routes with 404',
      );
  };
}

covers(
  ['API-JSON-BODIES'],
  'responses with a body are JSON (models, a model, voices, takes, version, an error)',
  async ({ speak }) => {
    const name = speak.models[0]?.name ?? 'speakcheck-probe';
    const exchanges = [
      await speak.api.get('/v1/speak/models'),
      await speak.api.get(`/v1/speak/models/${encodeURIComponent(name)}`),
      await speak.api.get('/v1/speak/voices', { query: { length: 1 } }),
      await speak.api.get('/v1/speak/takes', { query: { length: 1 } }),
      (await getVersion(speak)).exchange,
      await speak.anon.get('/v1/speak/models'),
    ];
    for (const exchange of exchanges) check('API-JSON-BODIES', () => assertJson(exchange));
  },
);
