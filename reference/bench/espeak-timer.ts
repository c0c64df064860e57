/**
 * espeak's own times for one sentence, on request, for a bench on the harness side that interleaves
 * them with its websocket requests (src/bench/ws-ttfc-bench.ts: it measures the server from outside
 * and may not import reference/, so it talks to this process over stdin/stdout).
 *   node --import ./reference/synth/espeak-v8-preload.mjs --import tsx reference/bench/espeak-timer.ts
 * (the preload: espeak's V8 flags, as the stack's processes have them: ../synth/espeak-v8.mjs)
 * Each stdin line is JSON `{"text": "...", "seed": "<voice id>"}`; each answer one stdout line
 * `{"firstSamplesMs": n, "synthesisMs": n}`: synthesizePart() → first onSamples, and → resolved (the
 * whole sentence), with the voice rendering a take of that voice gets (seed = voice id).
 */
import { createInterface } from 'node:readline';
import { createSynthesizer } from '../synth/index.ts';

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
