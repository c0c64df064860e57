/**
 * Synthesis and encoding figures of this machine.
 *   node --import tsx reference/bench/synth-bench.ts
 * Prints: machine; espeak first-samples latency (synthesizePart() call → first onSamples) p50/p95;
 * synthesis speed (audio seconds per wall second) with one synthesizer and with two at once (each
 * synthesizer is its own worker thread, so two show the 2-core scaling); encode time per format for a
 * 10 s clip.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWavFile } from '../audio/encode.ts';
import type { AudioFormat } from '../audio/formats.ts';
import { wavFile } from '../audio/wav.ts';
import { createSynthesizer, SAMPLE_RATE, type Synthesizer, type VoiceRendering } from '../synth/index.ts';

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';
const PARAGRAPH = [
  'Speech synthesis turns written text into audio.',
  'This benchmark speaks several sentences of ordinary length, one after another.',
  'Each sentence is one part, and each part ends in a short silence.',
  'The figures show how fast the engine works on this machine.',
];
const LATENCY_RUNS = 40;
const SPEED_ROUNDS = 3;
const ENCODE_RUNS = 3;
const VOICE: VoiceRendering = {
  language: 'en-US',
  gender: 'female',
  prosody: null,
  style: null,
  seed: 'bench',
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function firstSamplesLatency(synth: Synthesizer): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    const started = performance.now();
    let first = -1;
    await synth.synthesizePart(SENTENCE, VOICE, () => {
      if (first < 0) first = performance.now() - started;
    });
    times.push(first);
  }
  return times;
}

/** Speaks the paragraph SPEED_ROUNDS times; returns audio seconds produced. */
async function speakParagraph(synth: Synthesizer): Promise<number> {
  let samples = 0;
  for (let round = 0; round < SPEED_ROUNDS; round++) {
    for (const part of PARAGRAPH) samples += await synth.synthesizePart(part, VOICE, () => {});
  }
  return samples / SAMPLE_RATE;
}

async function speed(synths: Synthesizer[]): Promise<{ audioSeconds: number; wallSeconds: number }> {
  const started = performance.now();
  const audio = await Promise.all(synths.map(speakParagraph));
  return {
    audioSeconds: audio.reduce((a, b) => a + b, 0),
    wallSeconds: (performance.now() - started) / 1000,
  };
}

async function tenSecondClip(synth: Synthesizer): Promise<Int16Array[]> {
  const chunks: Int16Array[] = [];
  let samples = 0;
  for (let i = 0; samples < 10 * SAMPLE_RATE; i++) {
    await synth.synthesizePart(PARAGRAPH[i % PARAGRAPH.length]!, VOICE, (pcm) => {
      const room = 10 * SAMPLE_RATE - samples;
      if (room <= 0) return;
      const kept = pcm.subarray(0, room);
      chunks.push(kept);
      samples += kept.length;
    });
  }
  return chunks;
}

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}`);
console.log(
  `inputs: latency sentence ${JSON.stringify(SENTENCE)} x${LATENCY_RUNS} (en-US, one voice, warm);`,
);
console.log(`        speed: ${PARAGRAPH.length}-sentence paragraph x${SPEED_ROUNDS} per synthesizer`);

const startedCreate = performance.now();
const one = await createSynthesizer();
console.log(`createSynthesizer (thread start + warm-up): ${ms(performance.now() - startedCreate)}`);

const latency = await firstSamplesLatency(one);
console.log(
  `first-samples latency: p50 ${ms(percentile(latency, 50))}, p95 ${ms(percentile(latency, 95))}, max ${ms(Math.max(...latency))}`,
);

const single = await speed([one]);
console.log(
  `speed, 1 synthesizer: ${(single.audioSeconds / single.wallSeconds).toFixed(1)} audio s per wall s (${single.audioSeconds.toFixed(1)} s audio in ${single.wallSeconds.toFixed(2)} s)`,
);
const two = await createSynthesizer();
const pair = await speed([one, two]);
console.log(
  `speed, 2 synthesizers in 2 worker threads: ${(pair.audioSeconds / pair.wallSeconds).toFixed(1)} audio s per wall s ` +
    `(x${(pair.audioSeconds / pair.wallSeconds / (single.audioSeconds / single.wallSeconds)).toFixed(2)} of one)`,
);
await two.close();

const dir = mkdtempSync(join(tmpdir(), 'speakcheck-bench-'));
try {
  const wav = join(dir, 'clip.wav');
  writeFileSync(wav, wavFile(SAMPLE_RATE, await tenSecondClip(one)));
  for (const format of ['mp3', 'm4a', 'flac', 'webm'] as Exclude<AudioFormat, 'wav'>[]) {
    const times: number[] = [];
    for (let i = 0; i < ENCODE_RUNS; i++) {
      const started = performance.now();
      await encodeWavFile(wav, format, join(dir, `clip.${format}`));
      times.push(performance.now() - started);
    }
    console.log(`encode 10 s clip → ${format}: median ${ms(percentile(times, 50))} (of ${ENCODE_RUNS})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await one.close();
}
