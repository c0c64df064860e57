/**
 * load/lib/framing.ts runs inside k6; here it is checked against the harness's own frame encoder
 * (src/client/ws-frame.ts), so the two independent implementations must agree byte for byte.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isEndOfTake, parseAudioFrame, utf8Decode } from '../../load/lib/framing.ts';
import { encodeAudioFrame } from '../../src/client/ws-frame.ts';

function toArrayBuffer(b: Buffer): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
}

const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(32)]);

describe('k6 audio frame parser', () => {
  it('reads metadata and audio length of a parts-mode frame with a WAV', () => {
    const frame = parseAudioFrame(
      toArrayBuffer(encodeAudioFrame({ take_id: 't1', request_id: 'k6-1-1', part_id: 0 }, wav)),
    );
    expect(frame.meta).toEqual({ take_id: 't1', request_id: 'k6-1-1', part_id: 0 });
    expect(frame.audioBytes).toBe(wav.length);
    expect(frame.startsWithWav).toBe(true);
    expect(isEndOfTake(frame)).toBe(false);
  });

  it('tells the end of a take from the end of a part in chunks mode', () => {
    const endOfPart = parseAudioFrame(
      toArrayBuffer(encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 3 })),
    );
    const endOfTake = parseAudioFrame(
      toArrayBuffer(encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 2, chunk_id: 0 })),
    );
    const partsEnd = parseAudioFrame(
      toArrayBuffer(encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 2 })),
    );
    const middleChunk = parseAudioFrame(
      toArrayBuffer(
        encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 1 }, Buffer.alloc(100)),
      ),
    );
    expect(isEndOfTake(endOfPart)).toBe(false);
    expect(isEndOfTake(endOfTake)).toBe(true);
    expect(isEndOfTake(partsEnd)).toBe(true);
    expect(isEndOfTake(middleChunk)).toBe(false);
    expect(middleChunk.startsWithWav).toBe(false);
  });

  it('rejects malformed frames with a message that says what is wrong', () => {
    expect(() => parseAudioFrame(new ArrayBuffer(4))).toThrow(/shorter than the 8-byte header/);
    const bad = encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0 });
    bad.write('JSOX', 0, 'latin1');
    expect(() => parseAudioFrame(toArrayBuffer(bad))).toThrow(/"JSON"/);
    const long = encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0 });
    long.writeUInt32LE(10_000, 4);
    expect(() => parseAudioFrame(toArrayBuffer(long))).toThrow(/exceeds the frame/);
  });

  it('agrees with the harness encoder on any metadata and audio (UTF-8 take ids included)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
        fc.oneof(fc.integer({ min: 0 }), fc.string({ maxLength: 20 })),
        fc.nat(1000),
        fc.option(fc.nat(1000), { nil: undefined }),
        fc.uint8Array({ maxLength: 300 }),
        (takeId, requestId, partId, chunkId, audio) => {
          const meta =
            chunkId === undefined
              ? { take_id: takeId, request_id: requestId, part_id: partId }
              : { take_id: takeId, request_id: requestId, part_id: partId, chunk_id: chunkId };
          const frame = parseAudioFrame(toArrayBuffer(encodeAudioFrame(meta, audio)));
          expect(frame.meta).toEqual(meta);
          expect(frame.audioBytes).toBe(audio.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decodes UTF-8 like the platform decoder', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), (s) => {
        expect(utf8Decode(new TextEncoder().encode(s))).toBe(s);
      }),
      { numRuns: 300 },
    );
  });
});

describe('k6 audio frame parser: sample bytes', () => {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.write('data', 36, 'latin1');

  it('a header-only chunk carries no samples; raw sample chunks and header+samples do', () => {
    const headerOnly = parseAudioFrame(
      toArrayBuffer(encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 0 }, header)),
    );
    expect(headerOnly.audioBytes).toBe(44);
    expect(headerOnly.sampleBytes).toBe(0);
    const withSamples = parseAudioFrame(
      toArrayBuffer(
        encodeAudioFrame(
          { take_id: 't', request_id: 1, part_id: 0 },
          Buffer.concat([header, Buffer.alloc(100)]),
        ),
      ),
    );
    expect(withSamples.sampleBytes).toBe(100);
    const raw = parseAudioFrame(
      toArrayBuffer(
        encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 1 }, Buffer.alloc(64, 1)),
      ),
    );
    expect(raw.sampleBytes).toBe(64);
  });
});
