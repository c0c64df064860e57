/** Password hashing with scrypt (node:crypto): `scrypt$N$r$p$salt$hash`, compared in constant time. */
import { createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 16384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * Passwords that matched their stored hash, remembered for this process as an HMAC under a key
 * that lives only in its memory: a client logs in again and again with the same password (each
 * suite file, each refresh test), and each scrypt costs ~40 ms of CPU (a conformance run's logins:
 * most of the API's thread-pool CPU, issue 52). A wrong password is never remembered: it always
 * pays the full scrypt.
 */
const matched = new Set<string>();
const MATCHED_KEY = randomBytes(32);
const MATCHED_SIZE = 1000;
const matchedKey = (password: string, stored: string) =>
  createHmac('sha256', MATCHED_KEY).update(stored).update('\0').update(password).digest('base64url');

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const key = matchedKey(password, stored);
  if (matched.has(key)) return true;
  if (!(await scryptMatches(password, stored))) return false;
  if (matched.size >= MATCHED_SIZE) matched.clear();
  matched.add(key);
  return true;
}

async function scryptMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
