/**
 * The Node side of the k6 cross-check: the harness's own websocket stream client
 * (src/client/ws-stream.ts, performance.now() stamps) sends the same kind of requests the
 * ttfc-websocket scenario sends (texts from load/data/takes.json, one connection, one request after
 * another) and reports its time to first chunk: request sent → first non-empty audio frame.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeHttp } from '../client/http.ts';
import { HttpSpeakClient } from '../client/speak-client.ts';
import { fetchWebsocketUrl, SpeakStreamConnection } from '../client/ws-stream.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import type { TargetCredentials } from './run-load.ts';

export interface NodeTtfcOptions extends TargetCredentials {
  baseUrl: string;
  requests: number;
  mode?: 'parts' | 'chunks';
  textSet?: string;
}

interface TakeData {
  voice: { name: string; gender: string };
  texts: Record<string, string[]>;
}

export function loadTakeData(): TakeData {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'load', 'data', 'takes.json'), 'utf8')) as TakeData;
}

async function readyVoice(api: HttpSpeakClient, model: string, data: TakeData): Promise<string> {
  const created = await api.post('/v1/speak/voices/generate', {
    name: `${data.voice.name}-node-${Date.now()}`,
    gender: data.voice.gender,
    model,
  });
  if (created.status < 200 || created.status >= 300)
    throw new Error(`voice generation: HTTP ${created.status}`);
  const id = (created.json as { voice_id: string }).voice_id;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = ((await api.get(`/v1/speak/voices/${id}`)).json as { status?: string } | undefined)
      ?.status;
    if (status === 'ready') return id;
    if (status === 'error' || status === 'timeout' || Date.now() > deadline) {
      throw new Error(`voice ${id} did not become ready (status ${status})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface NodeTtfcResult {
  /** Time to first audio frame (ms) of each take that streamed. */
  samples: number[];
  /** Why the other takes did not (the take failed, the connection dropped). */
  failures: string[];
}

/**
 * Sends `requests` takes one after another over one connection (a new one if the worker dropped it)
 * and times each. Failed takes are counted, not measured. Deletes the voice it made.
 */
export async function measureNodeTtfc(o: NodeTtfcOptions): Promise<NodeTtfcResult> {
  const data = loadTakeData();
  const texts = data.texts[o.textSet ?? 'short'];
  if (!texts?.length) throw new Error(`load/data/takes.json has no text set ${o.textSet}`);
  const mode = o.mode ?? 'chunks';
  const api = await HttpSpeakClient.login(
    { baseUrl: o.baseUrl, authUrl: o.authUrl ?? o.baseUrl, requestTimeoutMs: 30_000 },
    { email: o.email, password: o.password, token: o.token },
  );
  try {
    const models = (await api.get('/v1/speak/models')).json as { name: string }[];
    const model = o.model ?? models[0]?.name;
    if (!model) throw new Error('the server lists no models');
    const voiceId = await readyVoice(api, model, data);
    const connect = async () =>
      SpeakStreamConnection.connect(await fetchWebsocketUrl(api, model), { timeoutMs: 10_000 });
    let connection = await connect();
    const result: NodeTtfcResult = { samples: [], failures: [] };
    try {
      for (let i = 0; i < o.requests; i++) {
        if (!connection.open) connection = await connect();
        const r = await connection.generate(
          { text: texts[i % texts.length], voice_id: voiceId },
          { requestId: `node-${i}`, mode },
        );
        if (r.outcome === 'ended' && r.timings.firstAudioMs !== undefined)
          result.samples.push(r.timings.firstAudioMs);
        else result.failures.push(`take ${i}: ${r.outcome}${r.diagnostic ? ` (${r.diagnostic})` : ''}`);
      }
      return result;
    } finally {
      await connection.close();
      await api.delete(`/v1/speak/voices/${voiceId}`).catch(() => undefined);
    }
  } finally {
    await closeHttp();
  }
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
