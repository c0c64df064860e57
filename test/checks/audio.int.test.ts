import { describe, expect, it } from 'vitest';
import {
  assertContainer,
  assertContentType,
  assertDurationClose,
  assertDurationIsSampleCount,
  assertInfoConsistent,
  parseWav,
} from '../../src/checks/audio.ts';

/** A mono 16-bit wav of `samples` samples; `declared` overrides the data size (streaming placeholders). */
function wav(samples: number, rate = 22050, declared?: number): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin(i / 7)), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(declared === undefined ? 36 + data.length : declared, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(declared === undefined ? data.length : declared, 40);
  return Buffer.concat([header, data]);
}

const info = (duration: number, audio_rate = 22050) => ({
  duration,
  audio_rate,
  normalized_text: ['Hello there.'],
});

describe('wav against info', () => {
  it('accepts a wav that agrees with info', () => {
    const facts = parseWav(wav(11025));
    expect(facts).toMatchObject({ sampleRate: 22050, samples: 11025, channels: 1, bitsPerSample: 16 });
    expect(() => assertInfoConsistent(info(11025), facts, 'take t1')).not.toThrow();
    expect(() => assertDurationIsSampleCount(info(11025), facts, 'take t1')).not.toThrow();
  });

  it('rejects a sample count that disagrees with info.duration', () => {
    expect(() => assertDurationIsSampleCount(info(11026), parseWav(wav(11025)), 'take t1')).toThrow(
      /info.duration is 11026 but the wav holds 11025 samples/,
    );
  });

  it('rejects an audio_rate that is not the wav rate', () => {
    expect(() => assertInfoConsistent(info(11025, 16000), parseWav(wav(11025)), 'take t1')).toThrow(
      /audio_rate is 16000 Hz but the wav is sampled at 22050 Hz/,
    );
  });

  it('rejects empty normalized_text and missing info', () => {
    expect(() => assertInfoConsistent({ ...info(10), normalized_text: [] }, parseWav(wav(10)), 't')).toThrow(
      /normalized_text is empty/,
    );
    expect(() => assertInfoConsistent(null, parseWav(wav(10)), 't')).toThrow(/info is null/);
  });

  it('counts the samples a streamed wav really holds (placeholder sizes)', () => {
    expect(parseWav(wav(500, 22050, 0xffffffff)).samples).toBe(500);
    expect(parseWav(wav(500, 22050, 0)).samples).toBe(500);
  });

  it('rejects something that is not a wav', () => {
    expect(() => parseWav(Buffer.from('ID3\u0003 not a wave file'), 'GET x.wav')).toThrow(
      /not a RIFF\/WAVE file/,
    );
  });
});

describe('containers', () => {
  it('parses a wav as WAVE and refuses it as mp3 or flac', async () => {
    const body = wav(22050);
    const parsed = await assertContainer('wav', body, 'wav');
    expect(parsed.durationSeconds).toBeCloseTo(1, 3);
    await expect(assertContainer('mp3', body, 'GET mp3')).rejects.toThrow(
      /mp3 endpoint delivered container "WAVE"/,
    );
    await expect(assertContainer('flac', body, 'GET flac')).rejects.toThrow(/container "WAVE"/);
  });

  it('refuses garbage', async () => {
    await expect(assertContainer('webm', Buffer.from('<html>oops</html>'), 'GET webm')).rejects.toThrow(
      /webm/,
    );
  });

  it('checks content types', () => {
    expect(() => assertContentType('mp3', 'audio/mpeg', 'x')).not.toThrow();
    expect(() => assertContentType('wav', 'audio/x-wav; charset=binary', 'x')).not.toThrow();
    expect(() => assertContentType('m4a', 'application/octet-stream', 'x')).toThrow(
      /m4a audio served with Content-Type "application\/octet-stream"/,
    );
  });

  it('checks durations within the format tolerance', () => {
    expect(() => assertDurationClose('wav', 1.04, 1.0, 'x')).not.toThrow();
    expect(() => assertDurationClose('wav', 1.06, 1.0, 'x')).toThrow(/off by 60 ms, tolerance 50 ms/);
    expect(() => assertDurationClose('mp3', 1.06, 1.0, 'x')).not.toThrow();
    expect(() => assertDurationClose('mp3', undefined, 1.0, 'x')).toThrow(/no readable duration/);
  });
});

describe('full decoding (src/checks/decode.ts)', () => {
  /**
   * `wav(...)` encoded to flac by the shipped ffmpeg, into a file (a pipe leaves STREAMINFO's sample
   * count unset): a real file whose header sizes it.
   */
  async function flacOf(body: Buffer): Promise<Buffer> {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { harnessFfmpegPath } = await import('../../src/checks/decode.ts');
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-flac-'));
    try {
      writeFileSync(join(dir, 'in.wav'), body);
      const r = spawnSync(harnessFfmpegPath(), [
        '-v',
        'error',
        '-i',
        join(dir, 'in.wav'),
        join(dir, 'out.flac'),
      ]);
      if (r.status !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
      return readFileSync(join(dir, 'out.flac'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('a whole flac decodes cleanly to its declared duration', async () => {
    const { assertDecodesCompletely, decodeAudio } = await import('../../src/checks/decode.ts');
    const flac = await flacOf(wav(44100));
    const parsed = await assertContainer('flac', flac, 'flac');
    const decoded = await decodeAudio(flac);
    expect(decoded.errors).toEqual([]);
    expect(decoded.durationSeconds).toBeCloseTo(2, 2);
    expect(() =>
      assertDecodesCompletely('flac', decoded, parsed.durationSeconds, flac.length, 'flac'),
    ).not.toThrow();
  });

  it('a flac cut in half: the header still reads 2 s, the decode says what is there', async () => {
    const { assertDecodesCompletely, decodeAudio } = await import('../../src/checks/decode.ts');
    const flac = await flacOf(wav(44100));
    const cut = flac.subarray(0, Math.floor(flac.length / 2));
    const parsed = await assertContainer('flac', cut, 'flac');
    expect(parsed.durationSeconds).toBeCloseTo(2, 2); // header-level parsing is fooled
    const decoded = await decodeAudio(cut);
    expect(decoded.durationSeconds).toBeLessThan(1.5);
    expect(() =>
      assertDecodesCompletely('flac', decoded, parsed.durationSeconds, cut.length, 'flac'),
    ).toThrow(/does not decode cleanly|the audio is cut short/);
  });

  it('a wav cut short or followed by garbage is not whole', async () => {
    const { assertWavWhole } = await import('../../src/checks/audio.ts');
    const whole = wav(22050);
    expect(() => assertWavWhole(whole, parseWav(whole), 'wav')).not.toThrow();
    const cut = whole.subarray(0, 20_000);
    expect(() => assertWavWhole(cut, parseWav(cut), 'wav')).toThrow(
      /declares 44100 bytes .* holds 19956.*cut short/,
    );
    const tailed = Buffer.concat([whole, Buffer.alloc(100, 7)]);
    expect(() => assertWavWhole(tailed, parseWav(tailed), 'wav')).toThrow(/100 bytes follow the wav/);
  });
});

describe('a wav with streaming placeholder sizes', () => {
  it('claims no length, so it is not held to one', async () => {
    const { assertWavWhole } = await import('../../src/checks/audio.ts');
    const streamed = wav(22050, 22050, 0xffffffff);
    expect(() => assertWavWhole(streamed, parseWav(streamed), 'wav')).not.toThrow();
  });
});
