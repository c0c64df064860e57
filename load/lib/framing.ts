/**
 * Websocket binary audio frames (wire-facts.md, Websocket protocol): the 4 ASCII bytes `JSON`, a
 * 32-bit little-endian length L, L bytes of UTF-8 JSON metadata {take_id, request_id, part_id,
 * chunk_id?}, then the audio bytes. Pure code with no k6 import, so the Node tests exercise exactly
 * what the k6 scenarios run.
 */

import type { AudioFrameMetadata } from '../../schemas/types.ts';

export type { AudioFrameMetadata };

export interface AudioFrame {
  meta: AudioFrameMetadata;
  /** Number of audio bytes after the metadata. */
  audioBytes: number;
  /** True when the audio starts with a WAV header (`RIFF....WAVE`). */
  startsWithWav: boolean;
  /** Audio bytes that are samples: all of them, or those after the WAV header's `data` chunk header. */
  sampleBytes: number;
  /** Bytes per second of audio from the WAV header's `fmt ` chunk (undefined without a header). */
  byteRate?: number;
}

const MAGIC = [0x4a, 0x53, 0x4f, 0x4e]; // "JSON"

/** UTF-8 bytes to a string; k6 has no TextDecoder, so decode by hand (metadata is tiny). */
export function utf8Decode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let cp: number;
    if (b < 0x80) {
      cp = b;
      i += 1;
    } else if (b >= 0xf0) {
      cp =
        ((b & 0x07) << 18) |
        ((bytes[i + 1]! & 0x3f) << 12) |
        ((bytes[i + 2]! & 0x3f) << 6) |
        (bytes[i + 3]! & 0x3f);
      i += 4;
    } else if (b >= 0xe0) {
      cp = ((b & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f);
      i += 3;
    } else {
      cp = ((b & 0x1f) << 6) | (bytes[i + 1]! & 0x3f);
      i += 2;
    }
    out += String.fromCodePoint(cp);
  }
  return out;
}

/** Parses one binary frame; throws an Error that says what is wrong when it is not a valid frame. */
export function parseAudioFrame(buffer: ArrayBuffer): AudioFrame {
  if (buffer.byteLength < 8)
    throw new Error(`audio frame of ${buffer.byteLength} bytes: shorter than the 8-byte header`);
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== MAGIC[i]) throw new Error('audio frame does not start with the ASCII bytes "JSON"');
  }
  const length = new DataView(buffer).getUint32(4, true);
  if (8 + length > buffer.byteLength) {
    throw new Error(`audio frame metadata length ${length} exceeds the frame (${buffer.byteLength} bytes)`);
  }
  const meta = JSON.parse(utf8Decode(bytes.subarray(8, 8 + length))) as AudioFrameMetadata;
  if (typeof meta.take_id !== 'string' || typeof meta.part_id !== 'number') {
    throw new Error('audio frame metadata lacks take_id (string) or part_id (integer)');
  }
  const audioStart = 8 + length;
  const audioBytes = buffer.byteLength - audioStart;
  const startsWithWav =
    audioBytes >= 12 &&
    bytes[audioStart] === 0x52 && // R
    bytes[audioStart + 1] === 0x49 && // I
    bytes[audioStart + 2] === 0x46 && // F
    bytes[audioStart + 3] === 0x46 && // F
    bytes[audioStart + 8] === 0x57 && // W
    bytes[audioStart + 9] === 0x41; // A
  if (!startsWithWav) return { meta, audioBytes, startsWithWav, sampleBytes: audioBytes };
  const wav = readWavHeader(bytes, audioStart);
  return {
    meta,
    audioBytes,
    startsWithWav,
    sampleBytes: wav.sampleBytes,
    ...(wav.byteRate ? { byteRate: wav.byteRate } : {}),
  };
}

/**
 * Walks the RIFF chunks of a WAV starting at `start`: the byte rate of its `fmt ` chunk (audio
 * bytes per second, for real-time factors) and the bytes after the `data` chunk header (0 when the
 * header has no data chunk yet).
 */
export function readWavHeader(bytes: Uint8Array, start = 0): { sampleBytes: number; byteRate?: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate: number | undefined;
  let pos = start + 12;
  while (pos + 8 <= bytes.length) {
    const id = String.fromCharCode(bytes[pos]!, bytes[pos + 1]!, bytes[pos + 2]!, bytes[pos + 3]!);
    if (id === 'data') return { sampleBytes: bytes.length - (pos + 8), byteRate };
    const size = view.getUint32(pos + 4, true);
    // fmt: format u16, channels u16, sample rate u32, byte rate u32 (offset 8 of the chunk body).
    if (id === 'fmt ' && size >= 12 && pos + 20 <= bytes.length) byteRate = view.getUint32(pos + 16, true);
    pos += 8 + size + (size % 2);
  }
  return { sampleBytes: 0, byteRate };
}

/**
 * The end of a take's stream: an audio frame with no audio and chunk_id 0 or absent. In chunks mode
 * an empty chunk with chunk_id > 0 only ends a part (chunk 0 of a real part always carries the WAV
 * header, so it is never empty).
 */
export function isEndOfTake(frame: AudioFrame): boolean {
  const chunk = frame.meta.chunk_id;
  return frame.audioBytes === 0 && (chunk === undefined || chunk === null || chunk === 0);
}
