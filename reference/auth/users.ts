/**
 * Users: the seeded demo user (its password is kept in the database so a restart with the same data
 * directory prints the same one) and extra users given on the command line.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { persistedSecret } from '../store/db.ts';
import { newId } from '../store/ids.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export const DEMO_EMAIL = 'demo@speakcheck.local';
/** A second customer, so a conformance run can check that one never reaches the other's items. */
export const SECOND_EMAIL = 'second@speakcheck.local';

export interface UserRow {
  user_id: string;
  email: string;
  password_hash: string;
}

/** Creates the user, or sets the password of the existing one; returns its id. */
export async function upsertUser(db: Database, email: string, password: string): Promise<string> {
  const hash = await hashPassword(password);
  const existing = findUserByEmail(db, email);
  if (existing) {
    db.prepare('UPDATE users SET password_hash = ? WHERE user_id = ?').run(hash, existing.user_id);
    return existing.user_id;
  }
  const userId = newId('us');
  db.prepare('INSERT INTO users (user_id, email, password_hash, created_ms) VALUES (?, ?, ?, ?)').run(
    userId,
    email,
    hash,
    Date.now(),
  );
  return userId;
}

export async function seedDemoUser(
  db: Database,
): Promise<{ userId: string; email: string; password: string }> {
  return seedUser(db, DEMO_EMAIL, 'demo_password');
}

/** The second seeded user (customer B of the harness's isolation checks), kept like the demo user. */
export async function seedSecondUser(
  db: Database,
): Promise<{ userId: string; email: string; password: string }> {
  return seedUser(db, SECOND_EMAIL, 'second_password');
}

/** A user whose password is kept in the database (`secretName`): the same one after a restart. */
async function seedUser(
  db: Database,
  email: string,
  secretName: string,
): Promise<{ userId: string; email: string; password: string }> {
  const password = persistedSecret(db, secretName, () => randomBytes(12).toString('base64url'));
  const existing = findUserByEmail(db, email);
  if (existing && (await verifyPassword(password, existing.password_hash))) {
    return { userId: existing.user_id, email, password };
  }
  return { userId: await upsertUser(db, email, password), email, password };
}

export function findUserByEmail(db: Database, email: string): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE email = ? COLLATE NOCASE').get(email.trim()) as
    | UserRow
    | undefined;
}

export function findUserById(db: Database, userId: string): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE user_id = ?').get(userId) as UserRow | undefined;
}

/** The user for these credentials, or undefined (unknown email and wrong password look the same). */
export async function authenticate(
  db: Database,
  email: string,
  password: string,
): Promise<UserRow | undefined> {
  const user = findUserByEmail(db, email);
  if (!user) {
    // Same work for an unknown email, so timing does not tell which emails exist.
    await hashPassword(password);
    return undefined;
  }
  return (await verifyPassword(password, user.password_hash)) ? user : undefined;
}
