/**
 * Signed audio URLs, S3-presigned style so the SDK recognises them (it looks for X-Amz-Signature and
 * then sends no Authorization): X-Amz-Algorithm, X-Amz-Date (signing time, ISO basic format),
 * X-Amz-Expires (seconds) and X-Amz-Signature = hex HMAC-SHA256 over path, date and expiry with a key
 * persisted in the data directory (URLs stay valid across a restart until they expire).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { defects } from '../defects/index.ts';
import { expiryLeewayS } from '../latitude/expiry-leeway.ts';
import { persistedSecret } from '../store/db.ts';

export const SIGNED_AUDIO_PREFIX = '/signed/audio';
export const SIGNING_ALGORITHM = 'SPEAK-HMAC-SHA256';

function amzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function parseAmzDate(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

export type SignatureCheck = { ok: true } | { ok: false; detail: string };

export class AudioUrlSigner {
  private readonly key: Buffer;

  constructor(
    db: Database,
    private readonly ttlSeconds: number,
  ) {
    this.key = Buffer.from(
      persistedSecret(db, 'audio_url_key', () => randomBytes(32).toString('hex')),
      'hex',
    );
  }

  private signature(path: string, date: string, expires: string): string {
    return createHmac('sha256', this.key)
      .update(`${SIGNING_ALGORITHM}\n${path}\n${date}\n${expires}`)
      .digest('hex');
  }

  /** The absolute signed URL of `path` (which starts with SIGNED_AUDIO_PREFIX). */
  sign(baseUrl: string, path: string, nowMs = Date.now()): string {
    const date = amzDate(nowMs);
    const expires = String(this.ttlSeconds);
    const query = new URLSearchParams({
      'X-Amz-Algorithm': SIGNING_ALGORITHM,
      'X-Amz-Date': date,
      'X-Amz-Expires': expires,
      'X-Amz-Signature': this.signature(path, date, expires),
    });
    return `${baseUrl}${path}?${query.toString()}`;
  }

  verify(path: string, query: Record<string, unknown>, nowMs = Date.now()): SignatureCheck {
    const date = query['X-Amz-Date'];
    const expires = query['X-Amz-Expires'];
    const signature = query['X-Amz-Signature'];
    if (typeof signature !== 'string' || typeof date !== 'string' || typeof expires !== 'string') {
      return { ok: false, detail: 'signed URL lacks X-Amz-Date, X-Amz-Expires or X-Amz-Signature' };
    }
    const expected = Buffer.from(this.signature(path, date, expires), 'hex');
    const given = Buffer.from(/^[0-9a-f]*$/i.test(signature) ? signature : '', 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, detail: 'the request signature does not match (tampered or foreign URL)' };
    }
    const signedAt = parseAmzDate(date);
    const seconds = Number(expires);
    if (signedAt === undefined || !Number.isInteger(seconds))
      return { ok: false, detail: 'malformed expiry' };
    if (nowMs > signedAt + (seconds + expiryLeewayS()) * 1000 && !defects.has('signed-url-never-expires'))
      return { ok: false, detail: 'request has expired' };
    return { ok: true };
  }
}
