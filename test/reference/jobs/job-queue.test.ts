/**
 * The leased job queue and item events on a real SQLite file: atomic claims, claims limited to the
 * worker's models, a stopping worker's jobs given back at once, lease expiry and re-claim, bounded attempts ending in `error` (the example take's voice follows), queue timeout,
 * start-up recovery, and every status change recorded as an event with the body GET shows, delivered
 * in seq order by the tail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createItemEventTail, type ItemEvent } from '../../../reference/events/item-events.ts';
import {
  claimJob,
  enqueueJob,
  failJoblessTakesOf,
  finishJob,
  heartbeatJob,
  MAX_ATTEMPTS,
  recoverAtStartup,
  releaseJob,
  releaseOwnerJobs,
  returnOwnerJobs,
} from '../../../reference/jobs/job-queue.ts';
import { type Database, openDatabase } from '../../../reference/store/db.ts';
import { advanceTake, getTakeRow, insertTake, takeResource } from '../../../reference/store/takes.ts';
import { getVoiceRow, insertVoice } from '../../../reference/store/voices.ts';
import { plainTakeRow } from '../store/take-rows.ts';

let dir: string;
let db: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-jobs-'));
  db = openDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function newVoice(voiceId: string, model: string, exampleTakeId = 'tk_ex'): void {
  db.transaction(() =>
    insertVoice(db, {
      voice_id: voiceId,
      user_id: 'us_1',
      name: 'V',
      model,
      gender: 'female',
      default_style: null,
      default_prosody: null,
      description: null,
      example_take_id: exampleTakeId,
      status_webhook: null,
      done_webhook: null,
      timestamp_ms: Date.now(),
    }),
  )();
}

function newTake(takeId: string, exampleOf: string | null = null, voiceId = 'vc_1'): void {
  db.transaction(() => {
    insertTake(db, plainTakeRow({ takeId, voiceId, text: 'Hello.', exampleOf }));
    enqueueJob(db, takeId);
  })();
}

const events = () =>
  db.prepare('SELECT seq, kind, item_id, status, body FROM item_events ORDER BY seq').all() as {
    seq: number;
    kind: string;
    item_id: string;
    status: string;
    body: string;
  }[];

describe('job queue', () => {
  it('claims each job once, in order; a finished job is not claimed again', () => {
    newTake('tk_a');
    newTake('tk_b');
    const first = claimJob(db, 'w1:1');
    const second = claimJob(db, 'w2:2');
    expect(first?.takeId).toBe('tk_a');
    expect(second?.takeId).toBe('tk_b');
    expect(claimJob(db, 'w3:3')).toBeUndefined();
    finishJob(db, first!.jobId, 'w1:1');
    expect(heartbeatJob(db, second!.jobId, 'w2:2')).toBe(true);
    expect(heartbeatJob(db, second!.jobId, 'w1:1')).toBe(false);
  });

  it('an expired lease is claimed again; the old owner loses its heartbeat', async () => {
    newTake('tk_a');
    const first = claimJob(db, 'w1:1', { leaseMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const again = claimJob(db, 'w2:2');
    expect(again?.takeId).toBe('tk_a');
    expect(again?.attempts).toBe(2);
    expect(heartbeatJob(db, first!.jobId, 'w1:1')).toBe(false);
  });

  it('a worker claims only jobs of the models it serves; without models, any job', () => {
    newVoice('vc_studio', 'studio-2026.11'); // a voice stores the model's version name
    newVoice('vc_poly', 'polyglot');
    newTake('tk_poly', null, 'vc_poly');
    newTake('tk_studio', null, 'vc_studio');
    newTake('tk_poly2', null, 'vc_poly');
    // The older polyglot job is skipped, not blocking: the studio worker gets the studio job.
    expect(claimJob(db, 'worker-studio:1', { models: ['studio'] })?.takeId).toBe('tk_studio');
    expect(claimJob(db, 'worker-studio:1', { models: ['studio'] })).toBeUndefined();
    expect(claimJob(db, 'worker-poly:2', { models: ['polyglot', 'studio'] })?.takeId).toBe('tk_poly');
    // The embedded default (no models): every model.
    expect(claimJob(db, 'worker-1:3')?.takeId).toBe('tk_poly2');
  });

  it('a take whose voice is gone can be claimed by any worker (no model left to match)', () => {
    newTake('tk_orphan', null, 'vc_deleted');
    expect(claimJob(db, 'worker-studio:1', { models: ['studio'] })?.takeId).toBe('tk_orphan');
  });

  it('a stopping worker gives its jobs back at once, the attempt not counted; others keep theirs', () => {
    newTake('tk_a');
    newTake('tk_b');
    newTake('tk_c');
    const a = claimJob(db, 'w1:1')!;
    claimJob(db, 'w2:2');
    const c = claimJob(db, 'w1:1')!;
    expect(returnOwnerJobs(db, 'w1:1')).toBe(2);
    expect(heartbeatJob(db, a.jobId, 'w1:1')).toBe(false); // no longer its lease
    // Claimed again at once (leases run 15 s), as a first attempt.
    const again = claimJob(db, 'w3:3');
    expect(again).toEqual({ jobId: a.jobId, takeId: 'tk_a', attempts: 1 });
    expect(claimJob(db, 'w3:3')).toEqual({ jobId: c.jobId, takeId: 'tk_c', attempts: 1 });
    expect(claimJob(db, 'w4:4')).toBeUndefined(); // tk_b is still w2's
    expect(returnOwnerJobs(db, 'w1:1')).toBe(0);
  });

  it('after MAX_ATTEMPTS failures the take ends in error, and its voice too', () => {
    newVoice('vc_1', 'studio-2026.11');
    newTake('tk_ex', 'vc_1');
    let failed = 0;
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      const job = claimJob(db, `w:${i}`);
      expect(job?.attempts).toBe(i + 1);
      releaseJob(db, job!.jobId, `w:${i}`, 'boom');
    }
    expect(claimJob(db, 'w:last', { onTakeFailed: () => failed++ })).toBeUndefined();
    expect(failed).toBe(1);
    expect(getTakeRow(db, 'tk_ex')?.status).toBe('error');
    expect(getVoiceRow(db, 'vc_1')?.status).toBe('error');
    expect(events().map((e) => `${e.kind}:${e.status}`)).toEqual([
      'voice:waiting',
      'take:waiting',
      'take:error',
      'voice:error',
    ]);
  });

  it('a job left in the queue too long ends its take in timeout', () => {
    newTake('tk_old');
    expect(claimJob(db, 'w:1', { queueTimeoutMs: -1 })).toBeUndefined();
    expect(getTakeRow(db, 'tk_old')?.status).toBe('timeout');
  });

  it('a dead owner’s jobs and, at start-up, all leased jobs are queued again; orphans end in error', () => {
    newTake('tk_a');
    newTake('tk_b');
    claimJob(db, 'w1:1');
    expect(releaseOwnerJobs(db, 'w1:1')).toBe(1);
    expect(claimJob(db, 'w2:2')?.takeId).toBe('tk_a');
    advanceTake(db, 'tk_a', 'started');
    db.prepare("DELETE FROM jobs WHERE take_id = 'tk_b'").run(); // a take whose job vanished
    expect(recoverAtStartup(db)).toEqual({ requeued: 1, failed: 1 });
    expect(getTakeRow(db, 'tk_b')?.status).toBe('error');
    expect(claimJob(db, 'w3:3')?.takeId).toBe('tk_a');
  });

  it('a dead worker’s takes without a job (websocket) end in error; REST takes with a job do not', () => {
    newTake('tk_rest');
    claimJob(db, 'worker-1:9');
    advanceTake(db, 'tk_rest', 'started', { worker: 'worker-1' });
    newTake('tk_ws');
    db.prepare("DELETE FROM jobs WHERE take_id = 'tk_ws'").run(); // spoken by the worker itself
    advanceTake(db, 'tk_ws', 'started', { worker: 'worker-1' });
    releaseOwnerJobs(db, 'worker-1:9');
    expect(failJoblessTakesOf(db, 'worker-1')).toBe(1);
    expect(getTakeRow(db, 'tk_ws')?.status).toBe('error');
    expect(getTakeRow(db, 'tk_rest')?.status).toBe('started');
  });
});

describe('item events', () => {
  it('statuses only move forward and each change is an event whose body is the take as GET shows it', () => {
    newTake('tk_a');
    expect(advanceTake(db, 'tk_a', 'started')).toBeDefined();
    expect(advanceTake(db, 'tk_a', 'progress_50')).toBeDefined();
    expect(advanceTake(db, 'tk_a', 'started')).toBeUndefined(); // never backwards
    const ready = advanceTake(db, 'tk_a', 'ready', {
      info: { duration: 10, audio_rate: 22050, normalized_text: ['Hello.'] },
    });
    expect(ready).toEqual(takeResource(getTakeRow(db, 'tk_a')!));
    const recorded = events();
    expect(recorded.map((e) => e.status)).toEqual(['waiting', 'started', 'progress_50', 'ready']);
    expect(JSON.parse(recorded.at(-1)!.body)).toEqual(ready);
  });

  it('the tail delivers events to each subscriber in seq order, from the start', async () => {
    newTake('tk_a');
    advanceTake(db, 'tk_a', 'started');
    const tail = createItemEventTail(db, { pollMs: 5 });
    const seen: ItemEvent[] = [];
    const all = new Promise<void>((resolve) => {
      tail.subscribe('test', (e) => {
        seen.push(e);
        if (e.status === 'ready') resolve();
      });
    });
    advanceTake(db, 'tk_a', 'ready', { info: { duration: 1, audio_rate: 22050, normalized_text: ['x'] } });
    tail.wake();
    await all;
    tail.close();
    expect(seen.map((e) => e.status)).toEqual(['waiting', 'started', 'ready']);
    expect(seen.map((e) => e.seq)).toEqual([...seen.map((e) => e.seq)].sort((a, b) => a - b));
    expect(seen[0]).toMatchObject({ kind: 'take', itemId: 'tk_a', userId: 'us_1' });
  });
});
