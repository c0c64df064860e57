/**
 * Websocket time to first audio against the running reference stack.
 *   node --import tsx reference/bench/ws-ttfc-bench.ts [--runs 30] [--base-url URL --email E --password P]
 * Without --base-url it starts `speakcheck serve --port 0` as a child process (and stops it).
 * One connection, one-sentence text, requests one after another; per mode (chunks, parts):
 *   first frame = send → first binary frame with audio (in chunks mode that is chunk 0, the header);
 *   playable = send → time to first PLAYABLE audio: part 0's chunk 0 (the WAV header) and then the
 *              first audio bytes of part 0 (chunk 1), in order — what a player needs to start; in parts
 *              mode the part-0 WAV;
 * beside espeak's own times in this process, same run: first samples (synthesizePart() → first
 * onSamples) and first-part synthesis (synthesizePart() → resolved, the whole sentence). Chunks mode
 * synthesizes a part before sending its header (part-stream.ts), so its playable time is bounded below
 * by the first-part synthesis time; the target is playable p50 ≤ first-part synthesis p50 + 5 ms.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createSynthesizer } from '../synth/index.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    'base-url': { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
  },
});
const RUNS = Number(args.runs);
const TEXT = 'The quick brown fox jumps over the lazy dog near the river bank.';
const STEP_TIMEOUT_MS = 30_000;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms (n=${values.length})`;

function withTimeout<T>(promise: Promise<T>, what: string, ms = STEP_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function startStack(): Promise<{
  baseUrl: string;
  email: string;
  password: string;
  child: ChildProcess;
}> {
  const bin = fileURLToPath(new URL('../../bin/speakcheck.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const fields: Record<string, string> = {};
  const lines = createInterface({ input: child.stdout! });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it was ready`)));
      lines.on('line', (line) => {
        const m = /^(base_url|email|password)=(.+)$/.exec(line.trim());
        if (m) fields[m[1]!] = m[2]!;
        if (fields.base_url && fields.email && fields.password) resolve();
      });
    }),
    'speakcheck serve',
    60_000,
  );
  lines.close();
  child.stdout!.resume();
  return {
    baseUrl: fields.base_url!.replace(/\/+$/, ''),
    email: fields.email!,
    password: fields.password!,
    child,
  };
}

async function api(baseUrl: string, token: string | undefined, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

async function readyVoice(baseUrl: string, token: string, model: string): Promise<string> {
  const voice = await api(baseUrl, token, 'POST', '/v1/speak/voices/generate', {
    name: 'ttfc-bench',
    gender: 'female',
    model,
  });
  const id = String(voice.voice_id);
  // The voice is ready when its example take is: on a busy machine that can take a while.
  const deadline = Date.now() + 4 * STEP_TIMEOUT_MS;
  for (;;) {
    const now = await api(baseUrl, token, 'GET', `/v1/speak/voices/${id}`);
    if (now.status === 'ready') return id;
    if (Date.now() > deadline) throw new Error(`voice ${id} not ready within ${4 * STEP_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Timing {
  ttfc: number;
  playable: number;
  /** send → the first Take message (waiting): the take is stored. */
  status: number;
}

async function measure(
  ws: WebSocket,
  voiceId: string,
  mode: 'chunks' | 'parts',
  requestId: string,
): Promise<Timing> {
  const sent = performance.now();
  let ttfc = -1;
  let header = -1;
  let samples = -1;
  let status = -1;
  const done = new Promise<void>((resolve, reject) => {
    let ready = false;
    let ended = false;
    const onMessage = (data: Buffer, isBinary: boolean) => {
      const at = performance.now() - sent;
      if (!isBinary) {
        const message = JSON.parse(data.toString()) as {
          request_id?: unknown;
          status?: string;
          data?: { status?: string };
        };
        if (message.request_id !== requestId) return;
        if (message.status === 'error') reject(new Error(`request ${requestId}: ${data.toString()}`));
        if (message.data?.status && status < 0) status = at;
        if (message.data?.status === 'ready') ready = true;
      } else {
        const length = data.readUInt32LE(4);
        const meta = JSON.parse(data.subarray(8, 8 + length).toString()) as {
          request_id: unknown;
          part_id: number;
          chunk_id?: number;
        };
        if (meta.request_id !== requestId) return;
        const audio = data.length - 8 - length;
        if (audio > 0 && ttfc < 0) ttfc = at;
        if (meta.part_id === 0 && (meta.chunk_id ?? 0) === 0 && audio > 0 && header < 0) header = at;
        // The first audio bytes: in the header frame itself (parts mode), else chunk 1.
        if (meta.part_id === 0 && audio > 44 && samples < 0) samples = at;
        if (meta.part_id === 0 && meta.chunk_id === 1 && audio > 0 && samples < 0) samples = at;
        if (meta.part_id > 0 && audio === 0 && (meta.chunk_id ?? 0) === 0) ended = true;
      }
      if (ready && ended) {
        ws.off('message', onMessage);
        resolve();
      }
    };
    ws.on('message', onMessage);
  });
  ws.send(
    JSON.stringify({
      command: '/takes/generate',
      request_id: requestId,
      stream: { mode },
      data: { text: TEXT, voice_id: voiceId },
    }),
  );
  await withTimeout(done, `request ${requestId}`);
  return { ttfc, playable: Math.max(header, samples), status };
}

const own = args['base-url'] ? undefined : await startStack();
const baseUrl = args['base-url'] ?? own!.baseUrl;
const email = args.email ?? own?.email;
const password = args.password ?? own?.password;
try {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}`);
  console.log(`inputs: ${RUNS} requests per mode, one connection, text ${JSON.stringify(TEXT)}`);
  const { access_token: token } = (await api(baseUrl, undefined, 'POST', '/auth/login', {
    email,
    password,
  })) as {
    access_token: string;
  };
  const models = (await api(baseUrl, token, 'GET', '/v1/speak/models')) as unknown as { name: string }[];
  const model = models[0]!.name;
  const voiceId = await readyVoice(baseUrl, token, model);
  const { websocket_url: url } = (await api(
    baseUrl,
    token,
    'GET',
    `/v1/speak/websocket?model=${encodeURIComponent(model)}`,
  )) as {
    websocket_url: string;
  };
  const ws = new WebSocket(url);
  await withTimeout(once(ws, 'open'), 'websocket open');
  // Warm-up: the worker's first request loads the voice's dictionary.
  for (let i = 0; i < 3; i++) await measure(ws, voiceId, 'chunks', `warm-${i}`);
  // Interleaved, so the three see the same machine load: a chunks request, a parts request, then
  // espeak speaking the same sentence with the same voice rendering (seed = voice id, as a take's).
  const synth = await createSynthesizer();
  const rendering = {
    language: 'en-US',
    gender: 'female' as const,
    prosody: null,
    style: null,
    seed: voiceId,
  };
  const timings: Record<'chunks' | 'parts', Timing[]> = { chunks: [], parts: [] };
  const firsts: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ['chunks', 'parts'] as const)
      timings[mode].push(await measure(ws, voiceId, mode, `${mode}-${i}`));
    const started = performance.now();
    let first = -1;
    await synth.synthesizePart(TEXT, rendering, () => {
      if (first < 0) first = performance.now() - started;
    });
    wholes.push(performance.now() - started);
    firsts.push(first);
  }
  ws.close();
  await synth.close();
  for (const mode of ['chunks', 'parts'] as const) {
    const t = timings[mode];
    console.log(
      `${mode}: first frame ${summary(t.map((x) => x.ttfc))}; first playable ${summary(t.map((x) => x.playable))}; first status ${summary(t.map((x) => x.status))}`,
    );
  }
  const playable = { chunks: timings.chunks.map((t) => t.playable) };
  console.log(`espeak first samples (this process, same voice): ${summary(firsts)}`);
  console.log(
    `espeak first-part synthesis (this process, same voice, the whole sentence): ${summary(wholes)}`,
  );
  const margin = percentile(playable.chunks!, 50) - percentile(wholes, 50);
  console.log(
    `target chunks first playable p50 ≤ first-part synthesis p50 + 5 ms: ${margin <= 5 ? 'met' : 'MISSED'} (${margin >= 0 ? '+' : ''}${margin.toFixed(2)} ms)`,
  );
} finally {
  if (own) {
    own.child.kill('SIGTERM');
    await withTimeout(once(own.child, 'exit'), 'serve shutdown', 10_000).catch(() =>
      own.child.kill('SIGKILL'),
    );
  }
}
