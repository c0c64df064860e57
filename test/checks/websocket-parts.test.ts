/**
 * The part checks on hand-made frame sequences: where chunk 0 arrives among its part's chunks, and
 * whether parts are sentences ending in silence.
 */
import { describe, expect, it } from 'vitest';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { Finding } from '../../src/checks/finding.ts';
import {
  assertChunkZeroBeforePartEnd,
  assertChunkZeroFirst,
  assertPartsAreSentences,
  chunkZeroAfterPartEnd,
  chunkZeroNotFirst,
  framesByPart,
  noChunkedPart,
  partTailPeaks,
} from '../../src/checks/websocket-parts.ts';
import { type ReassembledTake, reassemble } from '../../src/client/reassembler.ts';
import { decodeAudioFrame } from '../../src/client/ws-frame.ts';
import type { ReceivedFrame } from '../../src/client/ws-stream.ts';

/** An audio frame `seq` of `part`, chunk `chunk` (0: the header), with `bytes` of audio. */
const frame = (seq: number, part: number, chunk: number, bytes = 8): ReceivedFrame => ({
  seq,
  atMs: seq,
  metadata: { take_id: 't', request_id: 1, part_id: part, chunk_id: chunk },
  audio: Buffer.alloc(bytes),
});

function request(frames: ReceivedFrame[], partIds: number[]) {
  return {
    frames,
    reassembly: { parts: partIds.map((partId) => ({ partId })) } as unknown as ReassembledTake,
  };
}

describe('framesByPart', () => {
  it("groups a part's audio frames and finds its chunk 0; empty end chunks are no audio", () => {
    const parts = framesByPart(
      request([frame(1, 0, 0), frame(2, 0, 1), frame(3, 0, 2, 0), frame(4, 1, 0)], [0, 1]),
    );
    expect(parts.map((p) => [p.partId, p.audioFrames.map((f) => f.seq), p.header?.seq])).toEqual([
      [0, [1, 2], 1],
      [1, [4], 4],
    ]);
  });
});

describe('a chunks-mode request without a part in chunks form', () => {
  const ended = (parts: number[], kinds: string[], outcome = 'ended' as const) => ({
    outcome,
    reassembly: {
      parts: parts.map((partId) => ({ partId })),
      findings: kinds.map((kind) => ({ kind, seqs: [], message: kind })),
    } as unknown as ReassembledTake,
  });

  it('is judged when a part was built', () => {
    expect(noChunkedPart(ended([0], []))).toBeUndefined();
  });

  it('says a parts-form answer: its frames had no chunk_id', () => {
    expect(noChunkedPart(ended([], ['mode-mismatch', 'mode-mismatch', 'gap']))).toBe(
      'the chunks-mode request streamed no audio part in chunks form: its 2 audio frame(s) came without chunk_id (parts form)',
    );
  });

  it('is what the reassembler leaves of a server that answers stream "chunks" in parts form', () => {
    const parts = [tonePcm(300, 1), tonePcm(170, 2)];
    const s = buildSyntheticStream({ mode: 'parts', requestId: 1, takeId: 't', parts, chunkBytes: 200 });
    const frames = s.frames.map((f, seq) => ({ seq, ...decodeAudioFrame(f) }));
    const take = reassemble([{ requestId: 1, mode: 'chunks', takeId: 't' }], frames).takes[0]!;
    expect(noChunkedPart({ outcome: 'ended', reassembly: take })).toMatch(
      /its 2 audio frame\(s\) came without chunk_id/,
    );
  });

  it('says how a request ended before any audio', () => {
    expect(noChunkedPart({ ...ended([], []), outcome: 'error-message' })).toBe(
      'the chunks-mode request streamed no audio part in chunks form: the request ended (error-message) before any part was built',
    );
  });
});

describe('chunk 0 first', () => {
  it('passes chunk 0 ahead of its part', () => {
    const parts = framesByPart(request([frame(1, 0, 0), frame(2, 0, 1), frame(3, 0, 2)], [0]));
    expect(chunkZeroNotFirst(parts)).toEqual([]);
    expect(() => assertChunkZeroFirst([])).not.toThrow();
  });

  it('counts the audio chunks that came before chunk 0', () => {
    const parts = framesByPart(request([frame(1, 0, 1), frame(2, 0, 2), frame(3, 0, 0)], [0]));
    const late = chunkZeroNotFirst(parts);
    expect(late).toEqual(['part 0: 2 audio chunk(s) before chunk 0']);
    expect(() => assertChunkZeroFirst(late)).toThrow(Finding);
    expect(() => assertChunkZeroFirst(late)).toThrow(/^chunk 0 is not sent first: part 0: 2 audio chunk/);
  });
});

describe('chunk 0 before the part ends', () => {
  it('passes chunk 0 anywhere before the last audio chunk', () => {
    const parts = framesByPart(request([frame(1, 0, 1), frame(2, 0, 0), frame(3, 0, 2)], [0]));
    expect(chunkZeroAfterPartEnd(parts)).toEqual([]);
    expect(() => assertChunkZeroBeforePartEnd([])).not.toThrow();
  });

  it('names a chunk 0 sent last, and a missing one', () => {
    const parts = framesByPart(
      request([frame(1, 0, 1), frame(2, 0, 2), frame(3, 0, 0), frame(4, 1, 1)], [0, 1]),
    );
    const late = chunkZeroAfterPartEnd(parts);
    expect(late).toEqual(['part 0: chunk 0 after its last audio chunk', 'part 1: chunk 0 missing']);
    expect(() => assertChunkZeroBeforePartEnd(late)).toThrow(/so chunks mode is not lower latency$/);
  });
});

describe('parts are sentences ending in silence', () => {
  const pcm = (tailLevel: number) => {
    const b = Buffer.alloc(22050 * 2);
    for (let i = 0; i < b.length / 2; i++) b.writeInt16LE(i < 11025 ? 8000 : tailLevel, i * 2);
    return b;
  };

  it("reads the peak of each part's last 20 ms", () => {
    expect(partTailPeaks([{ pcm: pcm(0) }, { pcm: pcm(-3000) }], 22050)).toEqual([0, 3000]);
    // A part shorter than 20 ms is read whole; an unknown rate counts as 22050 Hz.
    expect(partTailPeaks([{ pcm: Buffer.from([0x10, 0x27]) }], undefined)).toEqual([10000]);
  });

  it('wants one part per sentence, each ending below the silence peak', () => {
    expect(() => assertPartsAreSentences(2, [0, 999])).not.toThrow();
    expect(() => assertPartsAreSentences(3, [0, 0])).toThrow(
      '2 audio parts but info.normalized_text has 3 entries',
    );
    expect(() => assertPartsAreSentences(2, [0, 1001])).toThrow(
      'part 1 does not end in silence (peak 1001 in its last 20 ms)',
    );
  });
});
