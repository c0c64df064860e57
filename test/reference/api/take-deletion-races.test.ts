/**
 * Deleting a take while something still depends on it, and example takes' webhook fields, on the
 * API app built in process (no stack, no workers: nothing speaks, so every status is set by hand):
 * - deleting a voice's example take fails the unfinished voice (its item event and done webhook), as
 *   the voice would otherwise wait for a take that no longer exists;
 * - a signed audio URL whose take is deleted under the request (its files gone before they are
 *   read or encoded) answers 404 with a detail, not 500 or 503;
 * - an example take's status_webhook / done_webhook are checked as a take's own are (REST and
 *   websocket), and nothing is stored when they are refused.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FfmpegError } from '../../../reference/audio/encode.ts';
import { AUDIO_FORMATS, type AudioFormat } from '../../../reference/audio/formats.ts';
import { wavHeader } from '../../../reference/audio/wav.ts';
import { MODELS } from '../../../reference/models/catalogue.ts';
import { type AudioUrlSigner, SIGNED_AUDIO_PREFIX } from '../../../reference/signing/audio-url.ts';
import { type AudioFiles, takeAudioDir } from '../../../reference/store/audio-files.ts';
import type { Database } from '../../../reference/store/db.ts';
import { advanceTake, deleteTakeRow, insertTake } from '../../../reference/store/takes.ts';
import { createItemEventHandler } from '../../../reference/webhooks/from-item-events.ts';
import { WebhookOutbox } from '../../../reference/webhooks/outbox-store.ts';
import { createStoreService } from '../../../reference/worker/websocket/store-service.ts';
import { plainTakeRow } from '../store/take-rows.ts';
import { type InProcessApp, inProcessApp } from './in-process-app.ts';

type Json = Record<string, unknown>;

const MODEL = MODELS[0]!;
const VOICE_BODY = { name: 'Racer', gender: MODEL.genders[0], model: MODEL.name };
const DONE_HOOK = 'http://127.0.0.1:9/voice-done';

let dir: string;
let db: Database;
let userId: string;
let signer: AudioUrlSigner;
let made: InProcessApp;
let wakes = 0;
/**
 * Runs inside ctx.audio.ensure, after the handler found the take and before it reads or encodes the
 * file: where a concurrent DELETE lands in the race.
 */
let duringEnsure: ((takeId: string) => Promise<void>) | undefined;

beforeAll(async () => {
  made = await inProcessApp({
    name: 'deletion-races',
    context: (base) => {
      // The app's own store, read once: the context is changed in place with what this returns.
      const files = base.audio;
      return {
        audio: Object.assign(Object.create(files) as AudioFiles, {
          async ensure(takeId: string, format: AudioFormat) {
            await duringEnsure?.(takeId);
            return files.ensure(takeId, format);
          },
        }),
        wakeEvents: () => {
          wakes++;
        },
      };
    },
  });
  ({ dir, db, userId, signer } = made);
});

afterAll(async () => {
  await made?.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  made.call(method, url, payload);

const count = (table: 'voices' | 'takes') =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

/** The webhook calls the stack's event tail would queue for every item event so far. */
function queuedWebhookCalls(): { kind: string; item_id: string; hook: string; body: Json }[] {
  const outbox = new WebhookOutbox(db);
  const handle = createItemEventHandler(outbox, { allow: 'loopback' });
  for (const row of outbox.itemEventsAfter(outbox.lastHandledSeq())) {
    handle({ ...row, itemId: row.item_id, body: JSON.parse(row.body), createdMs: row.created_ms });
  }
  const rows = db.prepare('SELECT kind, item_id, hook, body FROM webhook_deliveries ORDER BY id').all() as {
    kind: string;
    item_id: string;
    hook: string;
    body: string;
  }[];
  return rows.map((r) => ({ ...r, body: JSON.parse(r.body) as Json }));
}

describe('deleting a voice example take', () => {
  it('fails the waiting voice at once: GET shows error, its item event and done webhook follow', async () => {
    const created = await call('POST', '/v1/speak/voices/generate', {
      ...VOICE_BODY,
      done_webhook: DONE_HOOK,
    });
    expect(created.status).toBe(200);
    const voiceId = String(created.json.voice_id);
    expect(created.json.status).toBe('waiting');
    const wakesBefore = wakes;
    const deleted = await call('DELETE', `/v1/speak/takes/${created.json.example_take_id}`);
    expect(deleted).toEqual({ status: 200, json: true } as unknown);

    const voice = await call('GET', `/v1/speak/voices/${voiceId}`);
    expect(voice.json.status).toBe('error');
    expect(wakes, 'the event tail is woken for the voice event').toBeGreaterThan(wakesBefore);
    const events = db
      .prepare("SELECT status FROM item_events WHERE kind = 'voice' AND item_id = ? ORDER BY seq")
      .all(voiceId) as { status: string }[];
    expect(events.map((e) => e.status)).toEqual(['waiting', 'error']);
    const done = queuedWebhookCalls().filter((c) => c.item_id === voiceId && c.hook === 'done');
    expect(done).toHaveLength(1);
    expect(done[0]!.body).toMatchObject({ voice_id: voiceId, status: 'error', done_webhook: DONE_HOOK });
  });

  it('leaves a voice that is ready as it is', async () => {
    const created = await call('POST', '/v1/speak/voices/generate', VOICE_BODY);
    const exampleId = String(created.json.example_take_id);
    const info = { duration: 1, audio_rate: 22050, normalized_text: ['Hello.'] };
    expect(advanceTake(db, exampleId, 'ready', { info })?.status).toBe('ready');
    expect((await call('GET', `/v1/speak/voices/${created.json.voice_id}`)).json.status).toBe('ready');
    expect((await call('DELETE', `/v1/speak/takes/${exampleId}`)).status).toBe(200);
    expect((await call('GET', `/v1/speak/voices/${created.json.voice_id}`)).json.status).toBe('ready');
  });
});

describe('a signed audio URL whose take is deleted during the request', () => {
  const SAMPLES = 2205;

  /** A ready take with a real wav (0.1 s of silence); returns its id. */
  function readyTake(takeId: string): string {
    db.transaction(() =>
      insertTake(db, { ...plainTakeRow({ takeId, voiceId: 'vc_gone', text: 'Hello.' }), user_id: userId }),
    )();
    mkdirSync(takeAudioDir(dir, takeId), { recursive: true });
    const pcm = Buffer.alloc(SAMPLES * 2);
    writeFileSync(
      join(takeAudioDir(dir, takeId), 'take.wav'),
      Buffer.concat([wavHeader({ sampleRate: 22050, dataBytes: pcm.length }), pcm]),
    );
    const info = { duration: SAMPLES, audio_rate: 22050, normalized_text: ['Hello.'] };
    expect(advanceTake(db, takeId, 'ready', { info })?.status).toBe('ready');
    return takeId;
  }

  async function fetchSigned(takeId: string, format: AudioFormat, headers: Record<string, string> = {}) {
    const signed = new URL(signer.sign('http://localhost', `${SIGNED_AUDIO_PREFIX}/${takeId}/${format}`));
    return made.app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}`, headers });
  }

  /** What a DELETE does (row, then files), run where the handler asks for the file. */
  const deleteWhileServing = async (takeId: string) => {
    expect(deleteTakeRow(db, userId, takeId)).toBe(true);
    rmSync(takeAudioDir(dir, takeId), { recursive: true, force: true });
  };

  it('serves the file, a range and a refused range when nothing interferes', async () => {
    const takeId = readyTake('tk_served');
    const whole = await fetchSigned(takeId, 'wav');
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe(AUDIO_FORMATS.wav.contentType);
    expect(whole.rawPayload.length).toBe(44 + SAMPLES * 2);
    const part = await fetchSigned(takeId, 'wav', { range: 'bytes=0-3' });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.toString('ascii')).toBe('RIFF');
    const outside = await fetchSigned(takeId, 'wav', { range: 'bytes=999999-' });
    expect(outside.statusCode).toBe(416);
    expect(outside.json().detail).toBeTruthy();
  });

  // The encoder run on a deleted take fails as ffmpeg does on a missing input (no process here: a
  // unit file starts none).
  const encoderOnDeleted = async (takeId: string) => {
    await deleteWhileServing(takeId);
    throw new FfmpegError('ffmpeg failed (exit 254)', `${takeId}/take.wav: No such file or directory`);
  };

  it.each([
    ['wav', 'its file gone before it is opened', deleteWhileServing],
    ['mp3', 'its wav gone under the encoder', encoderOnDeleted],
  ] as const)('%s (%s): 404 with a detail, not a 5xx', async (format, _how, race) => {
    const takeId = readyTake(`tk_raced_${format}`);
    duringEnsure = race;
    try {
      const answer = await fetchSigned(takeId, format);
      expect(answer.statusCode, answer.body).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(String(answer.json().detail)).toContain(takeId);
    } finally {
      duringEnsure = undefined;
    }
  });
});

describe('the example take of a voice generation', () => {
  it.each([
    ['status_webhook', 42],
    ['done_webhook', { post_url: 5 }],
    ['status_webhook', 'not a url'],
  ])('refuses example_take.%s = %j with 422 naming it; nothing is stored', async (field, value) => {
    const voices = count('voices');
    const takes = count('takes');
    const answer = await call('POST', '/v1/speak/voices/generate', {
      ...VOICE_BODY,
      example_take: { text: 'Hi', [field]: value },
    });
    expect(answer.status).toBe(422);
    expect(String(answer.json.detail)).toContain(`body/example_take/${field}`);
    expect([count('voices'), count('takes')]).toEqual([voices, takes]);
  });

  it('keeps valid example take webhooks and serves them on the take', async () => {
    const hook = { post_url: 'http://127.0.0.1:9/take' };
    const created = await call('POST', '/v1/speak/voices/generate', {
      ...VOICE_BODY,
      example_take: { text: 'Hi', status_webhook: 'http://127.0.0.1:9/status', done_webhook: hook },
    });
    expect(created.status).toBe(200);
    const take = await call('GET', `/v1/speak/takes/${created.json.example_take_id}`);
    expect(take.json).toMatchObject({ status_webhook: 'http://127.0.0.1:9/status', done_webhook: hook });
  });

  it('is refused the same way over a worker websocket', async () => {
    const service = createStoreService({
      db,
      dataDir: dir,
      workerId: 'w-test',
      notifyEvents: () => undefined,
    });
    const voices = count('voices');
    const created = await service.createVoice(userId, MODEL.name, {
      ...VOICE_BODY,
      example_take: { text: 'Hi', status_webhook: 42 },
    });
    expect(created.ok).toBe(false);
    expect(created.ok ? '' : created.message).toContain('data/example_take/status_webhook');
    expect(count('voices')).toBe(voices);
  });
});
