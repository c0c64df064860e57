/**
 * Rebuilds the audio of websocket take requests from audio frames in ANY arrival order, and says
 * precisely what is wrong with the stream. Pure: no I/O, no clock; the same frames in any order give
 * the same parts, PCM and findings (findings only quote arrival numbers, which are the input's own).
 *
 * The stream, as speak-v1.md (Events → Websocket stream) and wire-facts.md describe it:
 * - every audio frame names its take, its request and a part_id; in chunks mode also a chunk_id;
 * - parts mode: each part is one frame holding a whole WAV file;
 * - chunks mode: chunk 0 of a part starts with the WAV header, whose sizes cover the whole part;
 *   the chunks are concatenated; an empty chunk (chunk_id >= 1) ends the part;
 * - the take ends with an empty frame whose part_id is one past the last audio part
 *   (chunk_id 0 or absent).
 */

import { parseWavHeader, WavHeaderError, type WavHeaderFacts } from './wav-header.ts';
import { type AudioFrameMetadata, frameRequestKey, type RequestId, requestKey } from './ws-frame.ts';

export type StreamMode = 'parts' | 'chunks';

export interface ReassemblyRequest {
  requestId: RequestId;
  mode: StreamMode;
  /** The take this request created, when a text frame has named it; otherwise learned from the frames. */
  takeId?: string;
  /** Arrival number after which the client considered the request ended; later frames are findings. */
  endedAtSeq?: number;
}

export interface ArrivedFrame {
  /** Arrival number on the connection (any increasing numbering); quoted in findings. */
  seq: number;
  metadata: AudioFrameMetadata;
  audio: Buffer;
}

export type StreamFindingKind =
  | 'duplicate-frame'
  | 'gap'
  | 'missing-end-of-part'
  | 'missing-end-of-take'
  | 'chunk-after-end-of-part'
  | 'frame-after-end-of-take'
  | 'header-size-mismatch'
  | 'not-riff-wave'
  | 'format-mismatch'
  | 'mode-mismatch'
  | 'unknown-request'
  | 'unknown-take';

export interface StreamFinding {
  kind: StreamFindingKind;
  message: string;
  requestId?: RequestId | null;
  takeId?: string;
  partId?: number;
  chunkId?: number;
  /** Arrival numbers of the frames concerned. */
  seqs?: number[];
}

export interface ReassembledPart {
  partId: number;
  /** The part's bytes as received: a whole WAV file (header + samples) when the stream is right. */
  wav: Buffer;
  /** Undefined when the header is missing or not RIFF/WAVE (a finding says which). */
  header?: WavHeaderFacts;
  /** Sample bytes of the part (the data chunk, as much as arrived). */
  pcm: Buffer;
  samples: number;
  /** Number of audio frames the part was built from (parts mode: 1). */
  frames: number;
  /** Every frame up to the part's end was present (chunks mode: including the empty end chunk). */
  complete: boolean;
}

export interface ReassembledTake {
  requestId: RequestId;
  takeId?: string;
  mode: StreamMode;
  /** Audio parts in part_id order (the end-of-take marker is not a part). */
  parts: ReassembledPart[];
  /** All parts' samples concatenated: comparable with the data chunk of the REST wav. */
  pcm: Buffer;
  totalSamples: number;
  sampleRate?: number;
  /** part_id of the end-of-take marker, when one arrived. */
  endPartId?: number;
  /** End of take seen and every part before it complete: nothing is missing. */
  complete: boolean;
  findings: StreamFinding[];
}

export interface Reassembly {
  takes: ReassembledTake[];
  /** Frames that belong to no request (unknown request_id). */
  strayFindings: StreamFinding[];
  /** Every finding, strays first, then each take's in request order. */
  findings: StreamFinding[];
}

function describeId(id: RequestId | null | undefined): string {
  return typeof id === 'string' ? JSON.stringify(id) : String(id);
}

const byNumber = (a: number, b: number) => a - b;

/** Frames of one key (part, or part+chunk), the first arrival kept, the rest reported as duplicates. */
interface Slot {
  frame: ArrivedFrame;
  duplicates: ArrivedFrame[];
}

function firstBySeq(frames: ArrivedFrame[]): ArrivedFrame[] {
  return [...frames].sort((a, b) => a.seq - b.seq);
}

/** Walks well-formed RIFF chunks after the data chunk; true when they exactly fill `rest`. */
function isWholeRiffChunks(rest: Buffer): boolean {
  let at = 0;
  while (at + 8 <= rest.length) {
    const size = rest.readUInt32LE(at + 4);
    at += 8 + size + (size % 2);
  }
  return at === rest.length;
}

function missingList(present: Set<number>, upTo: number): number[] {
  const missing: number[] = [];
  for (let i = 0; i < upTo; i++) if (!present.has(i)) missing.push(i);
  return missing;
}

function ranges(ids: number[]): string {
  const out: string[] = [];
  let start = ids[0];
  let prev = ids[0];
  for (const id of [...ids.slice(1), Number.NaN]) {
    if (id === (prev as number) + 1) {
      prev = id;
      continue;
    }
    out.push(start === prev ? `${start}` : `${start}..${prev}`);
    start = id;
    prev = id;
  }
  return out.join(', ');
}

class TakeBuilder {
  readonly findings: StreamFinding[] = [];
  private readonly where: string;

  constructor(
    private readonly request: ReassemblyRequest,
    private readonly takeId: string | undefined,
  ) {
    this.where = `request ${describeId(request.requestId)}${takeId ? ` (take ${takeId})` : ''}`;
  }

  private add(f: Omit<StreamFinding, 'requestId' | 'takeId'>): void {
    this.findings.push({
      requestId: this.request.requestId,
      ...(this.takeId ? { takeId: this.takeId } : {}),
      ...f,
    });
  }

  build(frames: ArrivedFrame[]): ReassembledTake {
    const { mode } = this.request;
    if (this.request.endedAtSeq !== undefined) {
      const late = frames.filter((f) => f.seq > (this.request.endedAtSeq as number));
      if (late.length > 0) {
        this.add({
          kind: 'frame-after-end-of-take',
          seqs: late.map((f) => f.seq).sort(byNumber),
          message: `${this.where}: ${late.length} audio frame(s) arrived after the request had ended (end of take and done status seen at arrival #${this.request.endedAtSeq})`,
        });
      }
    }
    // Group by part, then by chunk; in parts mode every part has the single chunk key 0.
    const parts = new Map<number, Map<number, Slot>>();
    for (const frame of firstBySeq(frames)) {
      const chunkId = this.chunkKey(frame);
      if (chunkId === undefined) continue;
      const partId = frame.metadata.part_id;
      let chunks = parts.get(partId);
      if (!chunks) {
        chunks = new Map();
        parts.set(partId, chunks);
      }
      const slot = chunks.get(chunkId);
      if (slot) slot.duplicates.push(frame);
      else chunks.set(chunkId, { frame, duplicates: [] });
    }
    for (const [partId, chunks] of parts) {
      for (const [chunkId, slot] of chunks) {
        if (slot.duplicates.length === 0) continue;
        const same = slot.duplicates.every((d) => d.audio.equals(slot.frame.audio));
        this.add({
          kind: 'duplicate-frame',
          partId,
          ...(mode === 'chunks' ? { chunkId } : {}),
          seqs: [slot.frame.seq, ...slot.duplicates.map((d) => d.seq)],
          message: `${this.where}: part ${partId}${mode === 'chunks' ? ` chunk ${chunkId}` : ''} arrived ${slot.duplicates.length + 1} times (arrivals #${[slot.frame.seq, ...slot.duplicates.map((d) => d.seq)].join(', #')}), ${same ? 'with identical audio' : 'with DIFFERENT audio; the first arrival was kept'}`,
        });
      }
    }

    // The end of take: the lowest part whose chunk 0 is empty.
    const partIds = [...parts.keys()].sort(byNumber);
    const endPartId = partIds.find((p) => parts.get(p)?.get(0)?.frame.audio.length === 0);
    if (endPartId === undefined) {
      this.add({
        kind: 'missing-end-of-take',
        message: `${this.where}: no end-of-take marker (an empty audio frame with part_id one past the last part); parts received: ${partIds.length ? ranges(partIds) : 'none'}`,
      });
    } else {
      const after = partIds.filter((p) => p > endPartId);
      const extraInEnd = [...(parts.get(endPartId)?.keys() ?? [])].filter((c) => c !== 0).sort(byNumber);
      if (after.length > 0 || extraInEnd.length > 0) {
        const seqs = [
          ...after.flatMap((p) => [...(parts.get(p)?.values() ?? [])].map((s) => s.frame.seq)),
          ...extraInEnd.map((c) => parts.get(endPartId)?.get(c)?.frame.seq as number),
        ].sort(byNumber);
        this.add({
          kind: 'frame-after-end-of-take',
          partId: endPartId,
          seqs,
          message: `${this.where}: the take ended at part ${endPartId} (empty frame) but ${seqs.length} frame(s) follow it${after.length ? ` in part(s) ${ranges(after)}` : ''}${extraInEnd.length ? `${after.length ? ' and' : ''} as chunk(s) ${ranges(extraInEnd)} of the end part` : ''}`,
        });
      }
    }
    const lastAudioPart = endPartId ?? (partIds.length ? (partIds[partIds.length - 1] as number) + 1 : 0);
    const missingParts = missingList(new Set(partIds), lastAudioPart);
    if (missingParts.length > 0) {
      this.add({
        kind: 'gap',
        message: `${this.where}: part(s) ${ranges(missingParts)} missing before ${endPartId === undefined ? `part ${lastAudioPart - 1}, the last one received` : `the end-of-take marker at part ${endPartId}`}`,
      });
    }

    const built: ReassembledPart[] = [];
    for (const partId of partIds) {
      if (partId >= lastAudioPart) continue;
      built.push(this.buildPart(partId, parts.get(partId) as Map<number, Slot>));
    }
    this.checkFormats(built);
    const pcm = Buffer.concat(built.map((p) => p.pcm));
    const sampleRate = built.find((p) => p.header)?.header?.sampleRate;
    return {
      requestId: this.request.requestId,
      ...(this.takeId ? { takeId: this.takeId } : {}),
      mode,
      parts: built,
      pcm,
      totalSamples: built.reduce((n, p) => n + p.samples, 0),
      ...(sampleRate !== undefined ? { sampleRate } : {}),
      ...(endPartId !== undefined ? { endPartId } : {}),
      complete: endPartId !== undefined && missingParts.length === 0 && built.every((p) => p.complete),
      findings: this.findings,
    };
  }

  /** The chunk key of a frame in this mode, or undefined (with a finding) when the frame cannot be placed. */
  private chunkKey(frame: ArrivedFrame): number | undefined {
    const chunkId = frame.metadata.chunk_id;
    const hasChunk = chunkId !== undefined && chunkId !== null;
    const empty = frame.audio.length === 0;
    // Parts mode: each part is one message (the contract), whatever chunk_id it carries. The contract
    // asks for a chunk_id in chunks mode only and forbids none in parts mode; that parts-mode frames
    // carry none is a wire fact, observed (suites/websocket.spec.ts), not judged. A second message of
    // the same part is a duplicate.
    if (this.request.mode === 'parts') return 0;
    if (hasChunk) return chunkId as number;
    // The end-of-take marker may omit chunk_id; it then stands for chunk 0.
    if (empty) return 0;
    this.add({
      kind: 'mode-mismatch',
      partId: frame.metadata.part_id,
      seqs: [frame.seq],
      message: `${this.where}: chunks mode, but an audio frame of part ${frame.metadata.part_id} (${frame.audio.length} bytes) has no chunk_id (frame ignored)`,
    });
    return undefined;
  }

  private buildPart(partId: number, chunks: Map<number, Slot>): ReassembledPart {
    const mode = this.request.mode;
    let bytes: Buffer;
    let frames: number;
    let complete = true;
    if (mode === 'parts') {
      bytes = (chunks.get(0) as Slot).frame.audio;
      frames = 1;
    } else {
      const chunkIds = [...chunks.keys()].sort(byNumber);
      const endChunk = chunkIds.find((c) => c >= 1 && chunks.get(c)?.frame.audio.length === 0);
      if (endChunk === undefined) {
        complete = false;
        this.add({
          kind: 'missing-end-of-part',
          partId,
          message: `${this.where}: part ${partId} has no end marker (an empty chunk); chunks received: ${ranges(chunkIds)}`,
        });
      } else {
        const after = chunkIds.filter((c) => c > endChunk);
        if (after.length > 0) {
          this.add({
            kind: 'chunk-after-end-of-part',
            partId,
            chunkId: after[0] as number,
            seqs: after.map((c) => chunks.get(c)?.frame.seq as number).sort(byNumber),
            message: `${this.where}: part ${partId} ended with empty chunk ${endChunk} but chunk(s) ${ranges(after)} follow it (ignored)`,
          });
        }
      }
      const upTo = endChunk ?? (chunkIds[chunkIds.length - 1] as number) + 1;
      const missing = missingList(new Set(chunkIds), upTo);
      if (missing.length > 0) {
        complete = false;
        this.add({
          kind: 'gap',
          partId,
          chunkId: missing[0] as number,
          message: `${this.where}: part ${partId} is missing chunk(s) ${ranges(missing)} before ${endChunk === undefined ? `chunk ${upTo - 1}, the last one received` : `its end marker (chunk ${endChunk})`}`,
        });
      }
      const used = chunkIds.filter((c) => c < upTo).map((c) => (chunks.get(c) as Slot).frame.audio);
      bytes = Buffer.concat(used);
      frames = used.length + (endChunk === undefined ? 0 : 1);
      if (!chunks.has(0)) {
        // The header lives in chunk 0: without it the part's samples cannot be located.
        return { partId, wav: bytes, pcm: Buffer.alloc(0), samples: 0, frames, complete: false };
      }
    }
    const what = mode === 'parts' ? `part ${partId}` : `chunk 0 of part ${partId}`;
    const headerSource = mode === 'parts' ? bytes : (chunks.get(0) as Slot).frame.audio;
    let header: WavHeaderFacts;
    try {
      header = parseWavHeader(headerSource);
    } catch (error) {
      if (!(error instanceof WavHeaderError)) throw error;
      this.add({
        kind: 'not-riff-wave',
        partId,
        ...(mode === 'chunks' ? { chunkId: 0 } : {}),
        message: `${this.where}: ${what} (${headerSource.length} bytes) does not start with a whole RIFF/WAVE header: ${error.message}`,
      });
      return { partId, wav: bytes, pcm: Buffer.alloc(0), samples: 0, frames, complete: false };
    }
    const received = bytes.length - header.dataOffset;
    const pcm = bytes.subarray(header.dataOffset, header.dataOffset + Math.min(header.dataSize, received));
    // Sizes are only judged on a whole part: a gap is already reported and would only repeat itself here.
    if (complete) {
      const problems: string[] = [];
      if (header.riffSize !== bytes.length - 8) {
        problems.push(
          `RIFF size field ${header.riffSize} but the part is ${bytes.length} bytes (expected ${bytes.length - 8})`,
        );
      }
      const trailingOk =
        header.dataSize < received &&
        isWholeRiffChunks(bytes.subarray(header.dataOffset + header.dataSize + (header.dataSize % 2)));
      if (header.dataSize !== received && !trailingOk) {
        problems.push(
          `data size field ${header.dataSize} but ${received} sample bytes were received (${received - header.dataSize > 0 ? '+' : ''}${received - header.dataSize})`,
        );
      }
      if (pcm.length % header.blockAlign !== 0) {
        problems.push(`${pcm.length} sample bytes is not a whole number of ${header.blockAlign}-byte frames`);
      }
      if (problems.length > 0) {
        this.add({
          kind: 'header-size-mismatch',
          partId,
          message: `${this.where}: the WAV header of part ${partId} does not cover the part${mode === 'chunks' ? ` (${frames} chunks, ${bytes.length} bytes)` : ''}: ${problems.join('; ')}`,
        });
      }
    }
    return {
      partId,
      wav: bytes,
      header,
      pcm,
      samples: Math.floor(pcm.length / header.blockAlign),
      frames,
      complete,
    };
  }

  private checkFormats(parts: ReassembledPart[]): void {
    const withHeader = parts.filter((p) => p.header);
    const first = withHeader[0];
    if (!first?.header) return;
    const describe = (h: WavHeaderFacts) =>
      `format ${h.audioFormat}, ${h.channels} ch, ${h.sampleRate} Hz, ${h.bitsPerSample} bit`;
    for (const part of withHeader.slice(1)) {
      const h = part.header as WavHeaderFacts;
      const f = first.header;
      if (
        h.audioFormat !== f.audioFormat ||
        h.channels !== f.channels ||
        h.sampleRate !== f.sampleRate ||
        h.bitsPerSample !== f.bitsPerSample
      ) {
        this.add({
          kind: 'format-mismatch',
          partId: part.partId,
          message: `${this.where}: part ${part.partId} is ${describe(h)} but part ${first.partId} is ${describe(f)}; the parts cannot be joined`,
        });
      }
    }
  }
}

/** Rebuilds every request's take from the frames (any order) and reports what is wrong. */
export function reassemble(
  requests: readonly ReassemblyRequest[],
  frames: readonly ArrivedFrame[],
): Reassembly {
  const byKey = new Map<string, { request: ReassemblyRequest; frames: ArrivedFrame[]; takeId?: string }>();
  for (const request of requests)
    byKey.set(requestKey(request.requestId), {
      request,
      frames: [],
      ...(request.takeId ? { takeId: request.takeId } : {}),
    });
  const byTake = new Map<string, string>();
  for (const [key, entry] of byKey) if (entry.takeId) byTake.set(entry.takeId, key);

  const strayFindings: StreamFinding[] = [];
  const takeFindings = new Map<string, StreamFinding[]>();
  const known = [...byKey.values()].map((e) => describeId(e.request.requestId)).join(', ') || 'none';
  for (const frame of firstBySeq([...frames])) {
    const { request_id: rid, take_id: takeId } = frame.metadata;
    const key = frameRequestKey(frame.metadata, byTake);
    const entry = key ? byKey.get(key) : undefined;
    if (!entry) {
      strayFindings.push({
        kind: 'unknown-request',
        requestId: rid ?? null,
        takeId,
        partId: frame.metadata.part_id,
        seqs: [frame.seq],
        message: `audio frame #${frame.seq} (take ${takeId}, part ${frame.metadata.part_id}) names request ${describeId(rid)}, which was never sent on this connection (requests: ${known})`,
      });
      continue;
    }
    entry.takeId ??= takeId;
    if (takeId !== entry.takeId) {
      const list = takeFindings.get(key as string) ?? [];
      list.push({
        kind: 'unknown-take',
        requestId: entry.request.requestId,
        takeId,
        partId: frame.metadata.part_id,
        seqs: [frame.seq],
        message: `audio frame #${frame.seq} of request ${describeId(entry.request.requestId)} names take ${takeId}, but that request's take is ${entry.takeId} (frame ignored)`,
      });
      takeFindings.set(key as string, list);
      continue;
    }
    entry.frames.push(frame);
  }

  const takes = [...byKey.entries()].map(([key, entry]) => {
    const take = new TakeBuilder(entry.request, entry.takeId).build(entry.frames);
    take.findings.unshift(...(takeFindings.get(key) ?? []));
    return take;
  });
  return { takes, strayFindings, findings: [...strayFindings, ...takes.flatMap((t) => t.findings)] };
}
