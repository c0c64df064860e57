/**
 * load/lib/stream-figures.ts on hand-built frame timelines whose answers are worked out by hand:
 * 22050 Hz mono 16-bit = 44100 bytes per audio second.
 */
import { describe, expect, it } from 'vitest';
import { type FrameArrival, streamFigures } from '../../load/lib/stream-figures.ts';

const RATE = 44_100;
const header = (atMs: number, partId = 0, chunkId: number | undefined = 0): FrameArrival => ({
  atMs,
  partId,
  chunkId,
  audioBytes: 44,
  sampleBytes: 0,
  startsWithWav: true,
  byteRate: RATE,
});
const samples = (atMs: number, chunkId: number, seconds: number, partId = 0): FrameArrival => ({
  atMs,
  partId,
  chunkId,
  audioBytes: seconds * RATE,
  sampleBytes: seconds * RATE,
  startsWithWav: false,
});
const endOfPart = (atMs: number, chunkId: number, partId = 0): FrameArrival => ({
  atMs,
  partId,
  chunkId,
  audioBytes: 0,
  sampleBytes: 0,
  startsWithWav: false,
});

describe('stream figures of one websocket take', () => {
  it("chunks mode, header last (today's reference): playable only when chunk 0 arrives", () => {
    const f = streamFigures([
      samples(5, 1, 0.5),
      samples(40, 2, 0.5),
      samples(80, 3, 1),
      header(90),
      endOfPart(91, 4),
      endOfPart(92, 0, 1), // end of take
    ]);
    expect(f.firstFrameMs).toBe(5);
    expect(f.firstPlayableMs).toBe(90);
    expect(f.firstPartEndMs).toBe(91);
    expect(f.lastByteMs).toBe(90);
    expect(f.audioSeconds).toBe(2);
    expect(f.realTimeFactor).toBeCloseTo(2 / 0.09, 9);
    // Every sample was there by the playable moment: nothing can stall.
    expect(f.minCumulativeRtf).toBeUndefined();
    expect(f.gapsMs).toEqual([35, 40, 10]);
  });

  it('chunks mode, header first: playable with chunk 1; the buffer runs dry when chunk 3 is late', () => {
    const f = streamFigures([
      header(4),
      samples(6, 1, 0.1),
      samples(56, 2, 0.1), // 0.1 s buffered, 0.05 s played: ratio 2
      samples(506, 3, 0.3), // 0.2 s buffered, 0.5 s played: ratio 0.4 → underrun
      endOfPart(507, 4),
    ]);
    expect(f.firstPlayableMs).toBe(6);
    expect(f.minCumulativeRtf).toBeCloseTo(0.4, 9);
    expect(f.realTimeFactor).toBeCloseTo(0.5 / 0.506, 9);
  });

  it('chunk 1 before the header but chunk 2 after it: playable when the header arrives (order matters)', () => {
    const f = streamFigures([samples(3, 1, 0.1), header(20), samples(21, 2, 0.1)]);
    expect(f.firstPlayableMs).toBe(20);
  });

  it('parts mode: the part-0 frame holds header and samples and is playable at once', () => {
    const part = (atMs: number, partId: number, seconds: number): FrameArrival => ({
      atMs,
      partId,
      audioBytes: 44 + seconds * RATE,
      sampleBytes: seconds * RATE,
      startsWithWav: true,
      byteRate: RATE,
    });
    const f = streamFigures([part(100, 0, 2), part(300, 1, 1)]);
    expect(f.firstFrameMs).toBe(100);
    expect(f.firstPlayableMs).toBe(100);
    expect(f.firstPartEndMs).toBe(100);
    expect(f.minCumulativeRtf).toBeCloseTo(2 / 0.2, 9);
    expect(f.realTimeFactor).toBeCloseTo(3 / 0.3, 9);
    expect(f.gapsMs).toEqual([200]);
  });

  it('no header at all: first frame and gaps, but neither playable audio nor real-time factors', () => {
    const f = streamFigures([samples(5, 1, 0.1), samples(9, 2, 0.1)]);
    expect(f.firstFrameMs).toBe(5);
    expect(f.firstPlayableMs).toBeUndefined();
    expect(f.realTimeFactor).toBeUndefined();
    expect(f.gapsMs).toEqual([4]);
  });
});
