/**
 * Token pair shape and what a token says about its own lifetime (when it is a JWT).
 * Tokens never appear in a finding's message: only their shape.
 */
import { decodeJwt } from 'jose/jwt/decode';
import type { TokenPair } from '../../schemas/types.ts';
import { Finding, show } from './finding.ts';

export type { TokenPair };

/** Object with non-empty string access_token and refresh_token (Resources: Token pair). */
export function assertTokenPair(value: unknown, where: string): TokenPair {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Finding(
      `${where}: expected a token pair object, got ${typeof value === 'object' ? show(value) : typeof value}`,
      {
        where,
        expected: '{access_token, refresh_token}',
      },
    );
  }
  const pair = value as Record<string, unknown>;
  for (const field of ['access_token', 'refresh_token'] as const) {
    const token = pair[field];
    if (typeof token !== 'string' || token.length === 0) {
      throw new Finding(
        `${where}: ${field} is ${typeof token === 'string' ? 'an empty string' : typeof token}, expected a non-empty string`,
        {
          where: `${where} /${field}`,
          expected: 'string',
          actual: typeof token,
        },
      );
    }
  }
  return pair as unknown as TokenPair;
}

/** Seconds between iat (or now) and exp when the token is a JWT carrying exp; undefined otherwise. */
export function jwtLifetimeSeconds(token: string, nowSeconds = Date.now() / 1000): number | undefined {
  try {
    const claims = decodeJwt(token);
    if (typeof claims.exp !== 'number') return undefined;
    const start = typeof claims.iat === 'number' ? claims.iat : nowSeconds;
    return claims.exp - start;
  } catch {
    return undefined;
  }
}

/** Seconds until exp, when the token is a JWT carrying exp. */
export function jwtSecondsLeft(token: string, nowSeconds = Date.now() / 1000): number | undefined {
  try {
    const claims = decodeJwt(token);
    return typeof claims.exp === 'number' ? claims.exp - nowSeconds : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The same token with one character of its signature part changed: same length and alphabet, so
 * only a server that verifies signatures rejects it. For opaque tokens the last character changes.
 */
export function tamperToken(token: string): string {
  const index = Math.max(token.length - 2, 0);
  const current = token[index];
  const replacement = current === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
}
