import { latitude } from '../latitude/index.ts';

/** What a voice + take ask for, independent of the synthesizer that renders it. */
export interface VoiceRendering {
  /** A model language code, e.g. 'en-US', 'de'. */
  language: string;
  gender: 'female' | 'male' | 'nonbinary';
  /** Any prosody type (simple, affect, signal); every field -10..10. */
  prosody: Record<string, number> | null;
  style: string[] | null;
  /** e.g. the voice_id: picks a stable espeak variant. */
  seed: string;
}

/** espeak-ng mono 16-bit PCM at its native rate. */
export const SAMPLE_RATE = 22050;

/**
 * The rate of the audio the service delivers ("audio_rate | integer (sample rate in Hz)"): espeak's
 * own, or twice it (44100 Hz, each sample doubled) with latitude sample-rate-44100.
 */
export function outputSampleRate(): number {
  return latitude.has('sample-rate-44100') ? SAMPLE_RATE * 2 : SAMPLE_RATE;
}

/** espeak's samples at outputSampleRate(). */
export function toOutputRate(pcm: Int16Array): Int16Array {
  if (!latitude.has('sample-rate-44100')) return pcm;
  const doubled = new Int16Array(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) doubled[2 * i] = doubled[2 * i + 1] = pcm[i]!;
  return doubled;
}
