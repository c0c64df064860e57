/**
 * Websocket time to first audio of a Speak server, measured from outside with the one Node TTFC
 * client (src/load/node-ws-ttfc.ts, also behind `speakcheck load --crosscheck`).
 *   node --import tsx src/bench/ws-ttfc-bench.ts [--runs 30] [--base-url URL --email E --password P]
 * Without --base-url it starts the embedded reference stack (`speakcheck serve`) and stops it after.
 * One connection, one-sentence text, requests one after another; per mode (chunks, parts):
 *   first frame = send → first binary frame with audio (in chunks mode that is chunk 0, the header);
 *   playable = send → first PLAYABLE audio: part 0's chunk 0 (the WAV header) and then the first
 *              audio bytes of part 0 (chunk 1), in order — what a player needs to start; in parts
 *              mode the part-0 WAV;
 *   first status = send → the first Take message (the take is stored).
 * Against the embedded stack the bench also reports espeak's own times, interleaved with the requests
 * so all three see the same machine load: first samples (synthesizePart() → first onSamples) and
 * first-part synthesis (→ resolved, the whole sentence), same sentence and voice rendering. They come
 * from reference/bench/espeak-timer.ts in a child process (the harness does not import reference/).
 * Chunks mode synthesizes a part before sending its header, so its playable time is bounded below by
 * the first-part synthesis time; the target is playable p50 ≤ first-part synthesis p50 + 5 ms.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { openTtfcSession, type TakeTiming } from '../load/node-ws-ttfc.ts';
import { REPO_ROOT, startEmbeddedStack } from '../stack/embedded.ts';
import { ESPEAK_V8_PRELOAD, machineLine } from './run-bench.ts';

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
const MODES = ['chunks', 'parts'] as const;

/** Nearest-rank percentile, as the figures in the READMEs were taken. */
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const summary = (values: number[]) =>
  `p50 ${percentile(values, 50).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms (n=${values.length})`;

interface EspeakTimes {
  firstSamplesMs: number;
  synthesisMs: number;
}

/** reference/bench/espeak-timer.ts as a child: one line in, one line of times out. */
function startEspeakTimer(): { time(seed: string): Promise<EspeakTimes>; stop(): void } {
  const child = spawn(
    process.execPath,
    ['--import', ESPEAK_V8_PRELOAD, '--import', 'tsx', join(REPO_ROOT, 'reference/bench/espeak-timer.ts')],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async time(seed) {
      child.stdin.write(`${JSON.stringify({ text: TEXT, seed })}\n`);
      const answer = await answers.next();
      if (answer.done) throw new Error('reference/bench/espeak-timer.ts ended without an answer');
      return JSON.parse(answer.value) as EspeakTimes;
    },
    stop: () => child.stdin.end(),
  };
}

const stack = args['base-url'] ? undefined : await startEmbeddedStack();
const session = await openTtfcSession({
  baseUrl: args['base-url'] ?? stack!.baseUrl,
  email: args.email ?? stack?.email,
  password: args.password ?? stack?.password,
});
const espeak = stack ? startEspeakTimer() : undefined;
try {
  console.log(machineLine());
  console.log(`inputs: ${RUNS} requests per mode, one connection, text ${JSON.stringify(TEXT)}`);
  // Warm-up: the worker's first request loads the voice's dictionary.
  for (let i = 0; i < 3; i++) await session.take(`warm-${i}`, TEXT, 'chunks');
  const timings: Record<(typeof MODES)[number], TakeTiming[]> = { chunks: [], parts: [] };
  const espeakTimes: EspeakTimes[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const mode of MODES) timings[mode].push(await session.take(`${mode}-${i}`, TEXT, mode));
    if (espeak) espeakTimes.push(await espeak.time(session.voiceId));
  }
  for (const mode of MODES) {
    const t = timings[mode];
    console.log(
      `${mode}: first frame ${summary(t.map((x) => x.firstAudioMs))}; first playable ${summary(t.map((x) => x.playableMs))}; first status ${summary(t.map((x) => x.statusMs))}`,
    );
  }
  if (espeakTimes.length > 0) {
    const wholes = espeakTimes.map((e) => e.synthesisMs);
    console.log(
      `espeak first samples (same machine, same voice): ${summary(espeakTimes.map((e) => e.firstSamplesMs))}`,
    );
    console.log(
      `espeak first-part synthesis (same machine, same voice, the whole sentence): ${summary(wholes)}`,
    );
    const margin =
      percentile(
        timings.chunks.map((t) => t.playableMs),
        50,
      ) - percentile(wholes, 50);
    console.log(
      `target chunks first playable p50 ≤ first-part synthesis p50 + 5 ms: ${margin <= 5 ? 'met' : 'MISSED'} (${margin >= 0 ? '+' : ''}${margin.toFixed(2)} ms)`,
    );
  }
} finally {
  espeak?.stop();
  await session.close();
  await stack?.stop();
}
