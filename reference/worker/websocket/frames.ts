/**
 * Binary audio frames (wire-facts.md): the 4 ASCII bytes `JSON`, a u32 little-endian length L, L bytes
 * of UTF-8 JSON metadata {take_id, request_id, part_id, chunk_id?}, then the audio bytes (maybe none).
 */
import type { AudioFrameMetadata } from '../../../schemas/types.ts';

export type RequestId = AudioFrameMetadata['request_id'];

/** schemas/AudioFrameMetadata.schema.json; `chunk_id` in chunks mode only, absent in parts mode. */
export type FrameMetadata = AudioFrameMetadata;

const MAGIC = Buffer.from('JSON', 'ascii');

export function encodeAudioFrame(metadata: FrameMetadata, audio: Buffer = Buffer.alloc(0)): Buffer {
  const json = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  return Buffer.concat([MAGIC, length, json, audio]);
}
