/**
 * REST figures of the reference stack on this machine.
 *   node --import tsx reference/bench/rest-bench.ts [--runs 50] [--workers 2] [--batch 16]
 * Prints: machine (CPU, cores, load average, Node); POST /takes/generate → ready (seen by polling GET
 * every 2 ms) for a 1-sentence and a 10-sentence take, p50/p95 over --runs sequential runs; synthesis
 * throughput = audio seconds of a batch of 10-sentence takes / wall seconds from POST to all ready,
 * with --workers workers. The stack runs in this process (API) with its worker child processes.
 * Targets (issue 2): 1-sentence p50 <= 100 ms; >= 150 audio s/s with 2 workers.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startReferenceStack } from '../server.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '50' },
    workers: { type: 'string', default: '2' },
    batch: { type: 'string', default: '16' },
  },
});
const RUNS = Number(values.runs);
const WORKERS = Number(values.workers);
const BATCH = Number(values.batch);
const ONE = 'The quick brown fox jumps over the lazy dog near the river bank.';
const TEN = Array.from(
  { length: 10 },
  (_, i) => `This is sentence number ${i + 1} of the benchmark paragraph.`,
).join(' ');

type Json = Record<string, unknown>;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

console.log(
  `command: node --import tsx reference/bench/rest-bench.ts --runs ${RUNS} --workers ${WORKERS} --batch ${BATCH}`,
);
console.log(
  `machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);

const stack = await startReferenceStack({ workers: WORKERS });
try {
  const base = stack.baseUrl;
  const login = (await (
    await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: stack.users[0]!.email, password: stack.users[0]!.password }),
    })
  ).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${login.access_token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as
      | Json
      | Json[];
  const get = async (path: string) =>
    (await (await fetch(`${base}${path}`, { headers })).json()) as Json | Json[];
  const untilDone = async (path: string, timeoutMs = 120_000): Promise<Json> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const body = (await get(path)) as Json;
      if (['ready', 'error', 'timeout'].includes(String(body.status))) return body;
      if (Date.now() > deadline) throw new Error(`${path} not done in ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };

  const voice = (await post('/v1/speak/voices/generate', {
    name: 'Bench',
    gender: 'female',
    model: 'english-gb-v2.1',
  })) as Json;
  await untilDone(`/v1/speak/voices/${voice.voice_id}`);

  for (const [label, text] of [
    ['1 sentence', ONE],
    ['10 sentences', TEN],
  ] as const) {
    const times: number[] = [];
    let audioSeconds = 0;
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const take = (await post('/v1/speak/takes/generate', { voice_id: voice.voice_id, text })) as Json;
      const done = await untilDone(`/v1/speak/takes/${take.take_id}`);
      times.push(performance.now() - started);
      if (done.status !== 'ready') throw new Error(`take ${take.take_id} ended in ${done.status}`);
      audioSeconds = Number((done.info as Json).duration) / 22050;
    }
    console.log(
      `POST → ready, ${label} (${audioSeconds.toFixed(2)} s of audio), ${RUNS} runs: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
    );
  }

  const started = performance.now();
  const batch = (await post(
    '/v1/speak/takes/generate',
    Array.from({ length: BATCH }, () => ({ voice_id: voice.voice_id, text: TEN })),
  )) as Json[];
  let audio = 0;
  for (const take of batch) {
    const done = await untilDone(`/v1/speak/takes/${take.take_id}`, 600_000);
    audio += Number((done.info as Json).duration) / 22050;
  }
  const wall = (performance.now() - started) / 1000;
  const workersUsed = new Set<string>();
  for (const take of batch) {
    const response = await fetch(`${base}/v1/speak/takes/${take.take_id}`, { headers });
    workersUsed.add(response.headers.get('x-speak-worker') ?? '?');
    await response.arrayBuffer();
  }
  console.log(
    `throughput, ${BATCH} takes of 10 sentences with ${WORKERS} workers: ${audio.toFixed(1)} s of audio in ${wall.toFixed(2)} s = ${(audio / wall).toFixed(1)} audio s/s (workers used: ${[...workersUsed].sort().join(', ')})`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await stack.close();
}
