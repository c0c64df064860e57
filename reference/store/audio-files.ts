/**
 * Audio blobs in the data directory: `<data>/audio/<take_id>/take.wav` (written by the worker while it
 * synthesizes: an unknown-length header first, the real sizes once the take is done) and the other
 * formats, encoded lazily from it on first request and cached beside it. Encoding is single-flight:
 * concurrent first requests for one file share one ffmpeg run.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeWavFile } from '../audio/encode.ts';
import { AUDIO_FORMATS, type AudioFormat } from '../audio/formats.ts';

export function takeAudioDir(dataDir: string, takeId: string): string {
  return join(dataDir, 'audio', takeId);
}

export function takeAudioPath(dataDir: string, takeId: string, format: AudioFormat): string {
  return join(takeAudioDir(dataDir, takeId), `take.${AUDIO_FORMATS[format].extension}`);
}

export class AudioFiles {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(private readonly dataDir: string) {}

  wavPath(takeId: string): string {
    return takeAudioPath(this.dataDir, takeId, 'wav');
  }

  /** The path of a finished take's audio in `format`, encoding it first when needed. */
  async ensure(takeId: string, format: AudioFormat): Promise<string> {
    const path = takeAudioPath(this.dataDir, takeId, format);
    if (format === 'wav' || existsSync(path)) return path;
    let running = this.inflight.get(path);
    if (!running) {
      running = encodeWavFile(this.wavPath(takeId), format, path)
        .then(() => path)
        .finally(() => this.inflight.delete(path));
      this.inflight.set(path, running);
    }
    return running;
  }

  async remove(takeId: string): Promise<void> {
    await rm(takeAudioDir(this.dataDir, takeId), { recursive: true, force: true });
  }
}
