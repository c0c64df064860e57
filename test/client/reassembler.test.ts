import { describe, expect, it } from 'vitest';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { type ArrivedFrame, type ReassemblyRequest, reassemble } from '../../src/client/reassembler.ts';
import { buildWavHeader } from '../../src/client/wav-header.ts';
import { decodeAudioFrame, encodeAudioFrame } from '../../src/client/ws-frame.ts';

const PARTS = [tonePcm(300, 1), tonePcm(170, 2), tonePcm(511, 3)];

function stream(mode: 'parts' | 'chunks', chunkBytes = 200) {
  const s = buildSyntheticStream({ mode, requestId: 1, takeId: 'take-1', parts: PARTS, chunkBytes });
  const frames: ArrivedFrame[] = s.frames.map((f, seq) => ({ seq, ...decodeAudioFrame(f) }));
  const request: ReassemblyRequest = { requestId: 1, mode, takeId: 'take-1' };
  return { frames, request };
}

function kinds(requests: ReassemblyRequest[], frames: ArrivedFrame[]): string[] {
  return reassemble(requests, frames).findings.map((f) => f.kind);
}

function frame(metadata: ArrivedFrame['metadata'], audio: Buffer, seq: number): ArrivedFrame {
  return { seq, metadata, audio };
}

describe.each(['parts', 'chunks'] as const)('reassembler, %s mode', (mode) => {
  it('rebuilds the parts in order from a reversed stream with no findings', () => {
    const { frames, request } = stream(mode);
    const r = reassemble([request], [...frames].reverse());
    expect(r.findings).toEqual([]);
    const take = r.takes[0]!;
    expect(take.complete).toBe(true);
    expect(take.endPartId).toBe(3);
    expect(take.parts.map((p) => p.partId)).toEqual([0, 1, 2]);
    expect(take.pcm.equals(Buffer.concat(PARTS))).toBe(true);
    expect(take.totalSamples).toBe(300 + 170 + 511);
    expect(take.sampleRate).toBe(22050);
    expect(take.parts[1]!.header?.dataSize).toBe(340);
  });

  it('reports a duplicate frame and says whether its audio differs', () => {
    const { frames, request } = stream(mode);
    const dup = { ...frames[1]!, seq: 99 };
    const r = reassemble([request], [...frames, dup]);
    expect(r.findings.map((f) => f.kind)).toEqual(['duplicate-frame']);
    expect(r.findings[0]!.message).toContain('identical audio');
    expect(r.findings[0]!.seqs).toEqual([1, 99]);
    const changed = { ...frames[1]!, seq: 100, audio: Buffer.from(frames[1]!.audio).fill(7, 50) };
    expect(reassemble([request], [...frames, changed]).findings[0]!.message).toContain('DIFFERENT audio');
  });

  it('reports a missing part as a gap', () => {
    const { frames, request } = stream(mode);
    const r = reassemble(
      [request],
      frames.filter((f) => f.metadata.part_id !== 1),
    );
    expect(r.findings.map((f) => f.kind)).toEqual(['gap']);
    expect(r.findings[0]!.message).toContain('part(s) 1 missing');
    expect(r.takes[0]!.complete).toBe(false);
  });

  it('reports a missing end-of-take marker', () => {
    const { frames, request } = stream(mode);
    const r = reassemble([request], frames.slice(0, -1));
    expect(r.findings.map((f) => f.kind)).toEqual(['missing-end-of-take']);
    expect(r.findings[0]!.message).toContain('parts received: 0..2');
    expect(r.takes[0]!.complete).toBe(false);
  });

  it('reports frames after the end of take (by part id and by arrival after the request ended)', () => {
    const { frames, request } = stream(mode);
    const late = frame({ ...frames[0]!.metadata, part_id: 5 }, frames[0]!.audio, 50);
    expect(kinds([request], [...frames, late])).toEqual(['frame-after-end-of-take']);
    const ended = { ...request, endedAtSeq: frames.length - 2 };
    const r = reassemble([ended], frames);
    expect(r.findings.map((f) => f.kind)).toEqual(['frame-after-end-of-take']);
    expect(r.findings[0]!.seqs).toEqual([frames.length - 1]);
  });

  it('reports a non-RIFF part start', () => {
    const { frames, request } = stream(mode);
    const first = frames[0]!;
    const broken = Buffer.from(first.audio);
    broken.write('RIFX', 0, 'latin1');
    const r = reassemble([request], [{ ...first, audio: broken }, ...frames.slice(1)]);
    expect(r.findings.map((f) => f.kind)).toEqual(['not-riff-wave']);
    expect(r.findings[0]!.message).toContain('"RIFX"');
  });

  it('reports a header whose sizes do not cover the part', () => {
    const { frames, request } = stream(mode);
    const first = frames[0]!;
    const lying = Buffer.from(first.audio);
    lying.writeUInt32LE(9999, 40);
    const r = reassemble([request], [{ ...first, audio: lying }, ...frames.slice(1)]);
    expect(r.findings.map((f) => f.kind)).toEqual(['header-size-mismatch']);
    expect(r.findings[0]!.message).toContain('data size field 9999 but 600 sample bytes were received');
  });

  it('reports frames for an unknown request and an unknown take', () => {
    const { frames, request } = stream(mode);
    const stray = frame({ ...frames[0]!.metadata, request_id: 2 }, frames[0]!.audio, 70);
    const r = reassemble([request], [...frames, stray]);
    expect(r.strayFindings.map((f) => f.kind)).toEqual(['unknown-request']);
    expect(r.findings[0]!.message).toContain('request 2, which was never sent');
    const other = frame({ ...frames[0]!.metadata, take_id: 'take-X' }, frames[0]!.audio, 71);
    const r2 = reassemble([request], [...frames, other]);
    expect(r2.findings.map((f) => f.kind)).toEqual(['unknown-take']);
    expect(r2.findings[0]!.message).toContain('take-X');
  });

  it('tells request 1 from request "1"', () => {
    const { frames, request } = stream(mode);
    expect(kinds([{ ...request, requestId: '1' }], frames)[0]).toBe('unknown-request');
  });

  it('places a frame without request_id by its take', () => {
    const { frames, request } = stream(mode);
    const anonymous = frames.map((f) => ({ ...f, metadata: { ...f.metadata, request_id: null } }));
    expect(kinds([request], anonymous)).toEqual([]);
  });

  it('reports parts whose formats differ', () => {
    const { frames, request } = stream(mode);
    const firstOfPart1 = frames.findIndex((f) => f.metadata.part_id === 1);
    const audio = Buffer.from(frames[firstOfPart1]!.audio);
    audio.writeUInt32LE(16000, 24);
    const edited = frames.map((f, i) => (i === firstOfPart1 ? { ...f, audio } : f));
    expect(kinds([request], edited)).toEqual(['format-mismatch']);
  });
});

describe('reassembler, chunks mode only', () => {
  it('reports a missing chunk as a gap inside the part', () => {
    const { frames, request } = stream('chunks');
    const r = reassemble(
      [request],
      frames.filter((f) => !(f.metadata.part_id === 0 && f.metadata.chunk_id === 1)),
    );
    expect(r.findings.map((f) => f.kind)).toEqual(['gap']);
    expect(r.findings[0]!.message).toContain('part 0 is missing chunk(s) 1 before its end marker');
  });

  it('reports a part without its empty end chunk', () => {
    const { frames, request } = stream('chunks');
    const r = reassemble(
      [request],
      frames.filter((f) => !(f.metadata.part_id === 2 && f.audio.length === 0)),
    );
    expect(r.findings.map((f) => f.kind)).toEqual(['missing-end-of-part']);
    expect(r.findings[0]!.partId).toBe(2);
  });

  it('reports a chunk after the end of its part', () => {
    const { frames, request } = stream('chunks');
    const endOfPart0 = frames.find((f) => f.metadata.part_id === 0 && f.audio.length === 0)!;
    const late = frame(
      { ...endOfPart0.metadata, chunk_id: (endOfPart0.metadata.chunk_id as number) + 1 },
      Buffer.from([1, 2]),
      80,
    );
    expect(kinds([request], [...frames, late])).toEqual(['chunk-after-end-of-part']);
  });

  it('reports a WAV header that is sized for the first chunk only (a streaming header)', () => {
    const pcm = tonePcm(400, 9);
    const header = buildWavHeader({ sampleRate: 22050, dataBytes: 100 });
    const audio = Buffer.concat([header, pcm]);
    const frames = [
      frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 0 }, audio.subarray(0, 144), 0),
      frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 1 }, audio.subarray(144), 1),
      frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 2 }, Buffer.alloc(0), 2),
      frame({ take_id: 't', request_id: 1, part_id: 1, chunk_id: 0 }, Buffer.alloc(0), 3),
    ];
    const r = reassemble([{ requestId: 1, mode: 'chunks' }], frames);
    expect(r.findings.map((f) => f.kind)).toEqual(['header-size-mismatch']);
    expect(r.findings[0]!.message).toContain('data size field 100 but 800 sample bytes');
    expect(r.findings[0]!.message).toContain('RIFF size field 136');
  });

  it('places a parts-mode part whatever chunk_id it carries (the contract forbids none), and reports missing chunk ids in chunks mode', () => {
    const wav = Buffer.concat([buildWavHeader({ sampleRate: 22050, dataBytes: 4 }), Buffer.alloc(4)]);
    for (const chunkId of [0, 3]) {
      const withChunk = [
        frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: chunkId }, wav, 0),
        frame({ take_id: 't', request_id: 1, part_id: 1 }, Buffer.alloc(0), 1),
      ];
      const placed = reassemble([{ requestId: 1, mode: 'parts' }], withChunk);
      expect(placed.findings).toEqual([]);
      expect(placed.takes[0]!.complete).toBe(true);
      expect(placed.takes[0]!.totalSamples).toBe(2);
    }
    // A part in two messages is not parts mode's one message per part.
    const twice = [
      frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 0 }, wav, 0),
      frame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 1 }, wav, 1),
      frame({ take_id: 't', request_id: 1, part_id: 1 }, Buffer.alloc(0), 2),
    ];
    expect(kinds([{ requestId: 1, mode: 'parts' }], twice)).toContain('duplicate-frame');
    const withoutChunk = [
      frame({ take_id: 't', request_id: 1, part_id: 0 }, wav, 0),
      frame({ take_id: 't', request_id: 1, part_id: 1 }, Buffer.alloc(0), 1),
    ];
    expect(kinds([{ requestId: 1, mode: 'chunks' }], withoutChunk)).toContain('mode-mismatch');
  });

  it('accepts data followed by whole RIFF chunks (a LIST after data)', () => {
    const pcm = tonePcm(10, 4);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO')]);
    const header = buildWavHeader({ sampleRate: 22050, dataBytes: pcm.length });
    header.writeUInt32LE(36 + pcm.length + list.length, 4);
    const wav = Buffer.concat([header, pcm, list]);
    const frames = [
      frame({ take_id: 't', request_id: 1, part_id: 0 }, wav, 0),
      frame({ take_id: 't', request_id: 1, part_id: 1 }, Buffer.alloc(0), 1),
    ];
    const r = reassemble([{ requestId: 1, mode: 'parts' }], frames);
    expect(r.findings).toEqual([]);
    expect(r.takes[0]!.pcm.equals(pcm)).toBe(true);
  });

  it('keeps two requests on one connection apart', () => {
    const a = buildSyntheticStream({
      mode: 'chunks',
      requestId: 1,
      takeId: 'a',
      parts: [tonePcm(50)],
      chunkBytes: 30,
    });
    const b = buildSyntheticStream({ mode: 'parts', requestId: 'two', takeId: 'b', parts: [tonePcm(60, 5)] });
    const frames = [...a.frames, ...b.frames].map((f, seq) => ({ seq, ...decodeAudioFrame(f) })).reverse();
    const r = reassemble(
      [
        { requestId: 1, mode: 'chunks' },
        { requestId: 'two', mode: 'parts' },
      ],
      frames,
    );
    expect(r.findings).toEqual([]);
    expect(r.takes.map((t) => t.takeId)).toEqual(['a', 'b']);
    expect(r.takes[1]!.pcm.equals(tonePcm(60, 5))).toBe(true);
  });

  it('treats an end marker frame as round-trippable through the codec', () => {
    const end = decodeAudioFrame(encodeAudioFrame({ take_id: 't', request_id: 1, part_id: 0, chunk_id: 0 }));
    const r = reassemble([{ requestId: 1, mode: 'chunks' }], [{ seq: 0, ...end }]);
    expect(r.findings).toEqual([]);
    expect(r.takes[0]!.complete).toBe(true);
    expect(r.takes[0]!.totalSamples).toBe(0);
  });
});
