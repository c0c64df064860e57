/**
 * The websocket side of the reference stack, driven over the network: `speakcheck serve` in a child
 * process (short websocket-URL lifetime so expiry can be watched, a shuffle window so frames really
 * arrive out of order), REST for login/voices/URLs, a plain `ws` client without Authorization.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type EmbeddedStack, startEmbeddedStack } from '../../../src/stack/embedded.ts';

const URL_TTL_S = 3;
const WAIT_MS = 30_000;
let stack: EmbeddedStack;
let token: string;
let voiceId: string;

type Json = Record<string, unknown>;

async function http(method: string, path: string, o: { auth?: boolean; json?: unknown } = {}) {
  const response = await fetch(path.startsWith('http') ? path : `${stack.baseUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      ...(o.auth === false ? {} : { authorization: `Bearer ${token}` }),
      ...(o.json !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(o.json !== undefined ? { body: JSON.stringify(o.json) } : {}),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const body = Buffer.from(await response.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body, json: json as Json };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const freshUrl = async (form: 'spec' | 'sdk' = 'spec') => {
  const reply =
    form === 'spec'
      ? await http('GET', '/v1/speak/websocket?model=english-gb-v2.1')
      : await http('GET', '/v1/speak/websocket/english-gb-v2.1');
  expect(reply.status).toBe(200);
  return String(reply.json[form === 'spec' ? 'websocket_url' : 'worker_websocket_url']);
};

interface Frame {
  meta: { take_id: string; request_id: unknown; part_id: number; chunk_id?: number | null };
  audio: Buffer;
}

/** A connection that records every text and binary message, with bounded waits on them. */
class Client {
  readonly texts: Json[] = [];
  readonly frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) {
        expect(data.subarray(0, 4).toString('ascii')).toBe('JSON');
        const length = data.readUInt32LE(4);
        this.frames.push({
          meta: JSON.parse(data.subarray(8, 8 + length).toString('utf8')),
          audio: data.subarray(8 + length),
        });
      } else this.texts.push(JSON.parse(data.toString('utf8')));
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string): Promise<Client> {
    const ws = new WebSocket(url); // no Authorization: the secret in the URL is the credential
    // Listen before 'open': the worker greets at once, and on a busy machine the greeting arrives in
    // the same read as the upgrade answer, i.e. in the same tick as 'open', before an await resumes.
    const client = new Client(ws);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        once(ws, 'open'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('open timed out')), WAIT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  wait(what: string, done: () => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${what}: not within ${WAIT_MS} ms; texts ${JSON.stringify(this.texts).slice(-600)}`),
          ),
        WAIT_MS,
      );
      const check = () => {
        if (done()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      check();
    });
  }

  itemsOf(requestId: unknown): Json[] {
    return this.texts.filter((t) => t.request_id === requestId && t.data).map((t) => t.data as Json);
  }
  errorsOf(requestId: unknown): Json[] {
    return this.texts.filter((t) => t.status === 'error' && t.request_id === requestId);
  }
  framesOf(requestId: unknown): Frame[] {
    return this.frames.filter((f) => f.meta.request_id === requestId);
  }

  /** Done status seen and the end-of-take marker (a part with no audio) with every part before it. */
  async finished(requestId: unknown): Promise<{ item: Json; frames: Frame[] }> {
    await this.wait(`request ${String(requestId)}`, () => {
      const done = this.itemsOf(requestId).some((d) => ['ready', 'error'].includes(String(d.status)));
      const frames = this.framesOf(requestId);
      const end = endPart(frames);
      return done && end !== undefined && partsComplete(frames, end);
    });
    return { item: this.itemsOf(requestId).at(-1)!, frames: this.framesOf(requestId) };
  }
}

const key = (f: Frame) => [f.meta.part_id, f.meta.chunk_id ?? 0] as const;
function endPart(frames: Frame[]): number | undefined {
  const parts = new Set(frames.map((f) => f.meta.part_id));
  return [...parts]
    .sort((a, b) => a - b)
    .find((p) => frames.filter((f) => f.meta.part_id === p).every((f) => f.audio.length === 0));
}
function partsComplete(frames: Frame[], end: number): boolean {
  for (let p = 0; p < end; p++) {
    const mine = frames.filter((f) => f.meta.part_id === p);
    if (mine.length === 0) return false;
    if (mine[0]!.meta.chunk_id === undefined || mine[0]!.meta.chunk_id === null) continue; // parts mode
    const ids = new Set(mine.map((f) => f.meta.chunk_id));
    const last = mine.find((f) => f.audio.length === 0 && (f.meta.chunk_id ?? 0) > 0)?.meta.chunk_id;
    if (last === undefined || last === null) return false;
    for (let c = 0; c <= last; c++) if (!ids.has(c)) return false;
  }
  return true;
}

/** Rebuilds each part's WAV from the frames (sorted by part and chunk) and checks its header. */
function reassemble(frames: Frame[], mode: 'parts' | 'chunks'): { parts: Buffer[]; pcm: Buffer } {
  const end = endPart(frames)!;
  const parts: Buffer[] = [];
  for (let p = 0; p < end; p++) {
    const mine = frames.filter((f) => f.meta.part_id === p).sort((a, b) => key(a)[1] - key(b)[1]);
    if (mine.length === 0) throw new Error(`part ${p} missing`);
    if (mode === 'parts') {
      expect(mine).toHaveLength(1);
      expect(mine[0]!.meta.chunk_id ?? undefined).toBeUndefined();
    } else {
      expect(mine.map((f) => f.meta.chunk_id)).toEqual(mine.map((_, i) => i));
      expect(mine.at(-1)!.audio.length).toBe(0);
      for (const f of mine.slice(1)) expect(f.audio.subarray(0, 4).toString('ascii')).not.toBe('RIFF');
    }
    const wav = Buffer.concat(mine.map((f) => f.audio));
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('ascii', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    parts.push(wav);
  }
  const endFrames = frames.filter((f) => f.meta.part_id === end);
  expect(endFrames).toHaveLength(1);
  expect(endFrames[0]!.meta.chunk_id ?? 0).toBe(0);
  expect(frames.every((f) => f.meta.part_id <= end)).toBe(true);
  return { parts, pcm: Buffer.concat(parts.map((w) => w.subarray(44))) };
}

/** The REST wav of a take (through its 307), as PCM. */
async function restPcm(takeId: string): Promise<Buffer> {
  const redirect = await http('GET', `/v1/speak/takes/${takeId}/wav`);
  expect(redirect.status).toBe(307);
  const wav = await http('GET', redirect.headers.get('location')!, { auth: false });
  expect(wav.status).toBe(200);
  expect(wav.body.readUInt32LE(40)).toBe(wav.body.length - 44);
  return wav.body.subarray(44);
}

beforeAll(async () => {
  stack = await startEmbeddedStack({
    extraArgs: ['--workers', '1', '--websocket-url-ttl', String(URL_TTL_S), '--ws-shuffle-window', '3'],
    readyTimeoutMs: 90_000,
  });
  const login = await http('POST', '/auth/login', {
    auth: false,
    json: { email: stack.email, password: stack.password },
  });
  token = String(login.json.access_token);
  const voice = await http('POST', '/v1/speak/voices/generate', {
    json: { name: 'ws-test', gender: 'female', model: 'english-gb-v2.1' },
  });
  voiceId = String(voice.json.voice_id);
  await until('voice ready', async () =>
    (await http('GET', `/v1/speak/voices/${voiceId}`)).json.status === 'ready' ? true : undefined,
  );
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('websocket address', () => {
  it('answers both forms with a ws:// URL holding a secret that is not the access token', async () => {
    for (const form of ['spec', 'sdk'] as const) {
      const url = new URL(await freshUrl(form));
      expect(url.protocol).toBe('ws:');
      expect(url.searchParams.get('secret')).toBeTruthy();
      expect(url.toString()).not.toContain(token);
    }
  });

  it('needs the bearer token; 422 without a model, 404 for an unknown one, each with detail', async () => {
    expect((await http('GET', '/v1/speak/websocket?model=english-gb-v2.1', { auth: false })).status).toBe(
      401,
    );
    expect((await http('GET', '/v1/speak/websocket/english-gb-v2.1', { auth: false })).status).toBe(401);
    const missing = await http('GET', '/v1/speak/websocket');
    expect(missing.status).toBe(422);
    expect(missing.json.detail).toBeTruthy();
    for (const path of ['/v1/speak/websocket?model=nope', '/v1/speak/websocket/nope']) {
      const unknown = await http('GET', path);
      expect(unknown.status).toBe(404);
      expect(String(unknown.json.detail)).toContain('nope');
    }
  });
});

describe('connection', () => {
  it('connects without Authorization and is greeted with ready and the model', async () => {
    const client = await Client.open(await freshUrl('sdk'));
    await client.wait('greeting', () => client.texts.length > 0);
    expect(client.texts[0]).toMatchObject({ status: 'ready', model: 'english-gb-v2.1' });
    client.ws.close();
  });

  it('refuses a tampered secret at the upgrade with 401', async () => {
    const url = new URL(await freshUrl());
    const secret = url.searchParams.get('secret')!;
    url.searchParams.set('secret', `${secret.slice(0, -2)}${secret.endsWith('A') ? 'B' : 'A'}A`);
    const ws = new WebSocket(url);
    ws.on('error', () => {});
    const [, response] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
    expect(response.statusCode).toBe(401);
    ws.terminate();
  });

  it(`refuses an expired URL at the upgrade, but an open connection outlives its URL (lifetime ${URL_TTL_S} s)`, async () => {
    const stale = await freshUrl();
    const open = await Client.open(await freshUrl());
    await new Promise((resolve) => setTimeout(resolve, (URL_TTL_S + 1) * 1000));
    const ws = new WebSocket(stale);
    ws.on('error', () => {});
    const [, response] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
    expect(response.statusCode).toBe(401);
    ws.terminate();
    open.send({
      command: '/takes/generate',
      request_id: 'late',
      data: { text: 'Still here.', voice_id: voiceId },
    });
    const { item } = await open.finished('late');
    expect(item.status).toBe('ready');
    open.ws.close();
  });
});

describe('takes over the websocket', () => {
  it('parts mode (default): statuses in order, whole WAVs, end marker, and the same take over REST', async () => {
    const client = await Client.open(await freshUrl());
    client.send({
      command: '/takes/generate',
      request_id: 41,
      data: { text: 'The first sentence. The second one follows! And a third?', voice_id: voiceId },
    });
    const { item, frames } = await client.finished(41);
    const statuses = client.itemsOf(41).map((d) => d.status);
    expect(statuses[0]).toBe('waiting');
    expect(statuses.at(-1)).toBe('ready');
    const rank = ['waiting', 'started', 'progress_25', 'progress_50', 'progress_75', 'ready'];
    expect(statuses.map((s) => rank.indexOf(String(s)))).toEqual(
      [...statuses.map((s) => rank.indexOf(String(s)))].sort((a, b) => a - b),
    );
    expect(statuses).toContain('started');
    const { parts, pcm } = reassemble(frames, 'parts');
    const info = item.info as { duration: number; audio_rate: number; normalized_text: string[] };
    expect(parts).toHaveLength(3);
    expect(info.normalized_text).toEqual(['The first sentence.', 'The second one follows!', 'And a third?']);
    expect(info.audio_rate).toBe(22050);
    expect(info.duration).toBe(pcm.length / 2);
    for (const f of frames) expect(f.meta.take_id).toBe(item.take_id);

    const listed = await http('GET', `/v1/speak/takes?take_id=${String(item.take_id)}`);
    expect((listed.json as unknown as Json[]).map((t) => t.take_id)).toEqual([item.take_id]);
    const rest = await http('GET', `/v1/speak/takes/${String(item.take_id)}`);
    expect(rest.json).toMatchObject({ status: 'ready', info });
    expect((await restPcm(String(item.take_id))).equals(pcm)).toBe(true);
    client.ws.close();
  });

  it('chunks mode: chunk 0 holds the header for the whole part, an empty chunk ends each part; PCM equals REST', async () => {
    const client = await Client.open(await freshUrl());
    const text = 'Chunks arrive as the speech is made, long before the sentence is over. Then a second part.';
    client.send({
      command: '/takes/generate',
      request_id: 'chunky',
      stream: { mode: 'chunks' },
      data: { text, voice_id: voiceId },
    });
    const { item, frames } = await client.finished('chunky');
    expect(item.status).toBe('ready');
    const { parts, pcm } = reassemble(frames, 'chunks');
    expect(parts).toHaveLength(2);
    expect(frames.filter((f) => f.meta.part_id === 0).length).toBeGreaterThan(5);
    expect((item.info as Json).duration).toBe(pcm.length / 2);
    expect((await restPcm(String(item.take_id))).equals(pcm)).toBe(true);
    // --ws-shuffle-window 3: the arrival order differs from the (part, chunk) order.
    const arrival = frames.map((f) => key(f).join('.'));
    const sorted = [...frames]
      .sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1])
      .map((f) => key(f).join('.'));
    expect(arrival).not.toEqual(sorted);
    client.ws.close();
  });

  it('answers bad input with an error naming the request and stays usable; requests are served in order', async () => {
    const client = await Client.open(await freshUrl());
    client.send('{ not json');
    client.send({ command: '/takes/nope', request_id: 1, data: {} });
    client.send({ command: '/takes/generate', request_id: 2, data: { voice_id: voiceId } });
    client.send({
      command: '/takes/generate',
      request_id: 3,
      data: { text: 'Unknown voice.', voice_id: 'vc_missing' },
    });
    client.send({
      command: '/takes/generate',
      request_id: 4,
      stream: { mode: 'sideways' },
      data: { text: 'Bad mode.', voice_id: voiceId },
    });
    client.send({
      command: '/takes/generate',
      request_id: 5,
      data: { text: 'First good one.', voice_id: voiceId },
    });
    client.send({
      command: '/takes/generate',
      request_id: 6,
      stream: { mode: 'chunks' },
      data: { text: 'Second good one.', voice_id: voiceId },
    });
    await client.finished(5);
    await client.finished(6);
    const errors = client.texts.filter((t) => t.status === 'error');
    expect(errors.map((e) => e.request_id)).toEqual([undefined, 1, 2, 3, 4]);
    for (const e of errors) expect(String(e.message).length).toBeGreaterThan(0);
    expect(String(client.errorsOf(3)[0]!.message)).toContain('vc_missing');
    const order = client.frames.map((f) => f.meta.request_id);
    expect(order.lastIndexOf(5)).toBeLessThan(order.indexOf(6));
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.ws.close();
  });

  it('/voices/generate answers with Voice frames; the example take carries the audio and is a REST take', async () => {
    const client = await Client.open(await freshUrl());
    client.send({
      command: '/voices/generate',
      request_id: 'v',
      data: { name: 'made-over-ws', gender: 'male', model: 'english-gb-v2.1' },
    });
    await client.wait('voice ready', () => client.itemsOf('v').some((d) => d.status === 'ready'));
    const voices = client.itemsOf('v');
    expect(voices[0]).toMatchObject({ name: 'made-over-ws', status: 'waiting' });
    const exampleTakeId = String(voices[0]!.example_take_id);
    await client.wait('example take audio', () => endPart(client.framesOf('v')) !== undefined);
    const { pcm } = reassemble(client.framesOf('v'), 'parts');
    for (const f of client.framesOf('v')) expect(f.meta.take_id).toBe(exampleTakeId);
    expect((await http('GET', `/v1/speak/voices/${String(voices[0]!.voice_id)}`)).json.status).toBe('ready');
    expect((await restPcm(exampleTakeId)).equals(pcm)).toBe(true);
    client.ws.close();
  });
});

describe('worker failure', () => {
  it('a worker killed while it speaks a websocket take: the take ends in error over REST, never stays started', async () => {
    const client = await Client.open(await freshUrl());
    const text = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} keeps the worker busy.`).join(' ');
    client.send({ command: '/takes/generate', request_id: 'doomed', data: { voice_id: voiceId, text } });
    await client.wait('started', () => client.itemsOf('doomed').some((d) => d.status === 'started'));
    const takeId = String(client.itemsOf('doomed')[0]!.take_id);
    const take = await http('GET', `/v1/speak/takes/${takeId}`);
    const speaker = take.headers.get('x-speak-worker');
    const workers = (await http('GET', '/v1/speak/_meta/workers')).json as unknown as {
      id: string;
      pid: number;
    }[];
    const victim = workers.find((w) => w.id === speaker);
    expect(
      victim,
      `the worker speaking ${takeId} (${speaker}) among ${JSON.stringify(workers)}`,
    ).toBeDefined();
    const closed = once(client.ws, 'close');
    process.kill(victim!.pid, 'SIGKILL');
    await closed;
    const ended = await until('the take to end', async () => {
      const now = await http('GET', `/v1/speak/takes/${takeId}`);
      return ['ready', 'error', 'timeout'].includes(String(now.json.status)) ? now.json : undefined;
    });
    expect(ended.status).toBe('error');
  });
});
