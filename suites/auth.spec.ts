/**
 * Authentication (speak-v1.md Authentication, Authentication endpoints, Errors): login, the token
 * pair, refresh and rotation, logout, and 401 on every protected route without, with a tampered
 * and with an expired token. Tokens never reach a message: only their shape and behaviour.
 */
import { assertErrorBody, assertStatus } from '../src/checks/errors.ts';
import { Finding, show } from '../src/checks/finding.ts';
import { assertNotServed } from '../src/checks/refusal.ts';
import {
  assertTokenPair,
  jwtLifetimeSeconds,
  jwtSecondsLeft,
  type TokenPair,
  tamperToken,
} from '../src/checks/tokens.ts';
import {
  accessTokenLifetime,
  against,
  cannotObserve,
  check,
  checkStep,
  covers,
  type Exchange,
  expectSchema,
  freshEnough,
  notApplicable,
  observe,
  type RequirementId,
  recordedLogout,
  type SpeakContext,
} from '../src/harness/index.ts';
import { assertAccessWorks } from './support/access-token.ts';
import { type ProtectedRoute, protectedRoutesOf } from './support/protected-routes.ts';
import { CHAIN_RESTARTS, loginOnce, refreshChain } from './support/refresh-chain.ts';
import { once } from './support/scenarios.ts';

const PROBE = 'speakcheck-probe-unknown';

function credentials(speak: SpeakContext): { email: string; password: string } {
  const { email, password } = speak.config;
  if (email === undefined || password === undefined) {
    cannotObserve(
      'the run uses a permanent token (--token): no email and password to test login, refresh and logout with',
      '--email and --password instead of --token',
    );
  }
  return { email: email!, password: password! };
}

async function login(speak: SpeakContext): Promise<TokenPair> {
  const exchange = await speak.anon.post('/auth/login', credentials(speak));
  if (exchange.status !== 200 && exchange.status !== 201) {
    throw new Finding(
      `POST /auth/login with the run's credentials answered ${exchange.status}: ${show(exchange.text)}`,
      {
        where: 'POST /auth/login',
        expected: 200,
        actual: exchange.status,
      },
    );
  }
  return tokenPair(exchange.json, 'POST /auth/login');
}

/** assertTokenPair, its finding naming AUTH-TOKEN-PAIR-SHAPE wherever it surfaces (see Finding). */
function tokenPair(json: unknown, what: string): TokenPair {
  return against('AUTH-TOKEN-PAIR-SHAPE', () => assertTokenPair(json, what));
}

function refresh(
  speak: SpeakContext,
  refreshToken: string,
  o: { email?: boolean; bearer?: string } = {},
): Promise<Exchange> {
  const body: Record<string, string> = { refresh_token: refreshToken };
  if (o.email !== false) body.email = credentials(speak).email;
  return speak.anon.post(
    '/auth/refresh',
    body,
    o.bearer ? { headers: { authorization: `Bearer ${o.bearer}` } } : {},
  );
}

function expectPair(exchange: Exchange, what: string): TokenPair {
  if (exchange.status < 200 || exchange.status >= 300) {
    throw new Finding(`${what} answered ${exchange.status}, expected a token pair: ${show(exchange.text)}`, {
      where: what,
      expected: '2xx token pair',
      actual: exchange.status,
    });
  }
  return tokenPair(exchange.json, what);
}

/** Every protected route of the contract, naming the first listed model (else the probe name). */
function protectedRoutes(speak: SpeakContext): ProtectedRoute[] {
  let model = PROBE;
  try {
    model = speak.models[0]?.name ?? PROBE;
  } catch {
    // no model list: the probe name still exercises the route
  }
  return protectedRoutesOf(model, PROBE);
}

/**
 * Calls every protected route with `authorization` (or none) and collects every answer that is not
 * 401 + detail. A wrong status counts against `ids.status` and a missing detail against `ids.detail`
 * (each through check()); without `ids.detail`, both against `ids.status`.
 */
async function assertAllRefused(
  speak: SpeakContext,
  authorization: string | undefined,
  what: string,
  ids: { status: RequirementId; detail?: RequirementId },
): Promise<void> {
  const problems: string[] = [];
  const detailProblems: string[] = [];
  for (const route of protectedRoutes(speak)) {
    const exchange = await speak.anon.request(route.method, route.path, {
      ...(route.json !== undefined ? { json: route.json } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(authorization !== undefined ? { headers: { authorization } } : {}),
    });
    // A server that creates something without a valid token still gets it cleaned up.
    const created =
      exchange.status < 300
        ? (exchange.json as { voice_id?: unknown; take_id?: unknown } | undefined)
        : undefined;
    if (typeof created?.take_id === 'string') speak.track('take', created.take_id);
    else if (typeof created?.voice_id === 'string') speak.track('voice', created.voice_id);
    try {
      assertStatus(exchange, 401, what);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    try {
      assertErrorBody(exchange);
    } catch (error) {
      (ids.detail ? detailProblems : problems).push((error as Error).message);
    }
  }
  const refuse = (list: string[], expected: string) => () => {
    if (list.length)
      throw new Finding(
        `${what}: ${list.length} protected route(s) did not answer ${expected}: ${list.join(' | ')}`,
        { where: what, expected, actual: list },
      );
  };
  if (ids.detail) {
    const statusHeld = check(ids.status, refuse(problems, '401'));
    const detailHeld = check(ids.detail, refuse(detailProblems, 'a JSON detail with their 401'));
    if (!statusHeld || !detailHeld) return;
  } else if (!check(ids.status, refuse(problems, '401 with a JSON detail'))) return;
  observe('auth.unauthenticated', '{what}: all {routes} protected routes answered 401 with a JSON detail.', {
    values: { what, routes: protectedRoutes(speak).length },
  });
}

// One login, then one linear chain of refreshes: logins are deliberately slow on good servers
// (password hashing), refreshes are not. Each step is a scenario the next one builds on.
const baseLogin = loginOnce(login);
const base = baseLogin.login;
const chainOf = refreshChain({ login, refresh, expectPair, refusedBearer, start: baseLogin });
const refreshed = chainOf.step((c, speak) => c.refreshed(speak));
/**
 * The access token a real client carries when it refreshes: one the server has just refused with
 * 401 ("The client refreshes the token and retries"). Made from the pair's own access token with its
 * fifth-last character changed in its own alphabet; undefined when the server does not refuse even that.
 */
async function refusedBearer(speak: SpeakContext, access: string): Promise<string | undefined> {
  // Not the very last character: in base64 its low bits may be padding that decodes the same.
  const at = Math.max(0, access.length - 5);
  const other = [...new Set(access)].find((c) => c !== access[at] && /[A-Za-z0-9]/.test(c)) ?? 'A';
  const stale = `${access.slice(0, at)}${other}${access.slice(at + 1)}`;
  const probe = await speak.anon.get('/v1/speak/models', { headers: { authorization: `Bearer ${stale}` } });
  return probe.status === 401 ? stale : undefined;
}

const refreshedWithBearer = chainOf.step((c, speak) => c.refreshedWithBearer(speak));
const chain = chainOf.step((c, speak) => c.chain(speak));
const refreshedWithoutEmail = chainOf.step((c, speak) => c.refreshedWithoutEmail(speak));
// Its own login: a refusal after logout only proves revocation if the same refresh call worked on
// that token's predecessor just before (the control), on a chain no other scenario has touched. A
// control or logout refused after the run logged the customer out elsewhere (a server that logs
// out everywhere) proves nothing: it starts over, at most CHAIN_RESTARTS times.
const loggedOut = once(async (speak: SpeakContext) => {
  for (let n = 0; ; n++) {
    const sinceMs = Date.now();
    const control = await refresh(speak, (await login(speak)).refresh_token);
    if (chainOf.endedElsewhere(speak, control, sinceMs) && n < CHAIN_RESTARTS) continue;
    if (control.status < 200 || control.status >= 300) return { control };
    const pair = assertTokenPair(control.json, 'POST /auth/refresh (control before logout)');
    let own: string | undefined;
    const logout = await recordedLogout(speak.config.email, (key) => {
      own = key;
      return speak.anon.post('/auth/logout', { refresh_token: pair.refresh_token });
    });
    if (chainOf.endedElsewhere(speak, logout, sinceMs, own) && n < CHAIN_RESTARTS) continue;
    const after = await refresh(speak, pair.refresh_token);
    return { control, logout, after };
  }
});

/**
 * The run's own access token (the kit's login), or a fresh login; a fresh login too when it has
 * passed the lifetime it shows (a tampered copy must be refused for the tampering, not the age).
 */
async function accessToken(speak: SpeakContext): Promise<string> {
  const current = speak.api.tokens()?.access ?? (await base(speak)).access_token;
  return freshEnough(accessTokenLifetime(current)) ? current : (await login(speak)).access_token;
}

/**
 * A login sent without Authorization, with the credentials the preflight logged in with, refused as
 * unauthenticated (401 or 403): it did not work without a token (AUTH-LOGIN-NO-TOKEN), besides not
 * working (AUTH-LOGIN-OK, which the step fails). Any other failure says nothing of the token.
 */
function judgeRefusedWithoutToken(err: unknown): void {
  if (!(err instanceof Finding) || (err.facts.actual !== 401 && err.facts.actual !== 403)) return;
  check('AUTH-LOGIN-NO-TOKEN', () => {
    throw new Finding(
      `a login without Authorization, with the credentials the run logged in with before, was refused: ${err.message}`,
      { where: 'POST /auth/login', expected: 200, actual: err.facts.actual },
    );
  });
}

covers(
  ['AUTH-LOGIN-OK', 'AUTH-LOGIN-NO-TOKEN', 'AUTH-TOKEN-PAIR-SHAPE', 'AUTH-ACCESS-TOKEN-WORKS', 'AUTH-PATHS'],
  'login without a token returns a token pair whose access token works',
  async ({ speak }) => {
    // Made without a token; a body that is not a token pair names AUTH-TOKEN-PAIR-SHAPE.
    const pair = await checkStep(['AUTH-LOGIN-OK', 'AUTH-LOGIN-NO-TOKEN', 'AUTH-PATHS'], () =>
      base(speak).catch((err: unknown) => {
        judgeRefusedWithoutToken(err);
        throw err;
      }),
    );
    check('AUTH-TOKEN-PAIR-SHAPE', () => expectSchema('TokenPair', pair, 'the login answer'));
    await check('AUTH-ACCESS-TOKEN-WORKS', () =>
      assertAccessWorks(speak, pair.access_token, 'login', async () => (await login(speak)).access_token),
    );
    observe('auth.login', 'login at {authUrl}/auth/login answered a token pair.', {
      particulars: { authUrl: speak.config.authUrl },
    });
  },
);

covers(
  ['AUTH-LOGIN-FAIL-401', 'AUTH-ERROR-DETAIL'],
  'a failed login answers 401 with a JSON detail',
  async ({ speak }) => {
    const { email, password } = credentials(speak);
    const wrongPassword = await speak.anon.post('/auth/login', { email, password: `${password}-wrong` });
    check('AUTH-LOGIN-FAIL-401', () => assertStatus(wrongPassword, 401, 'login with a wrong password'));
    check('AUTH-ERROR-DETAIL', () => assertErrorBody(wrongPassword));
    const unknownUser = await speak.anon.post('/auth/login', {
      email: `nobody-${Date.now()}@speakcheck.invalid`,
      password,
    });
    check('AUTH-LOGIN-FAIL-401', () => assertStatus(unknownUser, 401, 'login with an unknown email'));
    check('AUTH-ERROR-DETAIL', () => assertErrorBody(unknownUser));
  },
);

covers(
  ['AUTH-REFRESH-PAIR', 'AUTH-REFRESH-ROTATES', 'AUTH-TOKEN-PAIR-SHAPE'],
  'refresh with refresh_token and email returns a new pair whose access token works',
  async ({ speak }) => {
    const { from, exchange } = await refreshed(speak);
    // A refusal fails AUTH-REFRESH-PAIR; a body that is not a token pair names AUTH-TOKEN-PAIR-SHAPE.
    const pair = await checkStep(['AUTH-REFRESH-PAIR', 'AUTH-TOKEN-PAIR-SHAPE'], () =>
      expectPair(exchange, 'POST /auth/refresh'),
    );
    check('AUTH-REFRESH-ROTATES', () => rotated(from, pair));
    await check('AUTH-REFRESH-PAIR', () =>
      assertAccessWorks(
        speak,
        pair.access_token,
        'refresh',
        chainOf.freshAccess(speak, 'POST /auth/refresh (again)'),
      ),
    );
  },
);

/** The refreshed pair is new: both tokens differ from the ones it replaced. */
function rotated(from: TokenPair, pair: TokenPair): void {
  if (pair.refresh_token === from.refresh_token) {
    throw new Finding('POST /auth/refresh returned the same refresh_token it was given, expected a new one', {
      where: 'POST /auth/refresh /refresh_token',
      expected: 'a new refresh token',
    });
  }
  if (pair.access_token === from.access_token) {
    throw new Finding('POST /auth/refresh returned the same access_token as before, expected a new one', {
      where: 'POST /auth/refresh /access_token',
      expected: 'a new access token',
    });
  }
}

covers(
  ['AUTH-REFRESH-WITH-BEARER'],
  'refresh also accepts the bearer header: the refused one a client carries after its 401',
  async ({ speak }) => {
    const { stale, exchange } = await refreshedWithBearer(speak);
    if (!stale)
      observe(
        'auth.altered-token-not-refused',
        'an altered access token was not refused with 401: the refresh carried the valid one instead',
      );
    const pair = await checkStep('AUTH-REFRESH-WITH-BEARER', () =>
      expectPair(exchange, `POST /auth/refresh with ${stale ? 'a refused' : 'the'} bearer header`),
    );
    await check('AUTH-REFRESH-WITH-BEARER', () =>
      assertAccessWorks(
        speak,
        pair.access_token,
        'refresh with bearer',
        chainOf.freshAccess(speak, 'POST /auth/refresh (again)'),
      ),
    );
  },
);

covers(
  ['AUTH-REFRESH-CHAIN'],
  'refreshing repeatedly keeps working without the password',
  async ({ speak }) => {
    const pairs = await chain(speak);
    const last = pairs.at(-1)!;
    await check('AUTH-REFRESH-CHAIN', () =>
      assertAccessWorks(
        speak,
        last.access_token,
        'the third refresh in a row',
        chainOf.freshAccess(speak, 'POST /auth/refresh (again)', 3),
      ),
    );
  },
);

covers(['AUTH-REFRESH-WITHOUT-EMAIL'], 'refresh without email (reported)', async ({ speak }) => {
  const { exchange } = await refreshedWithoutEmail(speak);
  observe('auth.refresh-without-email', 'POST /auth/refresh without email answered {status}.', {
    values: { status: exchange.status },
  });
  check('AUTH-REFRESH-WITHOUT-EMAIL', () => expectPair(exchange, 'POST /auth/refresh without email'));
});

covers(['AUTH-LOGOUT-REVOKES'], 'logout revokes the refresh token', async ({ speak }) => {
  const { control, logout, after } = await loggedOut(speak);
  if (!logout || !after) {
    cannotObserve(
      `a refresh right after login answered ${control.status}, so a refusal after logout would prove nothing (AUTH-REFRESH-PAIR judges refresh)`,
      'a server whose refresh works (AUTH-REFRESH-PAIR)',
    );
  }
  await checkStep('AUTH-LOGOUT-REVOKES', () => {
    if (logout.status >= 300) {
      throw new Finding(`POST /auth/logout answered ${logout.status}: ${show(logout.text)}`, {
        where: 'POST /auth/logout',
        expected: '2xx',
        actual: logout.status,
      });
    }
  });
  // "Afterwards no new access token can be obtained with it": refused, whatever the error status
  // (observed); the control refresh before logout was served, so the logout made the difference.
  check('AUTH-LOGOUT-REVOKES', () => {
    const refusal = assertNotServed(after, 'refresh with a refresh token revoked by logout');
    observe('auth.refresh-after-logout', 'refresh after logout: {refusal}.', { values: { refusal } });
  });
});

covers(['AUTH-LOGOUT-BODY'], 'logout answer (reported)', async ({ speak }) => {
  const { control, logout } = await loggedOut(speak);
  if (!logout)
    cannotObserve(
      `no logout was made: the refresh before it answered ${control.status}`,
      'a server whose refresh works (AUTH-REFRESH-PAIR)',
    );
  check('AUTH-LOGOUT-BODY', () =>
    observe(
      'auth.logout-answer',
      'POST /auth/logout answered {status}, content-type {contentType}, body {body}.',
      {
        values: {
          status: logout.status,
          contentType: logout.headers['content-type'] ?? 'none',
          body: show(logout.text),
        },
      },
    ),
  );
});

covers(
  ['AUTH-BEARER-REQUIRED', 'AUTH-ERROR-DETAIL'],
  'every protected route refuses a request without a token with 401',
  async ({ speak }) => {
    await assertAllRefused(speak, undefined, 'no Authorization header', {
      status: 'AUTH-BEARER-REQUIRED',
      detail: 'AUTH-ERROR-DETAIL',
    });
  },
);

covers(
  ['AUTH-INVALID-TOKEN-401'],
  'every protected route refuses a tampered or garbage token with 401',
  async ({ speak }) => {
    const ids = { status: 'AUTH-INVALID-TOKEN-401' } as const;
    await assertAllRefused(
      speak,
      `Bearer ${tamperToken(await accessToken(speak))}`,
      'a tampered access token',
      ids,
    );
    await assertAllRefused(speak, 'Bearer speakcheck-not-a-token', 'a garbage bearer token', ids);
  },
);

covers(['AUTH-PERMANENT-TOKEN'], 'permanent token (reported)', async ({ speak }) => {
  const { token } = speak.config;
  if (token === undefined) {
    observe(
      'auth.permanent-token',
      'the run logged in with email and password: no permanent token (--token) was given to look at.',
      { values: { given: false } },
    );
    notApplicable(
      'AUTH-PERMANENT-TOKEN',
      'the run logged in with email and password: no permanent token was given',
      'a run with --token (or SPEAK_TOKEN)',
    );
    return;
  }
  const lifetime = jwtLifetimeSeconds(token);
  observe(
    'auth.permanent-token',
    lifetime === undefined
      ? 'the permanent token carries no expiry the harness can read (not a JWT with exp).'
      : 'the permanent token is a JWT with exp, {lifetime} s after it was issued ({daysLeft} days left).',
    {
      values: { given: true, lifetime: lifetime ?? null },
      particulars: { daysLeft: Math.round((jwtSecondsLeft(token) ?? 0) / 86_400) },
    },
  );
  await check('AUTH-PERMANENT-TOKEN', () => assertAccessWorks(speak, token, 'the permanent token (--token)'));
});

covers(['AUTH-ACCESS-LIFETIME'], 'access token lifetime (reported)', async ({ speak }) => {
  const lifetime = jwtLifetimeSeconds(await accessToken(speak));
  check('AUTH-ACCESS-LIFETIME', () =>
    observe(
      'auth.access-token-lifetime',
      lifetime === undefined
        ? 'the access token is not a JWT with exp: its lifetime cannot be read.'
        : 'the access token is a JWT living {lifetime} s (exp − iat).',
      { values: { lifetime: lifetime ?? null } },
    ),
  );
});

// AUTH-EXPIRED-TOKEN-401 waits a lifetime out: suites/expiry.spec.ts, beside the rest of the run.

// Some servers revoke a whole token family when a rotated refresh token is reused: the family is
// one of its own (a login of its own, refreshed once), so no other test's tokens go with it.
covers(
  ['AUTH-OLD-REFRESH-AFTER-ROTATION'],
  'a rotated refresh token used again (reported)',
  async ({ speak }) => {
    const from = await login(speak);
    const rotation = await refresh(speak, from.refresh_token);
    if (rotation.status < 200 || rotation.status >= 300)
      cannotObserve(
        `a refresh right after login answered ${rotation.status}: there is no rotated token to use again`,
        'a server whose refresh works (AUTH-REFRESH-PAIR)',
      );
    const again = await refresh(speak, from.refresh_token);
    observe(
      'auth.refresh-rotation',
      again.status >= 200 && again.status < 300
        ? 'the old refresh token still refreshes after rotation ({status}): it is not single-use.'
        : 'the old refresh token is refused after rotation ({status}): refresh tokens are single-use.',
      { values: { status: again.status } },
    );
    check('AUTH-OLD-REFRESH-AFTER-ROTATION', () => {
      if (again.status >= 500)
        throw new Finding(`reusing a rotated refresh token caused a server error ${again.status}`);
    });
  },
);
