/**
 * The synthesis library of the reference stack (seam: docs/dev/contracts.md). Speech comes from
 * espeak-ng (WASM) at 22050 Hz, mono, 16-bit; a text is spoken part by part (sentences).
 */
export {
  createSynthesizer,
  espeakData,
  type Synthesizer,
  TRAILING_SILENCE_MS,
} from './espeak-synthesizer.ts';
export { splitIntoParts } from './split.ts';
export { outputSampleRate, SAMPLE_RATE, type VoiceRendering } from './voice-rendering.ts';
