/**
 * Workers that run outside the API process (their own container, `speakcheck worker`) have no IPC
 * channel: they register here instead, in the shared SQLite database, and refresh a heartbeat. The
 * API reads live rows to list workers and to hand out websocket URLs of a worker holding a model.
 * A worker started with `--defect` records its switches too, so a defective worker is visible.
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
  /** Defect switches on in that worker (testing only); empty for a clean worker. */
  defects: string[];
  heartbeatMs: number;
  alive: boolean;
}

const ensured = new WeakSet<Database>();

function ensureTable(db: Database): void {
  if (ensured.has(db)) return;
  db.exec(`CREATE TABLE IF NOT EXISTS worker_registry (
    worker_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, models TEXT NOT NULL,
    websocket_url TEXT, heartbeat_ms INTEGER NOT NULL, defects TEXT NOT NULL DEFAULT '[]')`);
  // A data dir made before the defects column existed.
  const columns = db.prepare('PRAGMA table_info(worker_registry)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'defects')) {
    db.exec(`ALTER TABLE worker_registry ADD COLUMN defects TEXT NOT NULL DEFAULT '[]'`);
  }
  ensured.add(db);
}

export function registerWorker(
  db: Database,
  w: { id: string; pid: number; models: string[]; websocketUrl?: string | null; defects?: string[] },
): void {
  ensureTable(db);
  db.prepare(
    `INSERT INTO worker_registry (worker_id, pid, models, websocket_url, heartbeat_ms, defects)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(worker_id) DO UPDATE SET pid = excluded.pid, models = excluded.models,
       websocket_url = COALESCE(excluded.websocket_url, worker_registry.websocket_url),
       heartbeat_ms = excluded.heartbeat_ms, defects = excluded.defects`,
  ).run(
    w.id,
    w.pid,
    JSON.stringify(w.models),
    w.websocketUrl ?? null,
    Date.now(),
    JSON.stringify(w.defects ?? []),
  );
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
      'SELECT worker_id, pid, models, websocket_url, heartbeat_ms, defects FROM worker_registry ORDER BY worker_id',
    )
    .all() as {
    worker_id: string;
    pid: number;
    models: string;
    websocket_url: string | null;
    heartbeat_ms: number;
    defects: string;
  }[];
  return rows.map((r) => ({
    id: r.worker_id,
    pid: r.pid,
    models: JSON.parse(r.models) as string[],
    websocketUrl: r.websocket_url,
    defects: JSON.parse(r.defects) as string[],
    heartbeatMs: r.heartbeat_ms,
    alive: now - r.heartbeat_ms < REGISTRY_STALE_MS,
  }));
}
