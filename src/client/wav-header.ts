/**
 * Reads the facts of a RIFF/WAVE header from the first bytes of a WAV file: enough to tell where
 * the samples start and how many bytes the header promises. The harness's one RIFF parser: the
 * stream reassembler reads part headers with it, and src/checks/audio.ts's parseWav whole files.
 *
 * Hand-written on purpose: the wav libraries on npm (wavefile, the last release years old) parse
 * whole files and quietly clamp a data chunk that is shorter than its header says, while a stream
 * checker needs exactly that difference (declared size vs. bytes received) and must also read a
 * header whose data has not arrived yet. The format is small; this reader is strict about it.
 */
import { SpeakcheckError } from '../errors.ts';

export interface WavHeaderFacts {
  /** The RIFF chunk size field: total file bytes - 8. */
  riffSize: number;
  /** 1 = integer PCM. */
  audioFormat: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  /** Byte offset of the first sample (just after the data chunk's size field). */
  dataOffset: number;
  /** The data chunk size field (0xFFFFFFFF or 0 are what streaming writers put when the length is unknown). */
  dataSize: number;
}

export class WavHeaderError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_WAV_HEADER';
  override readonly name = 'WavHeaderError';
  constructor(
    readonly kind: 'not-riff' | 'not-wave' | 'truncated' | 'no-fmt' | 'bad-fmt',
    message: string,
  ) {
    super(message);
  }
}

function fourcc(bytes: Uint8Array, at: number): string {
  return Buffer.from(bytes.subarray(at, at + 4)).toString('latin1');
}

/** Parses the header of `bytes` (a whole file or just its beginning); throws a WavHeaderError. */
export function parseWavHeader(input: Uint8Array): WavHeaderFacts {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (bytes.length < 12) {
    throw new WavHeaderError(
      'truncated',
      `${bytes.length} bytes cannot hold a RIFF/WAVE header (needs at least 44)`,
    );
  }
  if (fourcc(bytes, 0) !== 'RIFF') {
    throw new WavHeaderError('not-riff', `starts with ${JSON.stringify(fourcc(bytes, 0))}, expected "RIFF"`);
  }
  if (fourcc(bytes, 8) !== 'WAVE') {
    throw new WavHeaderError(
      'not-wave',
      `RIFF form type is ${JSON.stringify(fourcc(bytes, 8))}, expected "WAVE"`,
    );
  }
  const riffSize = bytes.readUInt32LE(4);
  let fmt: Omit<WavHeaderFacts, 'riffSize' | 'dataOffset' | 'dataSize'> | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = fourcc(bytes, at);
    const size = bytes.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16)
        throw new WavHeaderError('bad-fmt', `"fmt " chunk is ${size} bytes, expected at least 16`);
      if (body + 16 > bytes.length) break;
      fmt = {
        audioFormat: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        byteRate: bytes.readUInt32LE(body + 8),
        blockAlign: bytes.readUInt16LE(body + 12),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      };
      if (fmt.channels === 0 || fmt.blockAlign === 0) {
        throw new WavHeaderError(
          'bad-fmt',
          `"fmt " chunk has channels=${fmt.channels}, blockAlign=${fmt.blockAlign}; both must be > 0`,
        );
      }
    } else if (id === 'data') {
      if (!fmt)
        throw new WavHeaderError('no-fmt', `"data" chunk at byte ${at} comes before any "fmt " chunk`);
      return { riffSize, ...fmt, dataOffset: body, dataSize: size };
    }
    // RIFF chunks are padded to an even length.
    at = body + size + (size % 2);
  }
  throw new WavHeaderError(
    'truncated',
    `no "data" chunk within the first ${bytes.length} bytes${fmt ? '' : ' (and no "fmt " chunk)'}`,
  );
}

/** A canonical 44-byte PCM WAV header (used to build synthetic streams in tests). */
export function buildWavHeader(o: {
  sampleRate: number;
  dataBytes: number;
  channels?: number;
  bitsPerSample?: number;
}): Buffer {
  const channels = o.channels ?? 1;
  const bits = o.bitsPerSample ?? 16;
  const blockAlign = (channels * bits) / 8;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + o.dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(o.sampleRate, 24);
  header.writeUInt32LE(o.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bits, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(o.dataBytes, 40);
  return header;
}
