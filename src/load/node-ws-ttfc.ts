/**
 * The Node side of the k6 cross-check: a small `ws` client sending the same kind of requests the
 * ttfc-websocket scenario sends (chunks mode, texts from load/data/takes.json, one connection, one
 * request after another), timed with performance.now() from the send of the request frame to the
 * first audio frame. Frames are decoded with the harness's codec (src/client/ws-frame.ts), so this
 * is an independent implementation of what load/lib/framing.ts does inside k6. Deliberately lean:
 * per-message work in the client would show up as latency (the harness's recording stream client
 * measured ~2-7 ms to a first status frame where a plain client saw ~0.6 ms, same server).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { decodeAudioFrame } from '../client/ws-frame.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import type { TargetCredentials } from './target.ts';

/** Where and how to reach the server (the CLI's target flags, with a base URL). */
export interface TtfcTarget extends TargetCredentials {
  baseUrl: string;
  requestTimeoutMs?: number;
}

export interface NodeTtfcOptions extends TtfcTarget {
  requests: number;
  mode?: 'parts' | 'chunks';
  textSet?: string;
  /** Unmeasured takes first (default 2), as the k6 scenario's setup does. */
  warmUp?: number;
}

interface TakeData {
  voice: { name: string; gender: string };
  texts: Record<string, string[]>;
}

export function loadTakeData(): TakeData {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'load', 'data', 'takes.json'), 'utf8')) as TakeData;
}

async function api(
  o: TtfcTarget,
  bearer: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const base = path.startsWith('/auth/') ? (o.authUrl ?? o.baseUrl) : o.baseUrl;
  const headers: Record<string, string> = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

async function accessToken(o: TtfcTarget): Promise<string> {
  if (o.token) return o.token;
  const res = await api(o, undefined, 'POST', '/auth/login', { email: o.email, password: o.password });
  if (res.status !== 200) throw new Error(`login failed: HTTP ${res.status}`);
  return (res.json as { access_token: string }).access_token;
}

async function readyVoice(o: TtfcTarget, bearer: string, model: string, data: TakeData): Promise<string> {
  const created = await api(o, bearer, 'POST', '/v1/speak/voices/generate', {
    name: `${data.voice.name}-node-${Date.now()}`,
    gender: data.voice.gender,
    model,
  });
  if (created.status < 200 || created.status >= 300)
    throw new Error(`voice generation: HTTP ${created.status}`);
  const id = (created.json as { voice_id: string }).voice_id;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const voice = await api(o, bearer, 'GET', `/v1/speak/voices/${id}`);
    const status = (voice.json as { status?: string } | undefined)?.status;
    if (status === 'ready') return id;
    if (status === 'error' || status === 'timeout' || Date.now() > deadline) {
      throw new Error(`voice ${id} did not become ready (status ${status})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Milliseconds from sending a take request over an open socket. */
export interface TakeTiming {
  /** The first audio frame with audio in it (in chunks mode, chunk 0: the WAV header). */
  firstAudioMs: number;
  /**
   * The first PLAYABLE audio: part 0's WAV header and then part 0's first audio bytes, in order (what
   * a player needs to start); in parts mode the part-0 WAV itself.
   */
  playableMs: number;
  /** The first Take message (the take is stored); NaN when none came. */
  statusMs: number;
}

/** One take over an open socket; resolves with its timings once it is ready and its end marker came. */
export function timeOneTake(
  ws: WebSocket,
  requestId: string,
  text: string,
  voiceId: string,
  mode: string,
  timeoutMs: number,
): Promise<TakeTiming> {
  return new Promise((resolve, reject) => {
    let firstAudio: number | undefined;
    let header: number | undefined;
    let samples: number | undefined;
    let status: number | undefined;
    let ended = false;
    let ready = false;
    const timer = setTimeout(() => done(new Error(`no end of take within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
      const at = performance.now() - sentAt;
      if (!isBinary) {
        const message = JSON.parse(data.toString()) as {
          request_id?: unknown;
          status?: string;
          data?: { status?: string };
        };
        if (message.request_id !== undefined && message.request_id !== requestId) return;
        if (message.data?.status) status ??= at;
        const takeStatus = message.data?.status ?? (message.status === 'error' ? 'error' : undefined);
        if (takeStatus === 'error' || takeStatus === 'timeout')
          return done(new Error(`take ended in ${takeStatus}: ${data.toString().slice(0, 200)}`));
        if (takeStatus === 'ready') ready = true;
      } else {
        const frame = decodeAudioFrame(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
        const { request_id, part_id, chunk_id } = frame.metadata;
        if (request_id !== null && request_id !== requestId) return;
        const bytes = frame.audio.length;
        if (bytes === 0 && !chunk_id) ended = true;
        else if (bytes > 0) firstAudio ??= at;
        if (part_id === 0 && !chunk_id && bytes > 0) header ??= at;
        // Part 0's first audio bytes: in the header frame itself (parts mode), else chunk 1.
        if (part_id === 0 && (bytes > 44 || (chunk_id === 1 && bytes > 0))) samples ??= at;
      }
      if (ended && ready) done();
    };
    const onClose = () => done(new Error('the worker closed the connection during a request'));
    const done = (err?: Error) => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', onClose);
      if (err) reject(err);
      else if (firstAudio === undefined) reject(new Error('the take ended without audio'));
      else
        resolve({
          firstAudioMs: firstAudio,
          // NaN when part 0 never became playable (no header, or no audio after it).
          playableMs: header === undefined || samples === undefined ? Number.NaN : Math.max(header, samples),
          statusMs: status ?? Number.NaN,
        });
    };
    ws.on('message', onMessage);
    ws.once('close', onClose);
    const frame = JSON.stringify({
      command: '/takes/generate',
      request_id: requestId,
      stream: { mode },
      data: { text, voice_id: voiceId },
    });
    const sentAt = performance.now();
    ws.send(frame);
  });
}

export interface NodeTtfcResult {
  /** Time to first audio frame (ms) of each take that streamed. */
  samples: number[];
  /** Why the other takes did not (the take failed, the connection dropped). */
  failures: string[];
}

function openSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise<WebSocket>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('websocket did not open within 10 s'));
    }, 10_000);
    ws.once('open', () => {
      clearTimeout(timer);
      resolve(ws);
    });
    ws.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** A ready voice and an open connection on a server, for timing takes one after another. */
export interface TtfcSession {
  voiceId: string;
  /** Times one take; reconnects first when the worker dropped the connection. */
  take(requestId: string, text: string, mode: string, timeoutMs?: number): Promise<TakeTiming>;
  /** Closes the connection and deletes the voice. */
  close(): Promise<void>;
}

/** Logs in (or uses the token), makes a voice and waits until it is ready, opens a websocket. */
export async function openTtfcSession(o: TtfcTarget): Promise<TtfcSession> {
  const data = loadTakeData();
  const bearer = await accessToken(o);
  const models = (await api(o, bearer, 'GET', '/v1/speak/models')).json as { name: string }[];
  const model = o.model ?? models[0]?.name;
  if (!model) throw new Error('the server lists no models');
  const voiceId = await readyVoice(o, bearer, model, data);
  const connect = async (): Promise<WebSocket> => {
    const address = await api(o, bearer, 'GET', `/v1/speak/websocket?model=${encodeURIComponent(model)}`);
    const url = (address.json as { websocket_url?: string } | undefined)?.websocket_url;
    if (!url) throw new Error(`GET /v1/speak/websocket: HTTP ${address.status} without websocket_url`);
    return openSocket(url);
  };
  let ws = await connect();
  return {
    voiceId,
    async take(requestId, text, mode, timeoutMs = o.requestTimeoutMs ?? 30_000) {
      if (ws.readyState !== WebSocket.OPEN) ws = await connect();
      return timeOneTake(ws, requestId, text, voiceId, mode, timeoutMs);
    },
    async close() {
      ws.close();
      await api(o, bearer, 'DELETE', `/v1/speak/voices/${voiceId}`).catch(() => undefined);
    },
  };
}

/**
 * Sends warm-up takes, then `requests` takes one after another over one connection (a new one when
 * the worker dropped it) and times each to its first audio frame; failed takes are counted, not
 * measured. Deletes its voice.
 */
export async function measureNodeTtfc(o: NodeTtfcOptions): Promise<NodeTtfcResult> {
  const texts = loadTakeData().texts[o.textSet ?? 'short'];
  if (!texts?.length) throw new Error(`load/data/takes.json has no text set ${o.textSet}`);
  const mode = o.mode ?? 'chunks';
  const session = await openTtfcSession(o);
  const result: NodeTtfcResult = { samples: [], failures: [] };
  try {
    const warmUp = o.warmUp ?? 2;
    for (let i = 0; i < warmUp + o.requests; i++) {
      const measured = i >= warmUp;
      const text = measured ? texts[(i - warmUp) % texts.length]! : 'Warming up.';
      try {
        const timing = await session.take(`node-${i}`, text, mode);
        if (measured) result.samples.push(timing.firstAudioMs);
      } catch (err) {
        if (measured) result.failures.push(`take ${i - warmUp}: ${(err as Error).message}`);
      }
    }
    return result;
  } finally {
    await session.close();
  }
}
