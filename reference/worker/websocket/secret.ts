/**
 * The secret inside a worker websocket URL: who may connect, to which model, until when.
 *
 * Form: base64url(JSON claims) "." base64url(HMAC-SHA256(key, "speak-ws.v1." + claims)). It is not the
 * access token: it is signed with the stack's websocket key, names one model, and expires (1 hour by
 * default). The worker checks it at the HTTP upgrade, so a bad secret never opens a connection.
 */

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { defects } from '../../defects/index.ts';
import { expiryLeewayS } from '../../latitude/expiry-leeway.ts';
import { persistedSecret } from '../../store/db.ts';

export const DEFAULT_WEBSOCKET_URL_LIFETIME_MS = 60 * 60 * 1000;
const DOMAIN = 'speak-ws.v1.';

export interface WebsocketClaims {
  /** The user whose takes the connection creates. */
  userId: string;
  model: string;
  expiresAtMs: number;
}

export type SecretCheck =
  | { ok: true; claims: WebsocketClaims }
  | { ok: false; reason: 'missing' | 'malformed' | 'bad-signature' | 'expired'; detail: string };

function sign(key: string | Buffer, payload: string): Buffer {
  return createHmac('sha256', key)
    .update(DOMAIN + payload)
    .digest();
}

export function createWebsocketSecret(
  key: string | Buffer,
  claims: { userId: string; model: string },
  lifetimeMs = DEFAULT_WEBSOCKET_URL_LIFETIME_MS,
  nowMs = Date.now(),
): { secret: string; expiresAtMs: number } {
  const expiresAtMs = nowMs + lifetimeMs;
  // The nonce makes every URL distinct, even for the same user, model and millisecond.
  const body = { u: claims.userId, m: claims.model, e: expiresAtMs, n: randomBytes(8).toString('base64url') };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return { secret: `${payload}.${sign(key, payload).toString('base64url')}`, expiresAtMs };
}

export function verifyWebsocketSecret(
  key: string | Buffer,
  secret: string | null | undefined,
  nowMs = Date.now(),
): SecretCheck {
  if (!secret) return { ok: false, reason: 'missing', detail: 'the websocket URL carries no secret' };
  const [payload, signature, extra] = secret.split('.');
  if (!payload || !signature || extra !== undefined) {
    return { ok: false, reason: 'malformed', detail: 'the websocket secret is malformed' };
  }
  const expected = sign(key, payload);
  const given = Buffer.from(signature, 'base64url');
  const signatureOk = given.length === expected.length && timingSafeEqual(given, expected);
  if (!signatureOk && !defects.has('ws-secret-not-verified')) {
    return { ok: false, reason: 'bad-signature', detail: 'the websocket secret is not valid' };
  }
  let body: { u?: unknown; m?: unknown; e?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed', detail: 'the websocket secret is malformed' };
  }
  if (typeof body.u !== 'string' || typeof body.m !== 'string' || typeof body.e !== 'number') {
    return { ok: false, reason: 'malformed', detail: 'the websocket secret is malformed' };
  }
  // Latitude expiry-leeway: still accepted a little past its expiry, as a server allowing for clock skew.
  if (body.e + expiryLeewayS() * 1000 <= nowMs && !defects.has('ws-expired-url-accepted'))
    return { ok: false, reason: 'expired', detail: 'the websocket URL has expired; ask for a new one' };
  return { ok: true, claims: { userId: body.u, model: body.m, expiresAtMs: body.e } };
}

/** The stack's websocket HMAC key, persisted in the shared database: the API process signs with it,
 *  every worker process verifies with it. */
export function websocketSecretKey(db: Database): Buffer {
  return Buffer.from(
    persistedSecret(db, 'websocket_url_key', () => randomBytes(32).toString('hex')),
    'hex',
  );
}
