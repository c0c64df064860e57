import { describe, expect, it } from 'vitest';
import { buildWavHeader, parseWavHeader, WavHeaderError } from '../../src/client/wav-header.ts';

describe('WAV header reader', () => {
  it('reads the canonical 44-byte PCM header', () => {
    const h = parseWavHeader(buildWavHeader({ sampleRate: 22050, dataBytes: 1000 }));
    expect(h).toEqual({
      riffSize: 1036,
      audioFormat: 1,
      channels: 1,
      sampleRate: 22050,
      byteRate: 44100,
      blockAlign: 2,
      bitsPerSample: 16,
      dataOffset: 44,
      dataSize: 1000,
    });
  });

  it('skips chunks between fmt and data (with RIFF padding)', () => {
    const base = buildWavHeader({ sampleRate: 8000, dataBytes: 4 });
    const list = Buffer.concat([
      Buffer.from('LIST'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc'),
      Buffer.alloc(1),
    ]);
    const wav = Buffer.concat([base.subarray(0, 36), list, base.subarray(36)]);
    expect(parseWavHeader(wav).dataOffset).toBe(44 + 12);
  });

  it.each([
    [
      'not-riff',
      Buffer.concat([Buffer.from('RIFX'), buildWavHeader({ sampleRate: 1, dataBytes: 0 }).subarray(4)]),
    ],
    [
      'not-wave',
      Buffer.concat([
        buildWavHeader({ sampleRate: 1, dataBytes: 0 }).subarray(0, 8),
        Buffer.from('AVI '),
        buildWavHeader({ sampleRate: 1, dataBytes: 0 }).subarray(12),
      ]),
    ],
    ['truncated', buildWavHeader({ sampleRate: 1, dataBytes: 0 }).subarray(0, 30)],
  ])('rejects %s', (kind, bytes) => {
    expect(() => parseWavHeader(bytes)).toThrow(WavHeaderError);
    try {
      parseWavHeader(bytes);
    } catch (error) {
      expect((error as WavHeaderError).kind).toBe(kind);
    }
  });
});
