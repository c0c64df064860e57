/**
 * espeak's own times for one sentence, on request, for a bench on the harness side that interleaves
 * them with its websocket requests (src/bench/ws-ttfc-bench.ts: it measures the server from outside
 * and may not import reference/, so it talks to this process over stdin/stdout).
 *   node --import tsx reference/bench/espeak-timer.ts
 * Each stdin line is JSON `{"text": "...", "seed": "<voice id>"}`; each answer one stdout line
 * `{"firstSamplesMs": n, "synthesisMs": n}`: synthesizePart() → first onSamples, and → resolved (the
 * whole sentence), with the voice rendering a take of that voice gets (seed = voice id).
 */
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { ESPEAK_V8_FLAGS } from '../synth/espeak-v8.mjs';
import { createSynthesizer } from '../synth/index.ts';

// espeak timed as the stack runs it (../synth/espeak-v8.mjs), before any function is hot.
for (const flag of ESPEAK_V8_FLAGS) setFlagsFromString(flag);

const synth = await createSynthesizer();
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { text, seed } = JSON.parse(line) as { text: string; seed: string };
  const rendering = { language: 'en-US', gender: 'female' as const, prosody: null, style: null, seed };
  const started = performance.now();
  let firstSamplesMs = -1;
  await synth.synthesizePart(text, rendering, () => {
    if (firstSamplesMs < 0) firstSamplesMs = performance.now() - started;
  });
  process.stdout.write(`${JSON.stringify({ firstSamplesMs, synthesisMs: performance.now() - started })}\n`);
}
await synth.close();
