/**
 * Checks on the parts of a streamed take: in chunks mode where each part's chunk 0 (its WAV
 * header) arrived among the part's chunks, in parts mode whether parts are sentences ending in
 * silence. Each looks first (a list the suite observes), then judges that list.
 */
import type { ReceivedFrame, StreamedRequest } from '../client/ws-stream.ts';
import { Finding } from './finding.ts';

/** A part's audio frames in arrival order and its chunk 0 (the frame without a chunk_id). */
export interface PartFrames {
  partId: number;
  audioFrames: ReceivedFrame[];
  header: ReceivedFrame | undefined;
}

/** A chunks-mode request's audio frames per reassembled part, and the part's chunk 0 (its header). */
export function framesByPart(r: Pick<StreamedRequest, 'frames' | 'reassembly'>): PartFrames[] {
  return r.reassembly.parts.map((part) => {
    const audioFrames = r.frames.filter((f) => f.metadata.part_id === part.partId && f.audio.length > 0);
    return { partId: part.partId, audioFrames, header: audioFrames.find((f) => !f.metadata.chunk_id) };
  });
}

/** What would judge a requirement on the chunks of a part: a chunks-mode request that streams one. */
export const CHUNKED_PART_REMEDY =
  'a chunks-mode request that streams at least one part in chunks form (audio frames with chunk_id, the part ended by an empty chunk): a server that honours stream "chunks" and sends the take\'s audio';

/**
 * Why a chunks-mode request shows nothing about its parts' chunks, or undefined when it built a part.
 * With no part, the looking steps find nothing late and no end marker missing, and a check would
 * record the requirement as held on nothing: an error or early end before audio, or a server that
 * answered in parts form (frames without chunk_id, which the reassembler cannot place and ignores).
 */
export function noChunkedPart(r: Pick<StreamedRequest, 'outcome' | 'reassembly'>): string | undefined {
  if (r.reassembly.parts.length > 0) return undefined;
  const unplaced = r.reassembly.findings.filter((f) => f.kind === 'mode-mismatch').length;
  const why =
    unplaced > 0
      ? `its ${unplaced} audio frame(s) came without chunk_id (parts form)`
      : `the request ended (${r.outcome}) before any part was built`;
  return `the chunks-mode request streamed no audio part in chunks form: ${why}`;
}

/** WS-CHUNK0-SENT-FIRST, looking: each part whose chunk 0 came after some of its audio chunks, said how. */
export function chunkZeroNotFirst(parts: readonly PartFrames[]): string[] {
  const late: string[] = [];
  for (const { partId, audioFrames, header } of parts) {
    const before = header ? audioFrames.filter((f) => f.seq < header.seq).length : 0;
    if (before > 0) late.push(`part ${partId}: ${before} audio chunk(s) before chunk 0`);
  }
  return late;
}

/** WS-CHUNK0-SENT-FIRST, judging: chunk 0 came first in every part (`late` from chunkZeroNotFirst). */
export function assertChunkZeroFirst(late: readonly string[]): void {
  if (late.length === 0) return;
  throw new Finding(
    `chunk 0 is not sent first: ${late.join('; ')}; a client that plays chunks as they come cannot start before the header`,
    {
      expected: 'chunk 0 first',
      actual: late,
    },
  );
}

/** WS-CHUNK0-BEFORE-PART-END, looking: each part whose chunk 0 is missing or came after its last audio chunk. */
export function chunkZeroAfterPartEnd(parts: readonly PartFrames[]): string[] {
  const late: string[] = [];
  for (const { partId, audioFrames, header } of parts) {
    const lastAudio = Math.max(...audioFrames.filter((f) => f !== header).map((f) => f.seq));
    if (!header || header.seq > lastAudio)
      late.push(`part ${partId}: chunk 0 ${header ? 'after its last audio chunk' : 'missing'}`);
  }
  return late;
}

/** WS-CHUNK0-BEFORE-PART-END, judging: `late` (from chunkZeroAfterPartEnd) is empty. */
export function assertChunkZeroBeforePartEnd(late: readonly string[]): void {
  if (late.length === 0) return;
  throw new Finding(
    `${late.join('; ')}: a client cannot start a part before the part is complete, so chunks mode is not lower latency`,
    { expected: "chunk 0 before the part's last audio chunk", actual: late },
  );
}

/** How much of a part's end is listened to for silence, and the peak (16-bit) that is not silence. */
export const PART_TAIL_MS = 20;
export const SILENCE_PEAK = 1000;

/** The peak 16-bit level of each part's last PART_TAIL_MS (at `sampleRate`, 22050 Hz when unknown). */
export function partTailPeaks(
  parts: ReadonlyArray<{ pcm: Buffer }>,
  sampleRate: number | undefined,
): number[] {
  const tailBytes = Math.round(((sampleRate ?? 22050) * PART_TAIL_MS) / 1000) * 2;
  return parts.map((p) => {
    const tail = p.pcm.subarray(Math.max(0, p.pcm.length - tailBytes));
    let peak = 0;
    for (let i = 0; i + 1 < tail.length; i += 2) peak = Math.max(peak, Math.abs(tail.readInt16LE(i)));
    return peak;
  });
}

/**
 * WS-PARTS-ARE-SENTENCES: one part per sentence of info.normalized_text (`sentences`), each ending
 * in silence (`tailPeaks` from partTailPeaks).
 */
export function assertPartsAreSentences(sentences: number | undefined, tailPeaks: readonly number[]): void {
  if (sentences !== tailPeaks.length) {
    throw new Finding(`${tailPeaks.length} audio parts but info.normalized_text has ${sentences} entries`, {
      expected: sentences,
      actual: tailPeaks.length,
    });
  }
  const loud = tailPeaks.findIndex((peak) => peak > SILENCE_PEAK);
  if (loud >= 0)
    throw new Finding(
      `part ${loud} does not end in silence (peak ${tailPeaks[loud]} in its last ${PART_TAIL_MS} ms)`,
      { actual: tailPeaks[loud] },
    );
}
