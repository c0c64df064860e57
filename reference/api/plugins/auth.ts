/**
 * /auth/login, /auth/refresh, /auth/logout (at the server root, outside /v1/speak).
 * - login: 401 on bad credentials;
 * - refresh: the refresh token from the body (`refresh_token`, optional `email` that must match) or,
 *   when the body has none, from the bearer header; answers a NEW pair and revokes the used token;
 *   a bearer header beside a body token is accepted and ignored (it may be an expired access token);
 * - logout: revokes the refresh token (body or bearer); answers `true`; an unknown or already revoked
 *   token → 401.
 */

import type { FastifyInstance } from 'fastify';
import type { LoginRequest } from '../../../schemas/types.ts';
import { authenticate as checkCredentials } from '../../auth/users.ts';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { depthOf, rememberChain } from '../../defects/sequence-memory.ts';
import { latitude } from '../../latitude/index.ts';
import { bearerToken, unauthorized } from '../authenticate.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { BODY_ERRORS, error, json, NO_AUTH, ref, SESSION_LINKS, withLinks } from '../openapi-parts.ts';

/**
 * The body refresh and logout validate: optional (the token may come as a bearer token instead),
 * and a token field may be null (then the bearer header is used). The document shows the full
 * RefreshRequest / LogoutRequest, marked optional.
 */
function optionalTokenBody(fields: readonly string[]) {
  return {
    type: ['object', 'null'],
    properties: Object.fromEntries(fields.map((name) => [name, { type: ['string', 'null'], minLength: 1 }])),
  };
}

/** What optionalTokenBody lets through (absent: undefined). */
type OptionalTokenBody = { refresh_token?: string | null; email?: string | null } | null | undefined;

const TOKEN_FROM = 'The refresh token comes from the body or, without one, from `Authorization: Bearer`.';

export async function authPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // Defect refresh-reuses-access: each refresh token remembers its session's first access token.
  const sessionAccess = new Map<string, string>();
  const rememberSession = (pair: { access_token: string; refresh_token: string }, access: string) => {
    if (defects.has('refresh-reuses-access')) sessionAccess.set(pair.refresh_token, access);
  };

  const login = {
    operationId: 'login',
    tags: ['auth'],
    summary: 'Log in',
    description: 'The access token is the bearer of every other operation (security scheme `bearer`).',
    security: NO_AUTH,
    body: { $ref: 'LoginRequest.json' },
    documented: { bodyExample: { email: 'demo@speakcheck.local', password: 'not-the-password' } },
    responses: {
      '200': withLinks(json(ref('TokenPair')), SESSION_LINKS),
      ...BODY_ERRORS,
      '401': error('Bad credentials'),
    },
  };
  /** Defect relogin-needs-token: the users who have logged in (a session guard's memory). */
  const signedIn = new Set<string>();
  app.post<{ Body: LoginRequest }>('/auth/login', { schema: login }, async (request, reply) => {
    // Defect login-hangs: the login accepts the request and never answers (a wedged password hasher).
    if (defects.has('login-hangs')) return neverAnswer(reply);
    const { email, password } = request.body;
    const user = await checkCredentials(ctx.db, email, password);
    if (!user && defects.has('login-fail-200')) return { access_token: '', refresh_token: '' };
    if (!user && defects.has('login-fail-403')) throw new ApiError(403, 'invalid email or password');
    if (!user) throw unauthorized('invalid email or password');
    // Defect relogin-needs-token: a user with a session must send its bearer token to log in again.
    if (defects.has('relogin-needs-token')) {
      if (signedIn.has(user.user_id) && request.headers.authorization === undefined)
        throw unauthorized("already signed in: send the session's access token to log in again");
      signedIn.add(user.user_id);
    }
    ctx.log(`login ${user.user_id}`);
    const pair = await ctx.tokens.issuePair(user.user_id);
    // Defect login-token-stale-key: the login's access token is signed with a retired key.
    if (defects.has('login-token-stale-key'))
      pair.access_token = await ctx.tokens.issueWithRetiredKey(user.user_id);
    rememberSession(pair, pair.access_token);
    return pair;
  });

  const refresh = {
    operationId: 'refresh',
    tags: ['auth'],
    summary: 'New token pair for a refresh token (the used one stops working)',
    description: TOKEN_FROM,
    security: NO_AUTH,
    body: optionalTokenBody(['refresh_token', 'email']),
    documented: {
      body: ref('RefreshRequest'),
      bodyRequired: false,
      bodyExample: { refresh_token: 'rt_unknown' },
    },
    responses: {
      '200': withLinks(json(ref('TokenPair')), SESSION_LINKS),
      ...BODY_ERRORS,
      '401': error('Unknown, revoked or used refresh token'),
    },
  };
  app.post<{ Body: OptionalTokenBody }>('/auth/refresh', { schema: refresh }, async (request) => {
    const token = request.body?.refresh_token ?? bearerToken(request);
    if (!token) throw new ApiError(422, 'body/refresh_token: is required (or send it as a bearer token)');
    // Defect refresh-refuses-stale-bearer: a bearer header beside the refresh token must be a valid
    // access token, so the client that refreshes after its 401 (carrying the expired one) is refused.
    const bearer = bearerToken(request);
    if (defects.has('refresh-refuses-stale-bearer') && request.body?.refresh_token && bearer) {
      const verified = await ctx.tokens.verifyAccess(bearer);
      if ('error' in verified) throw unauthorized(verified.error);
    }
    // Defect seventh-refresh-fails: a chain's seventh refresh is refused (its depth counter overflows).
    const depth = depthOf(token) + 1;
    if (defects.has('seventh-refresh-fails') && depth >= 7)
      throw unauthorized('refresh token invalid, expired or revoked');
    const result = await ctx.tokens.rotate(token, request.body?.email ?? undefined);
    if ('error' in result) throw unauthorized(result.error);
    if (defects.has('seventh-refresh-fails') || defects.has('deep-logout-ignored'))
      rememberChain(result.refresh_token, depth);
    if (defects.has('refresh-no-rotate')) return { ...result, refresh_token: token };
    // Defect refresh-token-camelcase: the new refresh token is answered under `refreshToken`.
    if (defects.has('refresh-token-camelcase'))
      return { access_token: result.access_token, refreshToken: result.refresh_token };
    const access = sessionAccess.get(token);
    if (access !== undefined) {
      rememberSession(result, access);
      return { ...result, access_token: access };
    }
    return result;
  });

  const logout = {
    operationId: 'logout',
    tags: ['auth'],
    summary: 'Revoke a refresh token',
    description: TOKEN_FROM,
    security: NO_AUTH,
    body: optionalTokenBody(['refresh_token']),
    documented: {
      body: ref('LogoutRequest'),
      bodyRequired: false,
      bodyExample: { refresh_token: 'rt_unknown' },
    },
    responses: {
      '200': json(ref('TrueLiteral')),
      ...BODY_ERRORS,
      '401': error('Unknown or revoked refresh token'),
    },
  };
  app.post<{ Body: OptionalTokenBody }>('/auth/logout', { schema: logout }, async (request, reply) => {
    const token = request.body?.refresh_token ?? bearerToken(request);
    if (!token) throw new ApiError(422, 'body/refresh_token: is required (or send it as a bearer token)');
    // Defect refresh-refuses-stale-bearer: a bearer header beside the refresh token must be a valid
    // access token, so the client that refreshes after its 401 (carrying the expired one) is refused.
    const bearer = bearerToken(request);
    if (defects.has('refresh-refuses-stale-bearer') && request.body?.refresh_token && bearer) {
      const verified = await ctx.tokens.verifyAccess(bearer);
      if ('error' in verified) throw unauthorized(verified.error);
    }
    if (defects.has('logout-no-revoke')) return true;
    // Defect deep-logout-ignored: a token from the second or a later refresh of a chain is kept.
    if (defects.has('deep-logout-ignored') && depthOf(token) >= 2) return true;
    if (!ctx.tokens.revoke(token)) throw unauthorized('refresh token unknown or already revoked');
    if (latitude.has('logout-204')) return reply.code(204).send();
    return true;
  });
}
