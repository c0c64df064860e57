/**
 * What a listener of one websocket take hears, computed from the arrival times of its audio frames.
 * Pure code with no k6 import, so the Node tests check exactly what the k6 scenarios run.
 *
 * - first frame: the first frame carrying audio bytes (in chunks mode possibly samples without a header).
 * - first playable audio: part 0's WAV header (chunk 0) AND the samples that follow it (chunk 1) have
 *   both arrived. A player needs the header before the samples, so when the header comes late the
 *   audio becomes playable only when it arrives: playable = max(header arrival, first samples arrival).
 *   In parts mode the part-0 frame holds both.
 * - first part end: when part 0 is complete on the wire (chunks: the empty chunk closing part 0;
 *   parts: the part-0 frame) — the server's first-part synthesis time as the client sees it.
 * - last byte: the last frame carrying audio bytes.
 * - real-time factor: audio seconds of the take / wall seconds from the request to the last byte.
 * - minimum cumulative real-time factor: playback starts at the first playable moment and consumes one
 *   audio second per wall second. Just before frame i arrives (at t_i, after that moment) the player has
 *   A_i audio seconds (everything received before frame i) and has played (t_i − t_playable) seconds;
 *   A_i / (t_i − t_playable) < 1 means the buffer ran dry before frame i came: an underrun. The minimum
 *   over the frames with samples is the take's figure (undefined when every sample arrived by the
 *   playable moment: nothing can stall).
 * - inter-chunk gaps: the times between consecutive frames carrying audio bytes.
 */

export interface FrameArrival {
  /** Milliseconds since the request was sent. */
  atMs: number;
  partId: number;
  chunkId?: number | null;
  audioBytes: number;
  sampleBytes: number;
  startsWithWav: boolean;
  /** From a WAV header's fmt chunk, when the frame has one. */
  byteRate?: number;
}

export interface StreamFigures {
  firstFrameMs?: number;
  firstPlayableMs?: number;
  firstPartEndMs?: number;
  lastByteMs?: number;
  audioSeconds?: number;
  realTimeFactor?: number;
  minCumulativeRtf?: number;
  gapsMs: number[];
}

/** The frame that makes part 0 playable together with its header, or undefined. */
function firstPlayableMs(frames: FrameArrival[]): number | undefined {
  const header = frames.find((f) => f.partId === 0 && f.startsWithWav);
  if (!header) return undefined;
  if (header.sampleBytes > 0) return header.atMs;
  // The samples that directly follow the header: chunk_id one past the header's.
  const next = (header.chunkId ?? 0) + 1;
  const samples = frames.find((f) => f.partId === 0 && f.chunkId === next && f.sampleBytes > 0);
  return samples === undefined ? undefined : Math.max(header.atMs, samples.atMs);
}

function firstPartEndMs(frames: FrameArrival[]): number | undefined {
  const part0 = frames.filter((f) => f.partId === 0);
  if (part0.length === 0) return undefined;
  const chunked = part0.some((f) => f.chunkId !== undefined && f.chunkId !== null);
  if (!chunked) return part0.find((f) => f.audioBytes > 0)?.atMs;
  // chunks mode: the empty chunk with chunk_id > 0 ends the part.
  return part0.find((f) => f.audioBytes === 0 && (f.chunkId ?? 0) > 0)?.atMs;
}

function minCumulativeRtf(frames: FrameArrival[], playableMs: number, byteRate: number): number | undefined {
  let receivedBytes = 0;
  let min: number | undefined;
  for (const f of frames) {
    if (f.sampleBytes > 0 && f.atMs > playableMs) {
      const ratio = receivedBytes / byteRate / ((f.atMs - playableMs) / 1000);
      if (min === undefined || ratio < min) min = ratio;
    }
    receivedBytes += f.sampleBytes;
  }
  return min;
}

/** The figures of one take from its frames in arrival order (end-of-take frame excluded or not: it carries no audio). */
export function streamFigures(frames: FrameArrival[]): StreamFigures {
  const audio = frames.filter((f) => f.audioBytes > 0);
  const out: StreamFigures = { gapsMs: [] };
  for (let i = 1; i < audio.length; i++) out.gapsMs.push(audio[i]!.atMs - audio[i - 1]!.atMs);
  if (audio.length === 0) return out;
  out.firstFrameMs = audio[0]!.atMs;
  out.lastByteMs = audio.at(-1)!.atMs;
  const playable = firstPlayableMs(frames);
  if (playable !== undefined) out.firstPlayableMs = playable;
  const partEnd = firstPartEndMs(frames);
  if (partEnd !== undefined) out.firstPartEndMs = partEnd;
  const byteRate = frames.find((f) => f.byteRate !== undefined && f.byteRate > 0)?.byteRate;
  if (byteRate === undefined) return out;
  out.audioSeconds = frames.reduce((n, f) => n + f.sampleBytes, 0) / byteRate;
  if (out.lastByteMs > 0) out.realTimeFactor = out.audioSeconds / (out.lastByteMs / 1000);
  if (playable !== undefined) {
    const min = minCumulativeRtf(frames, playable, byteRate);
    if (min !== undefined) out.minCumulativeRtf = min;
  }
  return out;
}
