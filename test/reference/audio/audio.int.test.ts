import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFile } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWavFile, FfmpegError, runFfmpeg } from '../../../reference/audio/encode.ts';
import { AUDIO_FORMATS, type AudioFormat } from '../../../reference/audio/formats.ts';
import { readWavHeader, UNKNOWN_LENGTH, wavFile, wavHeader } from '../../../reference/audio/wav.ts';

const RATE = 22050;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-audio-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A 440 Hz tone with a quiet gap: deterministic and independent of the synthesizer. */
function tone(seconds: number): Int16Array {
  const pcm = new Int16Array(Math.round(RATE * seconds));
  for (let i = 0; i < pcm.length; i++) {
    const gap = i > pcm.length * 0.4 && i < pcm.length * 0.5;
    pcm[i] = gap ? 0 : Math.round(9000 * Math.sin((2 * Math.PI * 440 * i) / RATE));
  }
  return pcm;
}

describe('wavHeader', () => {
  it('writes a canonical 44-byte PCM header with the known length', () => {
    const h = wavHeader({ sampleRate: RATE, dataBytes: 1000 });
    expect(h.length).toBe(44);
    expect(h.toString('ascii', 0, 4)).toBe('RIFF');
    expect(h.readUInt32LE(4)).toBe(1036);
    expect(h.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(h.readUInt16LE(20)).toBe(1); // PCM
    expect(h.readUInt16LE(22)).toBe(1); // mono
    expect(h.readUInt32LE(24)).toBe(RATE);
    expect(h.readUInt32LE(28)).toBe(RATE * 2);
    expect(h.readUInt16LE(34)).toBe(16);
    expect(h.readUInt32LE(40)).toBe(1000);
    expect(readWavHeader(h)).toEqual({
      sampleRate: RATE,
      channels: 1,
      bitsPerSample: 16,
      dataBytes: 1000,
      dataOffset: 44,
    });
  });

  it('writes 0xFFFFFFFF sizes for unknown length, which ffmpeg reads to the end', async () => {
    const h = wavHeader({ sampleRate: RATE, dataBytes: null });
    expect(h.readUInt32LE(4)).toBe(UNKNOWN_LENGTH);
    expect(h.readUInt32LE(40)).toBe(UNKNOWN_LENGTH);
    expect(readWavHeader(h).dataBytes).toBeNull();
    const pcm = tone(1.5);
    const streamed = join(dir, 'streamed.wav');
    writeFileSync(streamed, Buffer.concat([h, Buffer.from(pcm.buffer)]));
    const flac = join(dir, 'streamed.flac');
    await encodeWavFile(streamed, 'flac', flac);
    const { format } = await parseFile(flac);
    expect(Math.round(format.duration! * RATE)).toBe(pcm.length);
  });

  it('rejects impossible lengths and rates', () => {
    expect(() => wavHeader({ sampleRate: 0, dataBytes: 0 })).toThrow(RangeError);
    expect(() => wavHeader({ sampleRate: RATE, dataBytes: -2 })).toThrow(RangeError);
    expect(() => wavHeader({ sampleRate: RATE, dataBytes: 1.5 })).toThrow(RangeError);
  });
});

describe('encodeWavFile', () => {
  type Expected = { container: RegExp; codec: RegExp; sampleRate: number; channels: number };
  const expected: Record<Exclude<AudioFormat, 'wav'>, Expected> = {
    mp3: { container: /^MPEG$/, codec: /^MPEG 1 Layer 3$/, sampleRate: 48000, channels: 1 },
    // The MP4 audio sample entry's channel field is fixed at 2 (ISO 14496-14); the real count (mono)
    // lives in the AAC config, which music-metadata does not read.
    m4a: { container: /^M4A/, codec: /^MPEG-4\/AAC/, sampleRate: 48000, channels: 2 },
    flac: { container: /^FLAC$/, codec: /^FLAC$/, sampleRate: RATE, channels: 1 },
    webm: { container: /^EBML\/webm$/, codec: /^OPUS$/, sampleRate: 48000, channels: 1 },
  };

  for (const seconds of [10, 1.234]) {
    it.each(Object.keys(expected) as Exclude<AudioFormat, 'wav'>[])(
      `%s of a ${seconds} s clip parses with the right codec and duration`,
      async (format) => {
        const wav = join(dir, `clip-${seconds}.wav`);
        writeFileSync(wav, wavFile(RATE, [tone(seconds)]));
        const wavDuration = (await parseFile(wav)).format.duration!;
        expect(wavDuration).toBeCloseTo(seconds, 3);
        const out = join(dir, `clip-${seconds}.${AUDIO_FORMATS[format].extension}`);
        await encodeWavFile(wav, format, out);
        const { format: got } = await parseFile(out);
        expect(got.container).toMatch(expected[format].container);
        expect(got.codec).toMatch(expected[format].codec);
        expect(got.sampleRate).toBe(expected[format].sampleRate);
        expect(got.numberOfChannels).toBe(expected[format].channels);
        expect(Math.abs(got.duration! - wavDuration) * 1000).toBeLessThan(50);
      },
    );
  }

  it('throws with ffmpeg’s stderr when the input is not audio, and leaves no partial file', async () => {
    const bogus = join(dir, 'bogus.wav');
    writeFileSync(bogus, 'this is not a wav file at all');
    const out = join(dir, 'bogus.mp3');
    const error = await encodeWavFile(bogus, 'mp3', out).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).stderrTail).toMatch(/invalid data|could not find|error/i);
    expect(readdirSync(dir).filter((f) => f.startsWith('bogus.mp3'))).toEqual([]);
  });

  it('kills ffmpeg when it exceeds its timeout', async () => {
    const started = performance.now();
    // An hour of generated silence encoded to nowhere: far longer than the 300 ms allowed.
    const error = await runFfmpeg(
      ['-f', 'lavfi', '-i', 'anullsrc=r=48000', '-t', '3600', '-c:a', 'flac', '-f', 'null', '-'],
      300,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegError);
    expect(String((error as Error).message)).toMatch(/killed after 300 ms/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
