/** Access tokens verified once are remembered, and still expire when they say (reference/auth/tokens.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { TokenService } from '../../../reference/auth/tokens.ts';
import { openDatabase } from '../../../reference/store/db.ts';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function service(ttlSeconds: number) {
  const dir = mkdtempSync(join(tmpdir(), 'speakcheck-tokens-'));
  dirs.push(dir);
  const db = openDatabase(dir);
  db.prepare(
    "INSERT INTO users (user_id, email, password_hash, created_ms) VALUES ('u1', 'a@b.c', 'x', 0)",
  ).run();
  return { db, tokens: new TokenService(db, ttlSeconds) };
}

test('a remembered access token expires at its exp, as a freshly verified one does', async () => {
  const { tokens } = service(2);
  const { access_token } = await tokens.issuePair('u1');
  expect(await tokens.verifyAccess(access_token)).toEqual({ userId: 'u1' });
  expect(await tokens.verifyAccess(access_token)).toEqual({ userId: 'u1' });
  const now = Date.now();
  vi.spyOn(Date, 'now').mockReturnValue(now + 3_000);
  expect(await tokens.verifyAccess(access_token)).toEqual({ error: 'access token expired' });
  // A forged token is never remembered: the cache holds only what jose verified.
  expect(await tokens.verifyAccess(`${access_token.slice(0, -2)}xx`)).toEqual({
    error: 'access token invalid',
  });
});

test('the same SQL text gives the same compiled statement', () => {
  const { db } = service(60);
  const sql = 'SELECT user_id FROM users WHERE email = ?';
  expect(db.prepare(sql)).toBe(db.prepare(sql));
  expect(db.prepare(sql).get('a@b.c')).toEqual({ user_id: 'u1' });
});
