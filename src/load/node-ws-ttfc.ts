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

export interface NodeTtfcOptions extends TargetCredentials {
  baseUrl: string;
  requests: number;
  mode?: 'parts' | 'chunks';
  textSet?: string;
  requestTimeoutMs?: number;
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
  o: NodeTtfcOptions,
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

async function accessToken(o: NodeTtfcOptions): Promise<string> {
  if (o.token) return o.token;
  const res = await api(o, undefined, 'POST', '/auth/login', { email: o.email, password: o.password });
  if (res.status !== 200) throw new Error(`login failed: HTTP ${res.status}`);
  return (res.json as { access_token: string }).access_token;
}

async function readyVoice(
  o: NodeTtfcOptions,
  bearer: string,
  model: string,
  data: TakeData,
): Promise<string> {
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

/** One take over an open socket; resolves with the time to its first audio frame in ms. */
function timeOneTake(
  ws: WebSocket,
  requestId: string,
  text: string,
  voiceId: string,
  mode: string,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let firstAudio: number | undefined;
    let ended = false;
    let ready = false;
    const timer = setTimeout(() => done(new Error(`no end of take within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
      const now = performance.now();
      if (!isBinary) {
        const message = JSON.parse(data.toString()) as {
          request_id?: unknown;
          status?: string;
          data?: { status?: string };
        };
        if (message.request_id !== undefined && message.request_id !== requestId) return;
        const status = message.data?.status ?? (message.status === 'error' ? 'error' : undefined);
        if (status === 'error' || status === 'timeout') return done(new Error(`take ended in ${status}`));
        if (status === 'ready') ready = true;
      } else {
        const frame = decodeAudioFrame(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]));
        if (frame.metadata.request_id !== null && frame.metadata.request_id !== requestId) return;
        const chunk = frame.metadata.chunk_id;
        if (frame.audio.length === 0 && (chunk === undefined || chunk === null || chunk === 0)) ended = true;
        else if (frame.audio.length > 0 && firstAudio === undefined) firstAudio = now - sentAt;
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
      else resolve(firstAudio);
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

/**
 * Sends warm-up takes, then `requests` takes one after another over one connection (a new one when
 * the worker dropped it) and times each; failed takes are counted, not measured. Deletes its voice.
 */
export async function measureNodeTtfc(o: NodeTtfcOptions): Promise<NodeTtfcResult> {
  const data = loadTakeData();
  const texts = data.texts[o.textSet ?? 'short'];
  if (!texts?.length) throw new Error(`load/data/takes.json has no text set ${o.textSet}`);
  const mode = o.mode ?? 'chunks';
  const timeoutMs = o.requestTimeoutMs ?? 30_000;
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
  const result: NodeTtfcResult = { samples: [], failures: [] };
  try {
    const warmUp = o.warmUp ?? 2;
    for (let i = 0; i < warmUp + o.requests; i++) {
      if (ws.readyState !== WebSocket.OPEN) ws = await connect();
      const measured = i >= warmUp;
      const text = measured ? texts[(i - warmUp) % texts.length]! : 'Warming up.';
      try {
        const ms = await timeOneTake(ws, `node-${i}`, text, voiceId, mode, timeoutMs);
        if (measured) result.samples.push(ms);
      } catch (err) {
        if (measured) result.failures.push(`take ${i - warmUp}: ${(err as Error).message}`);
      }
    }
    return result;
  } finally {
    ws.close();
    await api(o, bearer, 'DELETE', `/v1/speak/voices/${voiceId}`).catch(() => undefined);
  }
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
