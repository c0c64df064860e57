/**
 * What the websocket worker needs from the rest of the stack (stores, validation, audio storage).
 * The worker only streams; takes and voices it makes are created, advanced and stored through this
 * service exactly as REST ones are (same tables, same item events, same audio blobs), for the user who
 * owns the URL's secret. store-service.ts implements it on the stack's stores.
 */
import type { VoiceRendering } from '../../synth/index.ts';

export type Json = Record<string, unknown>;

/** A take ready to be spoken: as GET returns it now (waiting), plus what synthesis needs. */
export interface TakeToSpeak {
  takeId: string;
  take: Json;
  /** splitIntoParts(text): info.normalized_text. */
  parts: string[];
  voice: VoiceRendering;
}

export type Created<T> = { ok: true; value: T } | { ok: false; message: string };

export type ProgressStatus = 'started' | 'progress_25' | 'progress_50' | 'progress_75';

export interface TakeInfo {
  duration: number; // samples
  audio_rate: number;
  normalized_text: string[];
}

/** The take's stored audio: exactly the samples that were streamed, in order. */
export interface TakeAudioWriter {
  write(pcm: Int16Array): void;
  /** Writes the final header; the file is then complete. */
  finish(): void;
  /** Closes without completing (the take failed). */
  abort(): void;
}

export interface WebsocketTakeService {
  /** Validates a TakeGenerate for this user and model (the voice must be the user's and of `model`)
   *  and creates the take in `waiting`, without queueing it for the REST workers. */
  createTake(userId: string, model: string, body: unknown): Promise<Created<TakeToSpeak>>;
  /** Validates a VoiceGenerate and creates the voice (waiting) and its example take (waiting). */
  createVoice(
    userId: string,
    model: string,
    body: unknown,
  ): Promise<Created<{ voice: Json; example: TakeToSpeak }>>;
  /** Moves a take forward; returns it as GET would now. */
  advanceTake(takeId: string, status: ProgressStatus): Promise<Json>;
  /** Where the take's audio goes while it is spoken (REST can stream the wav before ready). */
  openTakeAudio(takeId: string): TakeAudioWriter;
  /** Fills info and marks the take ready (its audio finished); returns the Take. */
  completeTake(takeId: string, info: TakeInfo): Promise<Json>;
  /** Marks a take failed (status error); returns it, or undefined when it no longer exists. */
  failTake(takeId: string, reason: string): Promise<Json | undefined>;
  /** The voice as GET returns it now (after its example take changed). */
  getVoice(voiceId: string): Promise<Json | undefined>;
}
