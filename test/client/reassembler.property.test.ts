/**
 * The reassembler's two promises, as properties:
 * (1) any arrival order of a stream rebuilds byte-identically the audio of the in-order stream;
 * (2) any single dropped or duplicated frame is reported, never silently accepted.
 * Streams: every recorded real stream in fixtures/ws-streams/*.json, plus generated streams of real
 * 16-bit PCM (random part counts, part lengths and chunk sizes) in both modes.
 * Each property runs 1,000 cases; the seed is printed (SPEAKCHECK_SEED replays it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertySeed } from '../../fixtures/property-seed.ts';
import { loadRecordedStreams } from '../../fixtures/ws-streams/recorded.ts';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { type ArrivedFrame, type ReassemblyRequest, reassemble } from '../../src/client/reassembler.ts';
import { decodeAudioFrame } from '../../src/client/ws-frame.ts';

const RUNS = 1000;

interface Case {
  name: string;
  request: ReassemblyRequest;
  frames: ArrivedFrame[];
}

function decoded(frames: Buffer[]): ArrivedFrame[] {
  return frames.map((f, seq) => ({ seq, ...decodeAudioFrame(f) }));
}

const recorded: Case[] = loadRecordedStreams().map((s) => ({
  name: s.file,
  request: { requestId: s.requestId, mode: s.mode, takeId: s.takeId },
  frames: decoded(s.frames),
}));

/** A generated stream: 1-4 parts of 0-900 samples, chunks of 1-700 bytes, header with or without samples in chunk 0, either mode. */
const syntheticCase: fc.Arbitrary<Case> = fc
  .record({
    mode: fc.constantFrom('parts' as const, 'chunks' as const),
    requestId: fc.oneof(fc.nat({ max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 12 })),
    partSamples: fc.array(fc.nat({ max: 900 }), { minLength: 1, maxLength: 4 }),
    chunkBytes: fc.integer({ min: 1, max: 700 }),
    headerAlone: fc.boolean(),
    seed: fc.nat({ max: 1000 }),
  })
  .map(({ mode, requestId, partSamples, chunkBytes, headerAlone, seed }) => {
    const parts = partSamples.map((n, i) => tonePcm(n, seed + i));
    const s = buildSyntheticStream({
      mode,
      requestId,
      takeId: `take-${seed}`,
      parts,
      chunkBytes,
      headerAlone,
    });
    return {
      name: `synthetic ${mode} ${partSamples.join('+')} samples / ${chunkBytes}-byte chunks${headerAlone && mode === 'chunks' ? ', header alone in chunk 0' : ''}`,
      request: { requestId, mode, takeId: `take-${seed}` },
      frames: decoded(s.frames),
    };
  });

const anyCase: fc.Arbitrary<Case> =
  recorded.length > 0 ? fc.oneof(fc.constantFrom(...recorded), syntheticCase) : syntheticCase;

/** Frames as (part, chunk) ids: a counterexample prints as its arrival order, not as megabytes of audio. */
function ids(frames: ArrivedFrame[]): string {
  return frames
    .map(
      (f) =>
        `${f.metadata.part_id}${f.metadata.chunk_id == null ? '' : `.${f.metadata.chunk_id}`}${f.audio.length ? '' : '∅'}`,
    )
    .join(' ');
}

/** Makes fast-check print `text` for a value in its failure report. */
function printedAs<T extends object>(value: T, text: () => string): T {
  return Object.assign(value, { [fc.toStringMethod]: text });
}

/** A case with its frames in a random arrival order (seq renumbered as the new arrival order). */
const permuted = anyCase.chain((c) =>
  fc.shuffledSubarray(c.frames, { minLength: c.frames.length, maxLength: c.frames.length }).map((order) => {
    const arrived = order.map((f, seq) => ({ ...f, seq }));
    return printedAs(
      { ...c, arrived },
      () => `${c.name}; arrival order (part.chunk, ∅ = empty): ${ids(arrived)}`,
    );
  }),
);

describe('reassembler properties', () => {
  it(`(1) any permutation of a stream reassembles byte-identically (${RUNS} runs; recorded streams: ${recorded.length})`, () => {
    const seed = propertySeed('reassembler permutation property');
    fc.assert(
      fc.property(permuted, (c) => {
        const inOrder = reassemble([c.request], c.frames).takes[0]!;
        const shuffled = reassemble([c.request], c.arrived);
        expect(inOrder.findings, `${c.name}: the in-order stream itself is flawed`).toEqual([]);
        expect(shuffled.findings, c.name).toEqual([]);
        const take = shuffled.takes[0]!;
        expect(take.complete).toBe(true);
        expect(take.pcm.equals(inOrder.pcm), `${c.name}: PCM differs`).toBe(true);
        expect(take.parts.length).toBe(inOrder.parts.length);
        for (const [i, p] of take.parts.entries()) {
          expect(p.wav.equals(inOrder.parts[i]!.wav), `${c.name}: part ${i}`).toBe(true);
        }
        expect(take.totalSamples).toBe(inOrder.totalSamples);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it(`(2) any dropped or duplicated frame is reported, never silently accepted (${RUNS} runs)`, () => {
    const seed = propertySeed('reassembler drop/duplicate property');
    const damaged = permuted.chain((c) =>
      fc
        .record({
          index: fc.nat({ max: c.arrived.length - 1 }),
          drop: fc.boolean(),
          at: fc.nat({ max: c.arrived.length }),
        })
        .map(({ index, drop, at }) => {
          const frames = [...c.arrived];
          const victim = frames[index]!;
          if (drop) frames.splice(index, 1);
          else frames.splice(at, 0, victim);
          const damagedFrames = frames.map((f, seq) => ({ ...f, seq }));
          return printedAs(
            { ...c, damaged: damagedFrames, drop, victim },
            () =>
              `${c.name}; ${drop ? 'dropped' : 'duplicated'} ${ids([victim])}; arrival order: ${ids(damagedFrames)}`,
          );
        }),
    );
    fc.assert(
      fc.property(damaged, (c) => {
        const r = reassemble([c.request], c.damaged);
        const found = r.findings.map((f) => f.kind);
        const where = `${c.name}: ${c.drop ? 'dropped' : 'duplicated'} part ${c.victim.metadata.part_id} chunk ${c.victim.metadata.chunk_id}`;
        if (c.drop) {
          expect(found.length, where).toBeGreaterThan(0);
          expect(
            found.every((k) => k === 'gap' || k === 'missing-end-of-part' || k === 'missing-end-of-take'),
            `${where}: ${found.join(', ')}`,
          ).toBe(true);
          expect(r.takes[0]!.complete, where).toBe(false);
        } else {
          expect(found, where).toEqual(['duplicate-frame']);
          expect(r.findings[0]!.partId).toBe(c.victim.metadata.part_id);
        }
      }),
      { seed, numRuns: RUNS },
    );
  });
});
