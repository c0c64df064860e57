/**
 * Tokens:
 * - access tokens: JWT HS256 (jose), `sub` = user id, `exp` after the configured lifetime; the key is
 *   persisted in the data directory, so tokens survive a restart;
 * - refresh tokens: opaque random strings stored as SHA-256 hashes; each is used once (rotation: a
 *   refresh revokes the token it used) and logout revokes it;
 * - permanent tokens: opaque `spk_perm_...` strings stored hashed; they never expire.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { jwtVerify, SignJWT } from 'jose';
import { defects } from '../defects/index.ts';
import { expiryLeewayS } from '../latitude/expiry-leeway.ts';
import { latitude } from '../latitude/index.ts';
import { persistedSecret } from '../store/db.ts';

/** The clock tolerance of the access-token-never-expires defect. */
const TEN_YEARS_S = 10 * 365 * 86_400;

const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const PERMANENT_PREFIX = 'spk_perm_';
/** Latitude opaque-access-tokens: random strings known only to this API process, living this long. */
const OPAQUE_PREFIX = 'spk_at_';
export const OPAQUE_ACCESS_TTL_SECONDS = 20;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

/** Beyond this many verified access tokens the cache starts over. */
const VERIFIED_CACHE_SIZE = 1000;

export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Access JWTs whose signature and claims jose verified once: token → subject and `exp`. A client
   * sends the same token with every request, and jose's HMAC goes through WebCrypto's async job
   * (0.6 s of the API's profiled time in a conformance run, issue 52); its expiry is still judged
   * at each request, as jose judges it.
   */
  private readonly verified = new Map<string, { userId: string; exp: number }>();
  /** Opaque access tokens (latitude opaque-access-tokens): hash → user and expiry. */
  private readonly opaque = new Map<string, { userId: string; expiresMs: number }>();

  constructor(
    private readonly db: Database,
    private readonly accessTtlSeconds: number,
  ) {
    this.key = Buffer.from(
      persistedSecret(db, 'jwt_key', () => randomBytes(32).toString('base64url')),
      'base64url',
    );
  }

  async issuePair(userId: string): Promise<TokenPair> {
    const access_token = latitude.has('opaque-access-tokens')
      ? this.issueOpaque(userId)
      : await this.issueJwt(userId);
    const refresh_token = `spk_rt_${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    this.db
      .prepare('INSERT INTO refresh_tokens (token_hash, user_id, created_ms, expires_ms) VALUES (?, ?, ?, ?)')
      .run(sha256(refresh_token), userId, now, now + REFRESH_TTL_MS);
    return { access_token, refresh_token };
  }

  private issueOpaque(userId: string): string {
    const token = `${OPAQUE_PREFIX}${randomBytes(24).toString('base64url')}`;
    const lifetime = Math.min(this.accessTtlSeconds, OPAQUE_ACCESS_TTL_SECONDS);
    this.opaque.set(sha256(token), { userId, expiresMs: Date.now() + lifetime * 1000 });
    return token;
  }

  /**
   * Defect login-token-stale-key: an access JWT like any other, signed with a key this API no longer
   * verifies (a key rotation the login path missed).
   */
  issueWithRetiredKey(userId: string): Promise<string> {
    return this.issueJwt(userId, randomBytes(32));
  }

  private async issueJwt(userId: string, key: Uint8Array = this.key): Promise<string> {
    return new SignJWT({ typ: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuedAt()
      .setJti(randomBytes(9).toString('base64url'))
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.accessTtlSeconds)
      .sign(key);
  }

  /** The user id of a valid access (or permanent) token, else undefined with the reason. */
  async verifyAccess(token: string): Promise<{ userId: string } | { error: string }> {
    if (token.startsWith(PERMANENT_PREFIX)) {
      const row = this.db
        .prepare('SELECT user_id FROM permanent_tokens WHERE token_hash = ?')
        .get(sha256(token)) as { user_id: string } | undefined;
      return row ? { userId: row.user_id } : { error: 'unknown permanent token' };
    }
    if (token.startsWith(OPAQUE_PREFIX)) {
      const entry = this.opaque.get(sha256(token));
      if (!entry) return { error: 'access token invalid' };
      if (
        entry.expiresMs + expiryLeewayS() * 1000 <= Date.now() &&
        !defects.has('access-token-never-expires')
      )
        return { error: 'access token expired' };
      return { userId: entry.userId };
    }
    // The defect: exp is signed into the token but tolerated for ten years.
    const tolerance = defects.has('access-token-never-expires') ? TEN_YEARS_S : expiryLeewayS();
    const known = this.verified.get(token);
    if (known) {
      // jose's rule: expired when exp <= now - tolerance, in whole seconds.
      if (known.exp <= Math.floor(Date.now() / 1000) - tolerance) return { error: 'access token expired' };
      return { userId: known.userId };
    }
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        ...(tolerance ? { clockTolerance: tolerance } : {}),
      });
      if (typeof payload.sub !== 'string' || payload.typ !== 'access')
        return { error: 'not an access token' };
      if (typeof payload.exp === 'number') {
        if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.clear();
        this.verified.set(token, { userId: payload.sub, exp: payload.exp });
      }
      return { userId: payload.sub };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return { error: 'access token expired' };
      return { error: 'access token invalid' };
    }
  }

  /**
   * Uses a refresh token once: revokes it and issues a new pair, atomically (two concurrent refreshes
   * with one token: exactly one succeeds). `email`, when given, must be the token's user's.
   */
  async rotate(refreshToken: string, email: string | undefined): Promise<TokenPair | { error: string }> {
    const now = Date.now();
    const userId = this.db
      .transaction((): { userId: string } | { error: string } => {
        const row = this.db
          .prepare(
            `SELECT r.user_id, u.email FROM refresh_tokens r JOIN users u ON u.user_id = r.user_id
           WHERE r.token_hash = ? AND r.revoked_ms IS NULL AND r.expires_ms > ?`,
          )
          .get(sha256(refreshToken), now) as { user_id: string; email: string } | undefined;
        if (!row) return { error: 'refresh token invalid, expired or revoked' };
        if (email !== undefined && email.trim().toLowerCase() !== row.email.toLowerCase()) {
          // Defect refresh-by-email: the pair is issued to the user the email names.
          const named = defects.has('refresh-by-email') ? this.userIdByEmail(email) : undefined;
          if (named === undefined) return { error: 'refresh token does not belong to this email' };
          row.user_id = named;
        }
        this.db
          .prepare('UPDATE refresh_tokens SET revoked_ms = ? WHERE token_hash = ?')
          .run(now, sha256(refreshToken));
        return { userId: row.user_id };
      })
      .immediate();
    if ('error' in userId) return userId;
    return this.issuePair(userId.userId);
  }

  private userIdByEmail(email: string): string | undefined {
    return (
      this.db.prepare('SELECT user_id FROM users WHERE email = ? COLLATE NOCASE').get(email.trim()) as
        | { user_id: string }
        | undefined
    )?.user_id;
  }

  /** Revokes a refresh token; false when it was unknown or already revoked. */
  revoke(refreshToken: string): boolean {
    // Defect logout-revokes-all: one logout revokes every user's refresh tokens.
    if (defects.has('logout-revokes-all')) {
      const known = this.db
        .prepare('SELECT 1 FROM refresh_tokens WHERE token_hash = ? AND revoked_ms IS NULL')
        .get(sha256(refreshToken));
      this.db.prepare('UPDATE refresh_tokens SET revoked_ms = ? WHERE revoked_ms IS NULL').run(Date.now());
      return known !== undefined;
    }
    // Latitude logout-everywhere: the user's every refresh token goes with the one given (its access
    // tokens live on until they expire).
    if (latitude.has('logout-everywhere')) {
      const row = this.db
        .prepare('SELECT user_id FROM refresh_tokens WHERE token_hash = ? AND revoked_ms IS NULL')
        .get(sha256(refreshToken)) as { user_id: string } | undefined;
      if (row === undefined) return false;
      this.db
        .prepare('UPDATE refresh_tokens SET revoked_ms = ? WHERE user_id = ? AND revoked_ms IS NULL')
        .run(Date.now(), row.user_id);
      return true;
    }
    return (
      this.db
        .prepare('UPDATE refresh_tokens SET revoked_ms = ? WHERE token_hash = ? AND revoked_ms IS NULL')
        .run(Date.now(), sha256(refreshToken)).changes > 0
    );
  }

  createPermanentToken(userId: string): string {
    const token = `${PERMANENT_PREFIX}${randomBytes(32).toString('base64url')}`;
    this.db
      .prepare('INSERT INTO permanent_tokens (token_hash, user_id, created_ms) VALUES (?, ?, ?)')
      .run(sha256(token), userId, Date.now());
    return token;
  }
}
