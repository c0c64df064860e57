/**
 * The audio-body defects: what the signed URL of a finished take serves instead of the encoded
 * file. Kept here (not in the audio plugin) so the plugin holds one call: a defect either rewrites
 * the body or leaves the file to be streamed as usual.
 */
import { readFile } from 'node:fs/promises';
import type { AudioFormat } from '../audio/formats.ts';
import { defects } from './active.ts';
import type { DefectName } from './registry.ts';

const TRUNCATED: Record<AudioFormat, DefectName> = {
  wav: 'audio-truncated-wav',
  mp3: 'audio-truncated-mp3',
  m4a: 'audio-truncated-m4a',
  flac: 'audio-truncated-flac',
  webm: 'audio-truncated-webm',
};

/** Bytes that are no audio: fixed (a linear congruential sequence), so every run sees the same. */
function garbage(length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = 0x2545f491;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
const TRAILING_GARBAGE_BYTES = 8_000;

/**
 * The body a defect serves for `format` (the file at `path`), or undefined when no defect touches
 * it. Truncated: the first half of the file, with its own (consistent) Content-Length, as a CDN or
 * a streaming upload cut short delivers it. Trailing garbage: the file, then 8000 bytes of noise.
 */
export async function defectiveAudioBody(format: AudioFormat, path: string): Promise<Buffer | undefined> {
  const truncated = defects.has(TRUNCATED[format]);
  const tailed = defects.has('audio-trailing-garbage');
  if (!truncated && !tailed) return undefined;
  const file = await readFile(path);
  if (truncated) return file.subarray(0, Math.floor(file.length / 2));
  return Buffer.concat([file, garbage(TRAILING_GARBAGE_BYTES)]);
}
