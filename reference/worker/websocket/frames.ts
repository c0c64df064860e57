/**
 * Binary audio frames (wire-facts.md): the 4 ASCII bytes `JSON`, a u32 little-endian length L, L bytes
 * of UTF-8 JSON metadata {take_id, request_id, part_id, chunk_id?}, then the audio bytes (maybe none).
 */
export type RequestId = number | string | null;

export interface FrameMetadata {
  take_id: string;
  request_id: RequestId;
  part_id: number;
  /** Chunks mode only; absent in parts mode. */
  chunk_id?: number;
}

const MAGIC = Buffer.from('JSON', 'ascii');

export function encodeAudioFrame(metadata: FrameMetadata, audio: Buffer = Buffer.alloc(0)): Buffer {
  const json = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  return Buffer.concat([MAGIC, length, json, audio]);
}
