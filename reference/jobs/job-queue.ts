/**
 * The job table: one job per take synthesized by the REST workers. A worker claims a job atomically
 * (BEGIN IMMEDIATE) with a lease, renews the lease while it works (heartbeat) and finishes it. A job
 * whose lease has expired (its worker died or hung) is claimed again; after MAX_ATTEMPTS claims the
 * take ends in `error` instead of being tried forever.
 */
import type { Database } from 'better-sqlite3';
import { findModel, modelNames } from '../models/catalogue.ts';
import { advanceTake } from '../store/takes.ts';

export const MAX_ATTEMPTS = 3;
export const LEASE_MS = 15_000;
/** A job still queued after this long is dropped and its take ends in `timeout` (wire-facts: about a day). */
export const QUEUE_TIMEOUT_MS = 24 * 3600 * 1000;

export interface ClaimedJob {
  jobId: number;
  takeId: string;
  attempts: number;
}

/** Queues a job for a take; call inside the transaction that creates the take. */
export function enqueueJob(db: Database, takeId: string): void {
  db.prepare("INSERT INTO jobs (take_id, state, created_ms) VALUES (?, 'queued', ?)").run(takeId, Date.now());
}

/**
 * The values a voice's `model` column may hold for these model names: a voice stores the model's
 * version name, older rows may hold the public name or an alias (studio-2026.11, studio).
 */
function voiceModelValues(models: readonly string[]): string[] {
  return [
    ...new Set(
      models.flatMap((name) => {
        const model = findModel(name);
        return model ? modelNames(model) : [name];
      }),
    ),
  ];
}

export interface ClaimOptions {
  leaseMs?: number;
  queueTimeoutMs?: number;
  onTakeFailed?: () => void;
  /**
   * The models this worker serves (public names, e.g. ['english-gb-v2.1']): it only claims jobs whose take's
   * voice is of one of them. Absent: every model (the embedded workers). A take whose voice was
   * deleted meanwhile has no model left to match and any worker may take it.
   */
  models?: readonly string[];
}

export function claimJob(db: Database, owner: string, o: ClaimOptions = {}): ClaimedJob | undefined {
  const leaseMs = o.leaseMs ?? LEASE_MS;
  const queueTimeoutMs = o.queueTimeoutMs ?? QUEUE_TIMEOUT_MS;
  const models = o.models ? JSON.stringify(voiceModelValues(o.models)) : null;
  const claim = db.transaction((): ClaimedJob | undefined => {
    for (;;) {
      const now = Date.now();
      const row = db
        .prepare(
          `SELECT j.job_id, j.take_id, j.attempts, j.created_ms FROM jobs j
           LEFT JOIN takes t ON t.take_id = j.take_id
           LEFT JOIN voices v ON v.voice_id = t.voice_id
           WHERE (j.state = 'queued' OR (j.state = 'leased' AND j.lease_expires_ms < @now))
             AND (@models IS NULL OR v.model IS NULL OR v.model IN (SELECT value FROM json_each(@models)))
           ORDER BY j.job_id LIMIT 1`,
        )
        .get({ now, models }) as
        | { job_id: number; take_id: string; attempts: number; created_ms: number }
        | undefined;
      if (!row) return undefined;
      if (row.attempts === 0 && now - row.created_ms > queueTimeoutMs) {
        db.prepare("UPDATE jobs SET state = 'failed', last_error = 'queue timeout' WHERE job_id = ?").run(
          row.job_id,
        );
        if (advanceTake(db, row.take_id, 'timeout', { error: 'sat in the queue too long' }))
          o.onTakeFailed?.();
        continue;
      }
      if (row.attempts >= MAX_ATTEMPTS) {
        db.prepare("UPDATE jobs SET state = 'failed' WHERE job_id = ?").run(row.job_id);
        if (advanceTake(db, row.take_id, 'error', { error: `synthesis failed ${row.attempts} times` })) {
          o.onTakeFailed?.();
        }
        continue;
      }
      db.prepare(
        "UPDATE jobs SET state = 'leased', lease_owner = ?, lease_expires_ms = ?, attempts = attempts + 1 WHERE job_id = ?",
      ).run(owner, now + leaseMs, row.job_id);
      return { jobId: row.job_id, takeId: row.take_id, attempts: row.attempts + 1 };
    }
  });
  return claim.immediate();
}

/** Renews the lease; false when the job is no longer this owner's (lost lease, or deleted take). */
export function heartbeatJob(db: Database, jobId: number, owner: string, leaseMs = LEASE_MS): boolean {
  return (
    db
      .prepare(
        "UPDATE jobs SET lease_expires_ms = ? WHERE job_id = ? AND lease_owner = ? AND state = 'leased'",
      )
      .run(Date.now() + leaseMs, jobId, owner).changes > 0
  );
}

export function finishJob(db: Database, jobId: number, owner: string): void {
  db.prepare("UPDATE jobs SET state = 'done' WHERE job_id = ? AND lease_owner = ?").run(jobId, owner);
}

/** Gives a failed attempt back to the queue (or fails the take once attempts are used up). */
export function releaseJob(db: Database, jobId: number, owner: string, reason: string): void {
  db.prepare(
    "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_ms = NULL, last_error = ? WHERE job_id = ? AND lease_owner = ?",
  ).run(reason, jobId, owner);
}

/**
 * A worker is stopping (SIGTERM/SIGINT, shutdown): the jobs it holds go back to the queue at once
 * for another worker, without waiting for the lease to run out. The interrupted attempt did not fail,
 * so it is not counted against MAX_ATTEMPTS.
 */
export function returnOwnerJobs(db: Database, owner: string): number {
  return db
    .prepare(
      `UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_ms = NULL,
         attempts = MAX(attempts - 1, 0), last_error = 'worker stopped'
       WHERE state = 'leased' AND lease_owner = ?`,
    )
    .run(owner).changes;
}

/** A worker process died: its leased jobs go back to the queue at once (no lease wait). */
export function releaseOwnerJobs(db: Database, owner: string): number {
  return db
    .prepare(
      "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_ms = NULL WHERE state = 'leased' AND lease_owner = ?",
    )
    .run(owner).changes;
}

/**
 * A worker process died: takes it was speaking without a job (websocket requests, which the worker
 * runs itself) cannot be taken over by another worker, so they end in `error` instead of hanging.
 */
export function failJoblessTakesOf(db: Database, workerId: string): number {
  return db
    .transaction(() => {
      const rows = db
        .prepare(
          `SELECT take_id FROM takes WHERE worker = ? AND status NOT IN ('ready', 'error', 'timeout')
         AND take_id NOT IN (SELECT take_id FROM jobs WHERE state IN ('queued', 'leased'))`,
        )
        .all(workerId) as { take_id: string }[];
      let failed = 0;
      for (const row of rows) {
        if (advanceTake(db, row.take_id, 'error', { error: `worker ${workerId} died` })) failed++;
      }
      return failed;
    })
    .immediate();
}

/**
 * At start-up no worker of this stack runs yet: every leased job belonged to an earlier run and is
 * queued again; a take that is not done and has no job left (should not happen) ends in `error`.
 */
export function recoverAtStartup(db: Database): { requeued: number; failed: number } {
  return db
    .transaction(() => {
      const requeued = db
        .prepare(
          "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_expires_ms = NULL WHERE state = 'leased'",
        )
        .run().changes;
      const orphans = db
        .prepare(
          `SELECT take_id FROM takes WHERE status NOT IN ('ready', 'error', 'timeout')
         AND take_id NOT IN (SELECT take_id FROM jobs WHERE state IN ('queued', 'leased'))`,
        )
        .all() as { take_id: string }[];
      for (const o of orphans) advanceTake(db, o.take_id, 'error', { error: 'no job left after a restart' });
      return { requeued, failed: orphans.length };
    })
    .immediate();
}
