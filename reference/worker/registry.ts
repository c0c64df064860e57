/**
 * Workers that run outside the API process (their own container, `speakcheck worker`) have no IPC
 * channel: they register here instead, in the shared SQLite database, and refresh a heartbeat. The
 * API reads live rows to list workers and to hand out websocket URLs of a worker holding a model.
 */
import type { Database } from 'better-sqlite3';

/** A registration older than this is a worker that is gone. */
export const REGISTRY_STALE_MS = 5000;
export const REGISTRY_HEARTBEAT_MS = 1000;

export interface RegisteredWorker {
  id: string;
  pid: number;
  models: string[];
  websocketUrl: string | null;
  heartbeatMs: number;
  alive: boolean;
}

function ensureTable(db: Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS worker_registry (
    worker_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, models TEXT NOT NULL,
    websocket_url TEXT, heartbeat_ms INTEGER NOT NULL)`);
}

export function registerWorker(
  db: Database,
  w: { id: string; pid: number; models: string[]; websocketUrl?: string | null },
): void {
  ensureTable(db);
  db.prepare(
    `INSERT INTO worker_registry (worker_id, pid, models, websocket_url, heartbeat_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(worker_id) DO UPDATE SET pid = excluded.pid, models = excluded.models,
       websocket_url = COALESCE(excluded.websocket_url, worker_registry.websocket_url), heartbeat_ms = excluded.heartbeat_ms`,
  ).run(w.id, w.pid, JSON.stringify(w.models), w.websocketUrl ?? null, Date.now());
}

export function heartbeatWorker(db: Database, id: string): void {
  ensureTable(db);
  db.prepare('UPDATE worker_registry SET heartbeat_ms = ? WHERE worker_id = ?').run(Date.now(), id);
}

export function unregisterWorker(db: Database, id: string): void {
  ensureTable(db);
  db.prepare('DELETE FROM worker_registry WHERE worker_id = ?').run(id);
}

export function registeredWorkers(db: Database): RegisteredWorker[] {
  ensureTable(db);
  const now = Date.now();
  const rows = db
    .prepare(
      'SELECT worker_id, pid, models, websocket_url, heartbeat_ms FROM worker_registry ORDER BY worker_id',
    )
    .all() as {
    worker_id: string;
    pid: number;
    models: string;
    websocket_url: string | null;
    heartbeat_ms: number;
  }[];
  return rows.map((r) => ({
    id: r.worker_id,
    pid: r.pid,
    models: JSON.parse(r.models) as string[],
    websocketUrl: r.websocket_url,
    heartbeatMs: r.heartbeat_ms,
    alive: now - r.heartbeat_ms < REGISTRY_STALE_MS,
  }));
}
