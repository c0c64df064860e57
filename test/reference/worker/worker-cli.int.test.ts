/**
 * `speakcheck worker` as a process, on a data dir of its own (no API needed: it joins through
 * SQLite): an unknown --defect is refused; --defect is announced loudly and is on in the worker (its
 * registration records the switches it reads); it claims only jobs of its --models; SIGTERM mid-take
 * gives the job back to the queue at once (no 15 s lease wait), deregisters and exits within a bound.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../../reference/jobs/job-queue.ts';
import { type Database, openDatabase } from '../../../reference/store/db.ts';
import { insertTake } from '../../../reference/store/takes.ts';
import { insertVoice } from '../../../reference/store/voices.ts';
import { registeredWorkers } from '../../../reference/worker/registry.ts';
import { plainTakeRow } from '../store/take-rows.ts';

const BIN = fileURLToPath(new URL('../../../bin/speakcheck.js', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Polls `test` every 50 ms until it returns a value, bounded. */
async function until<T>(test: () => T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function addVoiceAndTake(db: Database, voiceId: string, model: string, takeId: string, text: string): void {
  db.transaction(() => {
    insertVoice(db, {
      voice_id: voiceId,
      user_id: 'us_1',
      name: voiceId,
      model,
      gender: 'female',
      default_style: null,
      default_prosody: null,
      description: null,
      example_take_id: `${takeId}_example`,
      status_webhook: null,
      done_webhook: null,
      timestamp_ms: Date.now(),
    });
    insertTake(db, plainTakeRow({ takeId, voiceId, text }));
    enqueueJob(db, takeId);
  }).immediate();
}

interface JobRow {
  state: string;
  lease_owner: string | null;
  attempts: number;
}
const jobOf = (db: Database, takeId: string) =>
  db.prepare('SELECT state, lease_owner, attempts FROM jobs WHERE take_id = ?').get(takeId) as JobRow;

describe('speakcheck worker', () => {
  it('refuses an unknown --defect, naming the known ones', () => {
    const run = spawnSync(process.execPath, [BIN, 'worker', '--data', tmpdir(), '--defect', 'no-such'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/unknown defect "no-such"; known defects: .*ws-chunk-id-from-1/);
  });

  it('--defect is announced and on; only its models are claimed; SIGTERM mid-take gives the job back and exits promptly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'speakcheck-worker-cli-'));
    dirs.push(dataDir);
    const db = openDatabase(dataDir);
    try {
      // Queued before the worker starts: a polyglot take first (not this worker's model), then a long
      // studio take it will still be speaking when stopped.
      addVoiceAndTake(db, 'vc_poly', 'polyglot', 'tk_poly', 'Hallo.');
      const long = Array.from({ length: 40 }, (_, i) => `This is sentence number ${i + 1} of a long take.`);
      addVoiceAndTake(db, 'vc_studio', 'studio-2026.11', 'tk_studio', long.join(' '));

      const worker = spawn(
        process.execPath,
        [
          BIN,
          'worker',
          '--data',
          dataDir,
          '--id',
          'wk-cli',
          '--models',
          'studio',
          '--defect',
          'ws-chunk-id-from-1',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(worker);
      let stdout = '';
      let stderr = '';
      worker.stdout!.on('data', (chunk) => {
        stdout += String(chunk);
      });
      worker.stderr!.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        worker.once('exit', (code, signal) => resolve({ code, signal })),
      );

      const registered = await until(
        () => registeredWorkers(db).find((w) => w.id === 'wk-cli' && w.websocketUrl),
        60_000,
        'the worker did not register',
      );
      expect(registered.models).toEqual(['english-gb-v2.1']); // --models studio: an alias, registered by its public name
      expect(registered.defects).toEqual(['ws-chunk-id-from-1']);
      expect(stdout).toMatch(/^defects=ws-chunk-id-from-1$/m);
      expect(stderr).toContain('WARNING: DEFECTIVE STACK (testing only): ws-chunk-id-from-1');

      // It works on the studio take (lease held, synthesis started) and leaves the polyglot one alone.
      await until(
        () => {
          const job = jobOf(db, 'tk_studio');
          const take = db.prepare('SELECT status FROM takes WHERE take_id = ?').get('tk_studio') as {
            status: string;
          };
          return job.state === 'leased' && take.status !== 'waiting' ? true : undefined;
        },
        60_000,
        'the worker did not start the studio take',
      );
      expect(jobOf(db, 'tk_studio').lease_owner).toMatch(/^wk-cli:\d+$/);
      expect(jobOf(db, 'tk_poly')).toEqual({ state: 'queued', lease_owner: null, attempts: 0 });

      const signalled = Date.now();
      worker.kill('SIGTERM');
      const exit = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no exit within 10 s of SIGTERM:\n${stderr}${stdout}`)), 10_000),
        ),
      ]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(10_000);
      // Back in the queue now, not in 15 s; the interrupted attempt does not count as a failure.
      expect(jobOf(db, 'tk_studio')).toEqual({ state: 'queued', lease_owner: null, attempts: 0 });
      expect(registeredWorkers(db).find((w) => w.id === 'wk-cli')).toBeUndefined();
      expect(stdout).toMatch(/SIGTERM: stopping/);
    } finally {
      db.close();
    }
  }, 120_000);
});
