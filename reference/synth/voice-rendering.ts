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
