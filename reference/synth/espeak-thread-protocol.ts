/** Messages between EspeakSynthesizer (owner) and espeak-thread.ts (worker thread). */
import type { EspeakSettings, EspeakVoiceEntry } from './espeak-settings.ts';

export type ThreadRequest =
  | { type: 'part'; id: number; text: string; settings: EspeakSettings }
  | { type: 'memory'; id: number };

export type ThreadReply =
  | { type: 'ready'; sampleRate: number; catalogue: EspeakVoiceEntry[] }
  | { type: 'samples'; id: number; pcm: Int16Array }
  | { type: 'done'; id: number; samples: number }
  | { type: 'error'; id: number; message: string }
  | { type: 'memory'; id: number; wasmHeapBytes: number };
