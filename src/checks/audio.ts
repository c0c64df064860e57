/**
 * Audio checks: the container and codec each format endpoint must deliver (parsed with
 * music-metadata), the wav's sample count and rate against the take's info, durations within a
 * tolerance. The tolerances are thresholds chosen by speakcheck (the contract gives none), named in
 * AUDIO-FORMATS-SAME-AUDIO's text.
 */
import { parseBuffer } from 'music-metadata';
import { parseWavHeader, WavHeaderError, type WavHeaderFacts } from '../client/wav-header.ts';
import { Finding, show } from './finding.ts';

export const AUDIO_FORMATS = ['wav', 'mp3', 'm4a', 'flac', 'webm'] as const;
export type AudioFormat = (typeof AUDIO_FORMATS)[number];

interface FormatExpectation {
  /** Accepted Content-Type values (lower case, parameters ignored). */
  contentTypes: string[];
  /** music-metadata's `format.container` must match. */
  container: RegExp;
  /** How far the parsed duration may drift from info: lossy encoders add priming and padding frames. */
  toleranceMs: number;
}

export const FORMAT_EXPECTATIONS: Record<AudioFormat, FormatExpectation> = {
  wav: {
    contentTypes: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
    container: /^WAVE$/,
    toleranceMs: 50,
  },
  flac: { contentTypes: ['audio/flac', 'audio/x-flac'], container: /^FLAC$/, toleranceMs: 50 },
  // MP3: an encoder delay of ~1 frame plus padding to a whole frame (≈ 52 ms at 22.05 kHz each).
  mp3: { contentTypes: ['audio/mpeg', 'audio/mp3'], container: /^MPEG$/, toleranceMs: 120 },
  m4a: {
    contentTypes: ['audio/mp4', 'audio/m4a', 'audio/x-m4a', 'audio/aac'],
    container: /^(M4A|mp4|isom|iso\d|mp4\d)/i,
    toleranceMs: 120,
  },
  webm: { contentTypes: ['audio/webm', 'video/webm'], container: /webm/i, toleranceMs: 120 },
};

export interface ParsedAudio {
  container: string | undefined;
  codec: string | undefined;
  sampleRate: number | undefined;
  durationSeconds: number | undefined;
  channels: number | undefined;
}

export async function parseAudio(body: Buffer, contentType?: string): Promise<ParsedAudio> {
  const options = contentType ? { mimeType: contentType } : {};
  const metadata = await parseBuffer(body, options, { duration: true, skipCovers: true });
  const f = metadata.format;
  return {
    container: f.container,
    codec: f.codec,
    sampleRate: f.sampleRate,
    durationSeconds: f.duration,
    channels: f.numberOfChannels,
  };
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function assertContentType(format: AudioFormat, contentType: string | undefined, where: string): void {
  const expected = FORMAT_EXPECTATIONS[format].contentTypes;
  if (!expected.includes(mediaType(contentType))) {
    throw new Finding(
      `${where}: ${format} audio served with Content-Type ${show(contentType ?? null)}, expected one of ${expected.join(', ')}`,
      { where, expected, actual: contentType },
    );
  }
}

/** Parses the body and checks its container; returns the parse for further checks. */
export async function assertContainer(
  format: AudioFormat,
  body: Buffer,
  where: string,
): Promise<ParsedAudio> {
  let parsed: ParsedAudio;
  try {
    parsed = await parseAudio(body);
  } catch (error) {
    throw new Finding(
      `${where}: ${format} body (${body.length} bytes, starts ${show(body.subarray(0, 12).toString('latin1'))}) is not parseable audio: ${(error as Error).message}`,
      { where, expected: format, actual: body.subarray(0, 12).toString('hex') },
    );
  }
  if (!parsed.container || !FORMAT_EXPECTATIONS[format].container.test(parsed.container)) {
    throw new Finding(
      `${where}: the ${format} endpoint delivered container ${show(parsed.container ?? null)} (codec ${show(parsed.codec ?? null)}), expected ${FORMAT_EXPECTATIONS[format].container}`,
      { where, expected: String(FORMAT_EXPECTATIONS[format].container), actual: parsed.container },
    );
  }
  return parsed;
}

export function assertDurationClose(
  format: AudioFormat,
  actualSeconds: number | undefined,
  expectedSeconds: number,
  where: string,
  toleranceMs = FORMAT_EXPECTATIONS[format].toleranceMs,
): void {
  if (actualSeconds === undefined || !Number.isFinite(actualSeconds)) {
    throw new Finding(`${where}: the ${format} audio has no readable duration`, {
      where,
      expected: expectedSeconds,
    });
  }
  const driftMs = Math.abs(actualSeconds - expectedSeconds) * 1000;
  if (driftMs > toleranceMs) {
    throw new Finding(
      `${where}: ${format} lasts ${actualSeconds.toFixed(3)} s, expected ${expectedSeconds.toFixed(3)} s (off by ${driftMs.toFixed(0)} ms, tolerance ${toleranceMs} ms)`,
      { where, expected: expectedSeconds, actual: actualSeconds },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// WAV: the RIFF chunks are read by the one header parser (src/client/wav-header.ts), so a streamed wav
// (data size unknown: 0 or 0xFFFFFFFF) still yields the exact number of samples it holds.

export interface WavFacts {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Bytes of PCM actually present (bounded by the body, not by a placeholder size). */
  dataBytes: number;
  /** Sample frames present. */
  samples: number;
  /** The data chunk's declared size differs from what the body holds (streaming placeholder). */
  declaredDataBytes: number;
}

export function parseWav(body: Buffer, where = 'wav'): WavFacts {
  const header = wavHeaderOf(body, where);
  const available = body.length - header.dataOffset;
  const size = header.dataSize;
  const dataBytes = size === 0 || size > available ? available : size;
  return {
    sampleRate: header.sampleRate,
    channels: header.channels,
    bitsPerSample: header.bitsPerSample,
    dataBytes,
    samples: Math.floor(dataBytes / header.blockAlign),
    declaredDataBytes: size,
  };
}

/** The header's facts, or a Finding that says in the audio checks' words what is wrong with it. */
function wavHeaderOf(body: Buffer, where: string): WavHeaderFacts {
  try {
    return parseWavHeader(body);
  } catch (error) {
    if (!(error instanceof WavHeaderError)) throw error;
    if (error.kind === 'not-riff' || error.kind === 'not-wave' || body.length < 12) {
      throw new Finding(
        `${where}: not a RIFF/WAVE file (starts ${show(body.subarray(0, 12).toString('latin1'))})`,
        { where, expected: 'RIFF....WAVE', actual: body.subarray(0, 12).toString('hex') },
      );
    }
    if (error.kind === 'no-fmt') throw new Finding(`${where}: data chunk before fmt chunk`, { where });
    if (error.kind === 'truncated')
      throw new Finding(`${where}: no data chunk in ${body.length} bytes`, { where, expected: 'data chunk' });
    throw new Finding(`${where}: ${error.message}`, { where });
  }
}

export interface TakeInfoLike {
  duration: number;
  audio_rate: number;
  normalized_text: string[];
}

/**
 * The info a ready take carries against its wav: audio_rate is the wav's sample rate (the
 * contract: "sample rate in Hz") and normalized_text is non-empty. The sample-count reading of
 * duration is a wire fact, checked apart by assertDurationIsSampleCount.
 */
export function assertInfoConsistent(
  info: TakeInfoLike | null | undefined,
  wav: WavFacts,
  where: string,
): void {
  if (!info) {
    throw new Finding(`${where}: the take is ready but info is ${show(info ?? null)}`, {
      where,
      expected: 'info object',
    });
  }
  if (info.audio_rate !== wav.sampleRate) {
    throw new Finding(
      `${where}: info.audio_rate is ${info.audio_rate} Hz but the wav is sampled at ${wav.sampleRate} Hz`,
      {
        where: `${where} /info/audio_rate`,
        expected: wav.sampleRate,
        actual: info.audio_rate,
      },
    );
  }
  if (!Array.isArray(info.normalized_text) || info.normalized_text.length === 0) {
    throw new Finding(
      `${where}: info.normalized_text is empty (${show(info.normalized_text)}), expected the text's parts`,
      {
        where: `${where} /info/normalized_text`,
        expected: 'non-empty array',
        actual: info.normalized_text,
      },
    );
  }
  const blank = info.normalized_text.findIndex((part) => typeof part !== 'string' || part.trim() === '');
  if (blank >= 0) {
    throw new Finding(`${where}: info.normalized_text[${blank}] is blank`, {
      where: `${where} /info/normalized_text/${blank}`,
    });
  }
  if (wav.samples === 0) throw new Finding(`${where}: the ready take's wav holds no samples`, { where });
}

/** wire-facts: TakeInfo.duration is a count of samples — the wav's sample frames, exactly. */
export function assertDurationIsSampleCount(info: TakeInfoLike, wav: WavFacts, where: string): void {
  if (info.duration !== wav.samples) {
    throw new Finding(
      `${where}: info.duration is ${info.duration} but the wav holds ${wav.samples} samples (${wav.dataBytes} data bytes at ${wav.channels} ch × ${wav.bitsPerSample} bit)`,
      { where: `${where} /info/duration`, expected: wav.samples, actual: info.duration },
    );
  }
}

/** 0 and 0xFFFFFFFF: the sizes a streaming writer puts in a header before the length is known. */
const isPlaceholderSize = (size: number) => size === 0 || size === 0xffffffff;

/**
 * A finished wav (the take is ready) is whole: its data chunk holds the bytes its header declares
 * (a download cut short holds fewer) and nothing follows the RIFF chunk (bytes after it are not
 * audio: garbage a player may play as noise or choke on). A header with streaming placeholder
 * sizes (0 or 0xFFFFFFFF) claims no length, so it is not held to one here (the comparisons with
 * the other formats and with info still measure what it holds).
 */
export function assertWavWhole(body: Buffer, wav: WavFacts, where: string): void {
  if (!isPlaceholderSize(wav.declaredDataBytes) && wav.declaredDataBytes !== wav.dataBytes) {
    const blockAlign = (wav.channels * wav.bitsPerSample) / 8 || 1;
    const declaredSeconds = wav.declaredDataBytes / blockAlign / wav.sampleRate;
    throw new Finding(
      `${where}: the wav's data chunk declares ${wav.declaredDataBytes} bytes (${declaredSeconds.toFixed(3)} s) but the body holds ${wav.dataBytes} (${(wav.samples / wav.sampleRate).toFixed(3)} s): ${wav.dataBytes < wav.declaredDataBytes ? 'the audio is cut short' : 'the header does not size its data'}`,
      { where, expected: wav.declaredDataBytes, actual: wav.dataBytes },
    );
  }
  const riffSize = body.readUInt32LE(4);
  if (!isPlaceholderSize(riffSize) && riffSize + 8 !== body.length) {
    throw new Finding(
      `${where}: the RIFF chunk declares ${riffSize + 8} bytes but the body has ${body.length}: ${body.length > riffSize + 8 ? `${body.length - riffSize - 8} bytes follow the wav` : 'the file is cut short'}`,
      { where, expected: riffSize + 8, actual: body.length },
    );
  }
}
