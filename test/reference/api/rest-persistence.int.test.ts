/**
 * Durability of the reference stack over HTTP: a restart with the same --data keeps users (same demo
 * password), tokens, voices, takes, audio and signed URLs, and takes that were in flight finish
 * (never `waiting` forever); a worker process killed mid-take is restarted and its job taken again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Stack, startStack } from '../stack.ts';

type Json = Record<string, unknown>;
const dir = mkdtempSync(join(tmpdir(), 'speakcheck-persist-'));
const started: Stack[] = [];
const longText = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Sentence ${i + 1} keeps this take busy for a little while longer.`,
  ).join(' ');

async function serve(args: string[]): Promise<Stack> {
  const stack = await startStack(args);
  started.push(stack);
  return stack;
}

afterAll(async () => {
  for (const stack of started) await stack.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('restart with the same --data', () => {
  it('keeps everything and finishes the takes that were in flight', async () => {
    const data = join(dir, 'restart');
    const first = await serve(['--data', data]);
    const api = await first.login();
    const voice = (
      await api.post('/v1/speak/voices/generate', {
        name: 'Keeper',
        gender: 'female',
        model: 'english-gb-v2.1',
      })
    ).json as Json;
    const take = (
      await api.post('/v1/speak/takes/generate', { voice_id: voice.voice_id, text: 'I will still be here.' })
    ).json as Json;
    const readyTake = (await pollUntil(api, `/v1/speak/takes/${take.take_id}`, isDone)).body;
    const readyVoice = (await pollUntil(api, `/v1/speak/voices/${voice.voice_id}`, isDone)).body;
    const location = (await api.get(`/v1/speak/takes/${take.take_id}/wav`)).headers.get('location')!;
    const wav = (await first.request('GET', location)).body;
    // Three long takes with two workers: two in progress, one waiting when the stack stops.
    const inFlight = (
      await api.post(
        '/v1/speak/takes/generate',
        [1, 2, 3].map(() => ({ voice_id: voice.voice_id, text: longText(20) })),
      )
    ).json as Json[];
    await pollUntil(api, `/v1/speak/takes/${inFlight[0]!.take_id}`, (t) => t.status !== 'waiting');
    await first.stop();

    const second = await serve(['--data', data]);
    expect(second.password).toBe(first.password);
    expect(second.email).toBe(first.email);
    // The old access token is still valid (its key is persisted).
    expect((await second.request('GET', '/v1/speak/models', { token: api.access })).status).toBe(200);
    const again = await second.login();
    expect((await again.get(`/v1/speak/takes/${take.take_id}`)).json).toEqual(readyTake);
    expect((await again.get(`/v1/speak/voices/${voice.voice_id}`)).json).toEqual(readyVoice);
    // A signed URL from before the restart still works when pointed at the new blob-store listener.
    const moved = new URL(location);
    moved.port = new URL(second.blobUrl!).port;
    const replay = await second.request('GET', moved.href);
    expect(replay.status).toBe(200);
    expect(replay.body.equals(wav)).toBe(true);
    for (const t of inFlight) {
      const done = await pollUntil(again, `/v1/speak/takes/${t.take_id}`, isDone, 120_000);
      expect(done.body.status).toBe('ready');
      expect((done.body.info as Json).normalized_text).toHaveLength(20);
    }
  }, 300_000);
});

describe('worker failure', () => {
  it('a worker killed mid-take is restarted and the take still becomes ready', async () => {
    const stack = await serve(['--data', join(dir, 'kill')]);
    const api = await stack.login();
    const workers = (await api.get('/v1/speak/_meta/workers')).json as {
      id: string;
      pid: number;
      alive: boolean;
    }[];
    expect(workers).toHaveLength(2);
    expect(workers.every((w) => w.alive && w.pid > 0)).toBe(true);
    const voice = (
      await api.post('/v1/speak/voices/generate', {
        name: 'Fragile',
        gender: 'male',
        model: 'english-gb-v2.1',
      })
    ).json as Json;
    await pollUntil(api, `/v1/speak/voices/${voice.voice_id}`, isDone);
    const take = (
      await api.post('/v1/speak/takes/generate', { voice_id: voice.voice_id, text: longText(20) })
    ).json as Json;
    const running = await pollUntil(api, `/v1/speak/takes/${take.take_id}`, (t) => t.status !== 'waiting');
    const workerId = running.reply.headers.get('x-speak-worker');
    const victim = workers.find((w) => w.id === workerId);
    expect(victim, `worker ${workerId}`).toBeDefined();
    process.kill(victim!.pid, 'SIGKILL');
    const done = await pollUntil(api, `/v1/speak/takes/${take.take_id}`, isDone, 120_000);
    expect(done.body.status).toBe('ready');
    expect((done.body.info as Json).normalized_text).toHaveLength(20);
    const after = (await api.get('/v1/speak/_meta/workers')).json as {
      id: string;
      pid: number;
      alive: boolean;
      restarts: number;
    }[];
    const restarted = after.find((w) => w.id === workerId)!;
    expect(restarted.restarts).toBeGreaterThanOrEqual(1);
    expect(restarted.pid).not.toBe(victim!.pid);
  }, 300_000);
});
