/**
 * The bearer guard of protected routes: `Authorization: Bearer <access or permanent token>`.
 * Missing, malformed, tampered or expired → 401 with a detail and `WWW-Authenticate: Bearer`.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';
import { findUserById } from '../auth/users.ts';
import { defects } from '../defects/index.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function unauthorized(detail: string): ApiError {
  return new ApiError(401, detail, { 'www-authenticate': 'Bearer' });
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER.exec(header);
  return match?.[1];
}

export function authenticate(ctx: ApiContext) {
  return async (request: FastifyRequest, reply?: FastifyReply): Promise<FastifyReply | undefined> => {
    const header = request.headers.authorization;
    // Defect no-token-403: FastAPI HTTPBearer's answer to a missing header (403, not 401).
    if (header === undefined && defects.has('no-token-403')) throw new ApiError(403, 'Not authenticated');
    // Defect no-token-401-empty: the 401 of a missing header carries no body (an auth proxy's answer).
    if (header === undefined && reply && defects.has('no-token-401-empty'))
      return reply.code(401).header('www-authenticate', 'Bearer').send();
    if (header === undefined)
      throw unauthorized('missing Authorization header: send "Bearer <access_token>"');
    const token = bearerToken(request);
    if (!token) throw unauthorized('Authorization header must be "Bearer <access_token>"');
    const result = await ctx.tokens.verifyAccess(token);
    if ('error' in result && defects.has('expired-token-accepted')) {
      request.userId = (
        ctx.db.prepare('SELECT user_id FROM users ORDER BY created_ms LIMIT 1').get() as { user_id: string }
      ).user_id;
      return undefined;
    }
    if ('error' in result) throw unauthorized(result.error);
    if (!findUserById(ctx.db, result.userId)) throw unauthorized('the token belongs to no user');
    request.userId = result.userId;
    return undefined;
  };
}
