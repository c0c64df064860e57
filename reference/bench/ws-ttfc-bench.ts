/**
 * Websocket time to first chunk against the running reference stack.
 *   node --import tsx reference/bench/ws-ttfc-bench.ts [--runs 30] [--base-url URL --email E --password P]
 * Without --base-url it starts `speakcheck serve --port 0` as a child process (and stops it).
 * One connection, one-sentence text, requests one after another; per mode (chunks, parts):
 *   TTFC     = send → first binary frame with audio;
 *   playable = send → the part-0 WAV header and at least one chunk of samples are both there
 *              (chunks mode sends the exact-size header when the part is done; see part-stream.ts);
 * beside espeak's own first-samples time (synthesizePart() → first onSamples) in this process.
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
        if (meta.part_id === 0 && audio > 44 && samples < 0) samples = at;
        if (meta.part_id === 0 && mode === 'chunks' && (meta.chunk_id ?? 0) > 0 && audio > 0 && samples < 0)
          samples = at;
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
  return { ttfc, playable: Math.max(header, samples) };
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
  for (const mode of ['chunks', 'parts'] as const) {
    const timings: Timing[] = [];
    for (let i = 0; i < RUNS; i++) timings.push(await measure(ws, voiceId, mode, `${mode}-${i}`));
    console.log(
      `${mode}: TTFC ${summary(timings.map((t) => t.ttfc))}; first playable ${summary(timings.map((t) => t.playable))}`,
    );
  }
  ws.close();

  const synth = await createSynthesizer();
  const firsts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    let first = -1;
    await synth.synthesizePart(
      TEXT,
      { language: 'en-US', gender: 'female', prosody: null, style: null, seed: 'bench' },
      () => {
        if (first < 0) first = performance.now() - started;
      },
    );
    firsts.push(first);
  }
  await synth.close();
  console.log(`espeak first samples (this process): ${summary(firsts)}`);
} finally {
  if (own) {
    own.child.kill('SIGTERM');
    await withTimeout(once(own.child, 'exit'), 'serve shutdown', 10_000).catch(() =>
      own.child.kill('SIGKILL'),
    );
  }
}
