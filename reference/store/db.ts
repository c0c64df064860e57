/**
 * The stack's SQLite database (better-sqlite3, WAL) in the data directory. The API process and every
 * worker process open it; WAL lets readers run beside the one writer and busy_timeout makes a writer
 * wait its turn instead of failing. Every multi-statement write runs as `db.transaction(fn).immediate()`:
 * a deferred transaction that reads first cannot wait for another process's writer when it later
 * upgrades to a write, and fails with SQLITE_BUSY ("database is locked") at once under load.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

export type { Database } from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (
  user_id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_ms INTEGER NOT NULL, expires_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
CREATE TABLE IF NOT EXISTS permanent_tokens (
  token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS voices (
  voice_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, model TEXT NOT NULL, gender TEXT NOT NULL,
  default_style TEXT, default_prosody TEXT, description TEXT, example_take_id TEXT NOT NULL,
  status_webhook TEXT, done_webhook TEXT, status TEXT NOT NULL, timestamp_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS voices_by_user ON voices (user_id, timestamp_ms DESC, voice_id DESC);
CREATE TABLE IF NOT EXISTS takes (
  take_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, voice_id TEXT NOT NULL, text TEXT NOT NULL,
  override_language TEXT, style TEXT, prosody TEXT, rendering TEXT NOT NULL,
  status_webhook TEXT, done_webhook TEXT, user_data TEXT, status TEXT NOT NULL, timestamp_ms INTEGER NOT NULL,
  info TEXT, worker TEXT, error TEXT, example_of TEXT
);
CREATE INDEX IF NOT EXISTS takes_by_user ON takes (user_id, timestamp_ms DESC, take_id DESC);
CREATE TABLE IF NOT EXISTS jobs (
  job_id INTEGER PRIMARY KEY AUTOINCREMENT, take_id TEXT NOT NULL UNIQUE, state TEXT NOT NULL,
  lease_owner TEXT, lease_expires_ms INTEGER, attempts INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL,
  last_error TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, job_id);
CREATE TABLE IF NOT EXISTS item_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, item_id TEXT NOT NULL, user_id TEXT NOT NULL,
  status TEXT NOT NULL, body TEXT NOT NULL, created_ms INTEGER NOT NULL
);
`;

export function databasePath(dataDir: string): string {
  return join(dataDir, 'speak.sqlite');
}

export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new BetterSqlite3(databasePath(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec(SCHEMA);
  return withStatementCache(db);
}

/** Beyond this many distinct SQL texts (lists build theirs from filters) the cache starts over. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * `db.prepare(sql)` compiles the SQL anew on every call, and the stores call it per request (and
 * the job queue per timer tick): 0.8 s of the API's and the worker's profiled time in a conformance
 * run (issue 52). The same text now gives the same compiled statement. Safe because no caller
 * changes a statement's mode (pluck, raw, expand, safeIntegers) or keeps one busy (iterate).
 */
function withStatementCache(db: Database): Database {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, ReturnType<typeof prepare>>();
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }) as typeof db.prepare;
  return db;
}

/** A secret persisted in the database (created once, stable across restarts). */
export function persistedSecret(db: Database, name: string, create: () => string): string {
  db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)').run(name, create());
  return (db.prepare('SELECT value FROM secrets WHERE name = ?').get(name) as { value: string }).value;
}

/** JSON column helpers: NULL ↔ null. */
export function toJsonColumn(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
export function fromJsonColumn<T = unknown>(value: string | null | undefined): T | null {
  return value === null || value === undefined ? null : (JSON.parse(value) as T);
}
