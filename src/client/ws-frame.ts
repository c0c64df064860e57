/**
 * The binary audio frame of the websocket stream (wire-facts.md, Websocket protocol):
 * the 4 ASCII bytes `JSON`, a u32 little-endian length L, L bytes of UTF-8 JSON metadata
 * `{take_id, request_id, part_id, chunk_id?}`, then the audio bytes (possibly none).
 *
 * Decoding never guesses: every way a frame can be malformed has its own error kind, and the
 * message says what was expected and what was found, so a server bug reads straight off the report.
 */
import type { ValidateFunction } from 'ajv';
import { sharedAjv } from '../../schemas/index.ts';
import { SpeakcheckError } from '../errors.ts';

export const FRAME_MAGIC = Buffer.from('JSON', 'ascii');
/** Magic (4 bytes) + metadata length (u32le, 4 bytes). */
export const FRAME_PREFIX_BYTES = 8;

export type RequestId = number | string;

export interface AudioFrameMetadata {
  take_id: string;
  request_id: RequestId | null;
  part_id: number;
  chunk_id?: number | null;
  [extra: string]: unknown;
}

export interface AudioFrame {
  metadata: AudioFrameMetadata;
  /** Audio bytes after the metadata; empty for an end marker. */
  audio: Buffer;
}

/**
 * The key a request is known by on one connection: its id WITH its JSON type, so 1 and "1" are two
 * requests (a server that echoes the id as another type names no request of ours).
 */
export function requestKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * The request an audio frame belongs to: the one its request_id names or, for a frame without
 * request_id, the one whose text frame named its take (`requestOfTake`: take_id → request key).
 */
export function frameRequestKey(
  metadata: AudioFrameMetadata,
  requestOfTake: ReadonlyMap<string, string>,
): string | undefined {
  const rid = metadata.request_id;
  return rid === null || rid === undefined ? requestOfTake.get(metadata.take_id) : requestKey(rid);
}

export type FrameErrorKind =
  | 'too-short'
  | 'bad-magic'
  | 'length-past-end'
  | 'metadata-not-utf8'
  | 'metadata-not-json'
  | 'metadata-schema';

export class FrameError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_WS_FRAME';
  override readonly name = 'FrameError';
  constructor(
    readonly kind: FrameErrorKind,
    message: string,
    /** The frame's length in bytes, for context in reports. */
    readonly frameBytes: number,
  ) {
    super(message);
  }
}

let validateMetadata: ValidateFunction | undefined;
function metadataValidator(): ValidateFunction {
  validateMetadata ??= sharedAjv().getSchema('AudioFrameMetadata.json');
  if (!validateMetadata)
    throw new Error('schemas/AudioFrameMetadata.schema.json is missing from the shared Ajv');
  return validateMetadata;
}

function hexPreview(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Decodes one binary websocket message; throws a FrameError saying precisely what is wrong. */
export function decodeAudioFrame(frame: Buffer): AudioFrame {
  const n = frame.length;
  if (n < FRAME_PREFIX_BYTES) {
    throw new FrameError(
      'too-short',
      `binary frame of ${n} bytes is shorter than the ${FRAME_PREFIX_BYTES}-byte prefix ('JSON' + u32le length)`,
      n,
    );
  }
  const magic = frame.subarray(0, 4);
  if (!magic.equals(FRAME_MAGIC)) {
    throw new FrameError(
      'bad-magic',
      `binary frame starts with bytes [${hexPreview(magic)}] (${JSON.stringify(magic.toString('latin1'))}), expected 'JSON' [4a 53 4f 4e]`,
      n,
    );
  }
  const metadataLength = frame.readUInt32LE(4);
  const metadataEnd = FRAME_PREFIX_BYTES + metadataLength;
  if (metadataEnd > n) {
    throw new FrameError(
      'length-past-end',
      `metadata length field says ${metadataLength} bytes but only ${n - FRAME_PREFIX_BYTES} bytes follow the prefix (frame is ${n} bytes)`,
      n,
    );
  }
  const metadataBytes = frame.subarray(FRAME_PREFIX_BYTES, metadataEnd);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(metadataBytes);
  } catch {
    throw new FrameError('metadata-not-utf8', `the ${metadataLength} metadata bytes are not valid UTF-8`, n);
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch (error) {
    const preview = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new FrameError(
      'metadata-not-json',
      `metadata is not JSON (${(error as Error).message}): ${JSON.stringify(preview)}`,
      n,
    );
  }
  const validate = metadataValidator();
  if (!validate(metadata)) {
    const problems = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    throw new FrameError(
      'metadata-schema',
      `metadata ${JSON.stringify(metadata)} does not match AudioFrameMetadata: ${problems}`,
      n,
    );
  }
  return { metadata: metadata as AudioFrameMetadata, audio: frame.subarray(metadataEnd) };
}

/** Encodes a frame exactly as the wire facts describe (used by tests and synthetic streams). */
export function encodeAudioFrame(metadata: AudioFrameMetadata, audio: Uint8Array = Buffer.alloc(0)): Buffer {
  const json = Buffer.from(JSON.stringify(metadata), 'utf8');
  const prefix = Buffer.alloc(FRAME_PREFIX_BYTES);
  FRAME_MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(json.length, 4);
  return Buffer.concat([prefix, json, audio]);
}
