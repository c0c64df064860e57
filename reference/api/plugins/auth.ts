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
import { authenticate as checkCredentials } from '../../auth/users.ts';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { bearerToken, unauthorized } from '../authenticate.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';

function optionalBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError(422, 'body: must be a JSON object');
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new ApiError(422, `body/${name}: must be a non-empty string`);
  return value;
}

export async function authPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // Defect refresh-reuses-access: each refresh token remembers its session's first access token.
  const sessionAccess = new Map<string, string>();
  const rememberSession = (pair: { access_token: string; refresh_token: string }, access: string) => {
    if (defects.has('refresh-reuses-access')) sessionAccess.set(pair.refresh_token, access);
  };

  app.post('/auth/login', { schema: { body: { $ref: 'LoginRequest.json' } } }, async (request) => {
    const { email, password } = request.body as { email: string; password: string };
    const user = await checkCredentials(ctx.db, email, password);
    if (!user && defects.has('login-fail-200')) return { access_token: '', refresh_token: '' };
    if (!user && defects.has('login-fail-403')) throw new ApiError(403, 'invalid email or password');
    if (!user) throw unauthorized('invalid email or password');
    ctx.log(`login ${user.user_id}`);
    const pair = await ctx.tokens.issuePair(user.user_id);
    rememberSession(pair, pair.access_token);
    return pair;
  });

  app.post('/auth/refresh', async (request) => {
    const body = optionalBody(request.body);
    const token = stringField(body, 'refresh_token') ?? bearerToken(request);
    if (!token) throw new ApiError(422, 'body/refresh_token: is required (or send it as a bearer token)');
    const result = await ctx.tokens.rotate(token, stringField(body, 'email'));
    if ('error' in result) throw unauthorized(result.error);
    if (defects.has('refresh-no-rotate')) return { ...result, refresh_token: token };
    const access = sessionAccess.get(token);
    if (access !== undefined) {
      rememberSession(result, access);
      return { ...result, access_token: access };
    }
    return result;
  });

  app.post('/auth/logout', async (request, reply) => {
    const body = optionalBody(request.body);
    const token = stringField(body, 'refresh_token') ?? bearerToken(request);
    if (!token) throw new ApiError(422, 'body/refresh_token: is required (or send it as a bearer token)');
    if (defects.has('logout-no-revoke')) return true;
    if (!ctx.tokens.revoke(token)) throw unauthorized('refresh token unknown or already revoked');
    if (latitude.has('logout-204')) return reply.code(204).send();
    return true;
  });
}
