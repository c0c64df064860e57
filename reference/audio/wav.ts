/**
 * RIFF/WAVE headers for 16-bit mono PCM: the 44-byte canonical form (RIFF, fmt , data).
 *
 * Unknown length (streaming, `dataBytes: null`): both the RIFF size and the data size are written as
 * 0xFFFFFFFF, the largest value the fields hold. ffmpeg, sox and browsers read such a file until the end
 * of the stream; a reader that trusts the size simply reads to EOF because no real file is that long.
 * (0 would tell a strict reader there is no audio at all, which is worse.)
 */
export const WAV_HEADER_BYTES = 44;
export const UNKNOWN_LENGTH = 0xffffffff;
const BYTES_PER_SAMPLE = 2;
const CHANNELS = 1;

export function wavHeader(o: { sampleRate: number; dataBytes: number | null }): Buffer {
  const { sampleRate, dataBytes } = o;
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`bad sample rate ${sampleRate}`);
  if (
    dataBytes !== null &&
    (!Number.isInteger(dataBytes) || dataBytes < 0 || dataBytes > UNKNOWN_LENGTH - 36)
  ) {
    throw new RangeError(`bad data length ${dataBytes}`);
  }
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(dataBytes === null ? UNKNOWN_LENGTH : 36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(CHANNELS, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * CHANNELS * BYTES_PER_SAMPLE, 28); // byte rate
  header.writeUInt16LE(CHANNELS * BYTES_PER_SAMPLE, 32); // block align
  header.writeUInt16LE(8 * BYTES_PER_SAMPLE, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes === null ? UNKNOWN_LENGTH : dataBytes, 40);
  return header;
}

/** PCM samples as little-endian bytes (a view when the platform is little-endian, as Node's targets are). */
export function pcmBytes(pcm: Int16Array): Buffer {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
}

/** A complete WAV file from PCM buffers. */
export function wavFile(sampleRate: number, pcm: readonly Int16Array[]): Buffer {
  const body = Buffer.concat(pcm.map(pcmBytes));
  return Buffer.concat([wavHeader({ sampleRate, dataBytes: body.length }), body]);
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** null when the header says "unknown" (0xFFFFFFFF). */
  dataBytes: number | null;
  dataOffset: number;
}

/** Reads a canonical PCM WAV header (fmt before data; other chunks before data are skipped). */
export function readWavHeader(file: Buffer): WavInfo {
  if (
    file.length < 12 ||
    file.toString('ascii', 0, 4) !== 'RIFF' ||
    file.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let format: Omit<WavInfo, 'dataBytes' | 'dataOffset'> | undefined;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      if (file.readUInt16LE(offset + 8) !== 1) throw new Error('WAV is not PCM');
      format = {
        channels: file.readUInt16LE(offset + 10),
        sampleRate: file.readUInt32LE(offset + 12),
        bitsPerSample: file.readUInt16LE(offset + 22),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data chunk before fmt chunk');
      return { ...format, dataBytes: size === UNKNOWN_LENGTH ? null : size, dataOffset: offset + 8 };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV has no data chunk');
}
