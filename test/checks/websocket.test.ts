/**
 * The stream-level helpers of src/checks/websocket.ts that need no socket: the duration tolerance
 * of WS-AUDIO-MATCHES-REST, the order requests were served in, first audio in chunks vs parts
 * mode, and a request that must have streamed.
 */
import { describe, expect, it } from 'vitest';
import {
  assertChunksSooner,
  assertStreamed,
  durationTolerance,
  formatMs,
  inServiceOrder,
} from '../../src/checks/websocket.ts';
import type { ReassembledTake } from '../../src/client/reassembler.ts';
import type { ReceivedFrame } from '../../src/client/ws-stream.ts';

const frame = (seq: number, bytes: number): ReceivedFrame => ({
  seq,
  atMs: seq,
  metadata: { take_id: 't', request_id: 1, part_id: 0 },
  audio: Buffer.alloc(bytes),
});
const stream = (mode: 'parts' | 'chunks', frames: ReceivedFrame[]) => ({
  frames,
  reassembly: { mode } as ReassembledTake,
});

describe('durationTolerance', () => {
  const rest = { sampleRate: 22050, blockAlign: 2 };

  it('is 20 ms of samples in parts mode', () => {
    expect(durationTolerance(stream('parts', [frame(1, 100_000)]), rest)).toBe(441);
  });

  it("is the stream's longest chunk in chunks mode, never less than 20 ms", () => {
    expect(durationTolerance(stream('chunks', [frame(1, 2000), frame(2, 4000)]), rest)).toBe(2000);
    expect(durationTolerance(stream('chunks', [frame(1, 100)]), rest)).toBe(441);
  });
});

describe('inServiceOrder', () => {
  it('orders requests by the arrival of their first audio frame', () => {
    const a = { name: 'a', frames: [frame(9, 1), frame(12, 1)] };
    const b = { name: 'b', frames: [frame(3, 1), frame(4, 1)] };
    expect(inServiceOrder([a, b]).map((r) => r.name)).toEqual(['b', 'a']);
  });
});

describe('assertChunksSooner', () => {
  const timed = (firstAudioMs?: number) => ({ timings: firstAudioMs === undefined ? {} : { firstAudioMs } });

  it('passes chunks mode reaching first audio sooner', () => {
    expect(() => assertChunksSooner(timed(10), timed(50))).not.toThrow();
    expect(() => assertChunksSooner(timed(10), timed())).not.toThrow();
  });

  it('names chunks mode that was not sooner, or had no audio', () => {
    expect(() => assertChunksSooner(timed(50), timed(50))).toThrow(
      'chunks mode was not faster to first audio than parts mode',
    );
    expect(() => assertChunksSooner(timed(), timed(50))).toThrow(/not faster/);
    expect(formatMs(undefined)).toBe('never');
    expect(formatMs(12.345)).toBe('12.3 ms');
  });
});

describe('assertStreamed', () => {
  it('passes a request that ended and names how another one ended', () => {
    expect(() => assertStreamed({ outcome: 'ended' }, 'the command', 'a take')).not.toThrow();
    expect(() =>
      assertStreamed({ outcome: 'error-message', diagnostic: 'refused' }, 'the command', 'a take'),
    ).toThrow('the command: error-message, refused');
    expect(() => assertStreamed({ outcome: 'closed' }, 'the command', 'a take')).toThrow(
      'the command: closed',
    );
  });
});
