/**
 * The websocket worker on the stack's real stores (store-service.ts over SQLite) while another
 * database connection keeps writing, as the API process and the other workers do in a running stack.
 *
 * Regression: a flake check saw a websocket take go `waiting → error` 8 ms after its request (seed
 * 1546929415, "Paper river garden. Garden music paper."): the worker's first status change failed
 * with SQLITE_BUSY ("database is locked"). advanceTake read the take and then wrote it inside a
 * DEFERRED transaction; when another connection holds the write lock at the moment of that upgrade,
 * SQLite returns SQLITE_BUSY at once instead of calling the busy handler (waiting could deadlock), so
 * busy_timeout never applied. Every take status write must take the write lock up front (BEGIN
 * IMMEDIATE) and wait its turn. The writer thread below holds the write lock most of the time, so a
 * read-then-upgrade loses nearly every time while a write that waits its turn always gets through.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { databasePath, openDatabase } from '../../../reference/store/db.ts';
import { getTakeRow } from '../../../reference/store/takes.ts';
import { createSynthesizer, type Synthesizer } from '../../../reference/synth/index.ts';
import { createWebsocketSecret } from '../../../reference/worker/websocket/secret.ts';
import { startWebsocketWorker, type WebsocketWorker } from '../../../reference/worker/websocket/server.ts';
import { createStoreService } from '../../../reference/worker/websocket/store-service.ts';

type Json = Record<string, unknown>;

const KEY = 'contention-test-key';
const USER = 'us_contention';
const WAIT_MS = 45_000;
/** The other connection holds the write lock this long, then leaves it free this long, again and again. */
const HOLD_MS = 3;
const GAP_MS = 1;

const dataDir = mkdtempSync(join(tmpdir(), 'speakcheck-ws-contention-'));
const db = openDatabase(dataDir);
let synth: Synthesizer;
let worker: WebsocketWorker;
let voiceId: string;

/** A thread with its own connection that keeps taking the write lock (bounded by the stop flag). */
function startContention(): { stop(): Promise<number> } {
  db.exec('CREATE TABLE IF NOT EXISTS contention (n INTEGER NOT NULL)');
  const stopFlag = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const Database = require(workerData.module);
    const db = new Database(workerData.file);
    db.pragma('busy_timeout = 10000');
    const insert = db.prepare('INSERT INTO contention (n) VALUES (?)');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const stop = workerData.stop;
    let commits = 0;
    while (Atomics.load(stop, 0) === 0) {
      db.exec('BEGIN IMMEDIATE');
      insert.run(commits);
      Atomics.wait(pause, 0, 0, workerData.holdMs);
      db.exec('COMMIT');
      commits++;
      Atomics.wait(pause, 0, 0, workerData.gapMs);
    }
    db.close();
    parentPort.postMessage(commits);
  `;
  const thread = new Worker(code, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
      file: databasePath(dataDir),
      stop: stopFlag,
      holdMs: HOLD_MS,
      gapMs: GAP_MS,
    },
  });
  const done = new Promise<number>((resolve, reject) => {
    thread.once('message', (commits: number) => resolve(commits));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`contention thread exited (${code}) without a count`)));
  });
  return {
    async stop() {
      Atomics.store(stopFlag, 0, 1);
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          done,
          new Promise<number>((_, reject) => {
            timer = setTimeout(() => reject(new Error('contention thread did not stop')), 10_000);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        await thread.terminate();
      }
    },
  };
}

beforeAll(async () => {
  synth = await createSynthesizer();
  const service = createStoreService({ db, dataDir, workerId: 'worker-contention', notifyEvents: () => {} });
  const voice = await service.createVoice(USER, 'english-gb-v2.1', {
    name: 'contention',
    gender: 'female',
    model: 'english-gb-v2.1',
  });
  if (!voice.ok) throw new Error(`voice: ${voice.message}`);
  voiceId = String(voice.value.voice.voice_id);
  worker = await startWebsocketWorker({ secretKey: KEY, models: ['english-gb-v2.1'], service, synth });
});

afterAll(async () => {
  await worker?.close();
  await synth?.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  requestId: string;
  statuses: string[];
  errors: string[];
  takeId?: string;
}

/** Sends `texts` pipelined on one connection; resolves when each request has a done status or an error. */
async function speakAll(prefix: string, texts: string[]): Promise<Outcome[]> {
  const { secret } = createWebsocketSecret(KEY, { userId: USER, model: 'english-gb-v2.1' });
  const ws = new WebSocket(`${worker.baseUrl}?secret=${secret}`);
  const outcomes = new Map<string, Outcome>(
    texts.map((_, i) => [`${prefix}-${i}`, { requestId: `${prefix}-${i}`, statuses: [], errors: [] }]),
  );
  const over = (o: Outcome) =>
    o.errors.length > 0 || ['ready', 'error', 'timeout'].includes(o.statuses.at(-1) ?? '');
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not every request ended: ${JSON.stringify([...outcomes.values()])}`)),
        WAIT_MS,
      );
      ws.on('error', reject);
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) return;
        const message = JSON.parse(data.toString()) as Json;
        const o = outcomes.get(String(message.request_id));
        if (!o) return;
        const take = message.data as Json | undefined;
        if (take) {
          o.statuses.push(String(take.status));
          o.takeId ??= String(take.take_id);
        } else if (message.status === 'error') o.errors.push(String(message.message));
        if ([...outcomes.values()].every(over)) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.once('open', () => {
        for (const [i, text] of texts.entries()) {
          ws.send(
            JSON.stringify({
              command: '/takes/generate',
              request_id: `${prefix}-${i}`,
              stream: { mode: i % 2 === 0 ? 'parts' : 'chunks' },
              data: { text, voice_id: voiceId },
            }),
          );
        }
      });
    });
  } finally {
    ws.close();
  }
  return [...outcomes.values()];
}

it('websocket takes reach ready while another connection keeps writing to the database', async () => {
  const texts = [
    'Music paper light.',
    'Paper river garden. Garden music paper.',
    'Signal light river alpha.',
    'Window garden signal garden.',
    'Alpha river garden. Garden music paper.',
    'The first sentence is short. A second one follows it.',
  ];
  const contention = startContention();
  let outcomes: Outcome[];
  let commits: number;
  try {
    outcomes = (await Promise.all([speakAll('a', texts), speakAll('b', texts.slice().reverse())])).flat();
  } finally {
    commits = await contention.stop();
  }
  // The other connection really was writing the whole time.
  expect(commits).toBeGreaterThan(20);
  for (const o of outcomes) {
    expect(o.errors, `${o.requestId}: error messages`).toEqual([]);
    expect(o.statuses[0], `${o.requestId}: first status`).toBe('waiting');
    expect(o.statuses.slice(1, 2), `${o.requestId}: statuses ${o.statuses.join(' → ')}`).toEqual(['started']);
    expect(o.statuses.at(-1), `${o.requestId}: statuses ${o.statuses.join(' → ')}`).toBe('ready');
    expect(getTakeRow(db, o.takeId!)?.status, `${o.requestId}: stored status`).toBe('ready');
  }
}, 90_000);
