import { describe, expect, it } from 'vitest';
import {
  PartRecorder,
  PartReplays,
  replayPart,
  type SpokenPart,
} from '../../../reference/synth/part-replay.ts';

const part = (samples: number, doneAtMs: number, atMs: number[] = [0]): SpokenPart => ({
  buffers: atMs.map((at) => ({ atMs: at, pcm: new Int16Array(samples / atMs.length).fill(7) })),
  doneAtMs,
  samples,
});

describe('PartReplays', () => {
  it('keys a part by its text and its engine settings', () => {
    const replays = new PartReplays();
    replays.set(PartReplays.key('Hello.', { voice: 'a' }), part(100, 5));
    expect(replays.get(PartReplays.key('Hello.', { voice: 'a' }))?.samples).toBe(100);
    expect(replays.get(PartReplays.key('Hello.', { voice: 'b' }))).toBeUndefined();
    expect(replays.get(PartReplays.key('Hello!', { voice: 'a' }))).toBeUndefined();
  });

  it('drops the least recently used parts beyond its bound', () => {
    const replays = new PartReplays(3 * 200); // three parts of 100 samples (200 bytes)
    for (const k of ['a', 'b', 'c']) replays.set(k, part(100, 5));
    replays.get('a'); // used: b is now the oldest
    replays.set('d', part(100, 5));
    expect([...['a', 'b', 'c', 'd']].map((k) => replays.get(k) !== undefined)).toEqual([
      true,
      false,
      true,
      true,
    ]);
    replays.set('huge', part(1000, 5)); // larger than the whole bound: not kept, nothing dropped
    expect(replays.size).toBe(3);
  });

  it('replays at the fastest pace the engine has shown, never slower than the part took', () => {
    const replays = new PartReplays();
    const slowFirst = part(22_050, 400); // computed on a busy machine
    replays.set('slow', slowFirst);
    expect(replays.replayMs(slowFirst)).toBe(400);
    replays.set('quick', part(44_100, 200)); // the engine at its pace: 200 ms for two seconds
    expect(replays.replayMs(slowFirst)).toBe(100);
    // A short part says nothing of the pace (its fixed costs dominate) and is not sped up by it.
    replays.set('short', part(1_000, 50));
    expect(replays.replayMs(part(44_100, 200))).toBe(200);
    expect(replays.replayMs(part(1_000, 50))).toBe(50);
    // Before any pace is known (an empty part too): as long as it took.
    expect(new PartReplays().replayMs(part(22_050, 300))).toBe(300);
    expect(new PartReplays().replayMs({ buffers: [], doneAtMs: 5, samples: 0 })).toBe(5);
  });
});

describe('replayPart', () => {
  it('delivers copies of the recorded buffers in order, spread over the duration, and its sample count', async () => {
    const recorded = part(300, 100, [0, 40, 80]);
    const got: { at: number; pcm: Int16Array }[] = [];
    const start = performance.now();
    const samples = await replayPart(recorded, 50, (pcm) => got.push({ at: performance.now() - start, pcm }));
    const tookMs = performance.now() - start;
    expect(samples).toBe(300);
    expect(got.map((g) => g.pcm.length)).toEqual([100, 100, 100]);
    expect(got[0]!.pcm).not.toBe(recorded.buffers[0]!.pcm); // a copy: a consumer may transfer it
    expect(got[2]!.at).toBeGreaterThanOrEqual(39); // 80 ms scaled to half: 40 ms
    expect(tookMs).toBeGreaterThanOrEqual(49);
  });

  it('a recorder keeps copies of what espeak delivered, with their moments', () => {
    const recorder = new PartRecorder();
    const pcm = new Int16Array([1, 2, 3]);
    recorder.add(pcm);
    pcm.fill(0); // the delivered buffer is reused or transferred
    const spoken = recorder.done(3);
    expect([...spoken.buffers[0]!.pcm]).toEqual([1, 2, 3]);
    expect(spoken.samples).toBe(3);
    expect(spoken.doneAtMs).toBeGreaterThanOrEqual(spoken.buffers[0]!.atMs);
  });
});
