/**
 * One part of a take, spoken and framed for the websocket in either stream mode.
 *
 * parts mode: one frame per part holding a complete WAV (header sized for the part); sent when the
 * part is finished.
 *
 * chunks mode: chunk 0 is the WAV header whose sizes cover the WHOLE part, chunks 1..n carry the
 * samples in espeak's own pieces, and an empty chunk n+1 ends the part — sent in that order. The
 * part's length is only known when espeak has finished it and the contract wants the header exact,
 * so the part is synthesized first (espeak makes a sentence in ~10–25 ms here) and then sent header
 * first. Every real player starts a part at chunk 0 (the vendor SDK's iterator holds everything
 * until it has it; its browser player never finishes without it), so the old way — audio chunks as
 * produced and chunk 0 when the part ended — gave a 7 ms first frame nobody could play; time to first
 * PLAYABLE audio is what a listener hears, and it is the same here (defect switch ws-chunk0-last
 * keeps that old order to prove the harness catches it). Rejected: an unknown-length header (breaks
 * "length covers the whole part"), a guessed length padded with silence (a guess can be short).
 */

import { wavHeader } from '../../audio/wav.ts';
import { defects } from '../../defects/index.ts';
import { HOSTED_FIGURES, hostedLatency, waitUntil } from '../../latitude/hosted-latency.ts';
import { latitude } from '../../latitude/index.ts';
import { outputSampleRate, type Synthesizer, type VoiceRendering } from '../../synth/index.ts';
import { encodeAudioFrame, type FrameMetadata, type RequestId } from './frames.ts';

export type StreamMode = 'parts' | 'chunks';

export interface PartStreamTarget {
  takeId: string;
  requestId: RequestId;
  partId: number;
  mode: StreamMode;
  /** Receives every binary frame of the part, in the order described above. */
  emit(frame: Buffer): void;
  /** Receives the samples as they are produced (after their frame is emitted). */
  onSamples?(pcm: Int16Array): void;
}

/** Speaks `text` and emits its frames; resolves with the part's sample count. */
export async function streamPart(
  synth: Synthesizer,
  text: string,
  voice: VoiceRendering,
  target: PartStreamTarget,
): Promise<number> {
  const pcm: Int16Array[] = [];
  const meta = (chunkId?: number): FrameMetadata => ({
    take_id: target.takeId,
    request_id: target.requestId,
    part_id: target.partId,
    ...(chunkId === undefined ? {} : { chunk_id: chunkId }),
  });
  // Defect ws-chunk-id-on-header-only: the audio chunks after the header carry part_id alone.
  const audioMeta = (chunkId: number): FrameMetadata =>
    defects.has('ws-chunk-id-on-header-only') ? meta() : meta(chunkId);
  const firstChunk = defects.has('ws-chunk-id-from-1') ? 1 : 0;
  const chunk0Last = defects.has('ws-chunk0-last');
  let streamed = firstChunk + 1;
  const partStartMs = Date.now();
  await synth.synthesizePart(text, voice, (samples) => {
    pcm.push(samples);
    // Defect ws-chunk0-last: the audio chunks go out as produced, the header after them.
    if (target.mode === 'chunks' && chunk0Last)
      target.emit(encodeAudioFrame(audioMeta(streamed++), bytesOf(samples)));
    target.onSamples?.(samples);
  });
  const storedBytes = pcm.reduce((n, s) => n + s.byteLength, 0);
  // Defect ws-stream-trims-silence: the stream leaves out the part's trailing silence, the store keeps it.
  const sent = defects.has('ws-stream-trims-silence') ? withoutTrailingSilence(pcm) : pcm;
  const dataBytes = sent.reduce((n, s) => n + s.byteLength, 0);
  const headerBytes = defects.has('ws-chunk0-sized-for-chunk') ? (sent.at(-1)?.byteLength ?? 0) : dataBytes;
  // Defect ws-part-size-in-samples: parts mode's header gives the part's size in samples, not bytes.
  const partBytes = defects.has('ws-part-size-in-samples') ? dataBytes / 2 : dataBytes;
  const header = streamedHeaderSizes(
    wavHeader({
      sampleRate: outputSampleRate(),
      dataBytes: target.mode === 'chunks' ? headerBytes : partBytes,
    }),
  );
  // Latitude hosted-latency: a hosted TTS's pace, not espeak's (see latitude/hosted-latency.ts).
  if (hostedLatency()) {
    await emitAtHostedPace(
      target,
      header,
      Buffer.concat(sent.map(bytesOf)),
      meta,
      audioMeta,
      firstChunk,
      partStartMs,
    );
    return storedBytes / 2;
  }
  if (target.mode === 'parts') {
    target.emit(encodeAudioFrame(meta(), Buffer.concat([header, ...sent.map(bytesOf)])));
  } else {
    target.emit(encodeAudioFrame(meta(firstChunk), header));
    let nextChunk = chunk0Last ? streamed : firstChunk + 1;
    if (!chunk0Last)
      for (const samples of sent) target.emit(encodeAudioFrame(audioMeta(nextChunk++), bytesOf(samples)));
    // Defect ws-no-part-end-chunk: no empty chunk ends the part (only the take's end marker follows).
    if (!defects.has('ws-no-part-end-chunk')) target.emit(encodeAudioFrame(meta(nextChunk)));
  }
  return storedBytes / 2;
}

/**
 * Latitude hosted-latency: the part's first audio leaves wsFirstAudioMs after the part started, then
 * one chunk of wsChunkAudioMs of sound every wsChunkEveryMs (in parts mode the whole part leaves
 * when its last chunk would have). Waits are timers: other connections are served meanwhile.
 */
async function emitAtHostedPace(
  target: PartStreamTarget,
  header: Buffer,
  audio: Buffer,
  meta: (chunkId?: number) => FrameMetadata,
  audioMeta: (chunkId: number) => FrameMetadata,
  firstChunk: number,
  partStartMs: number,
): Promise<void> {
  const chunkBytes = Math.max(2, Math.round((outputSampleRate() * HOSTED_FIGURES.wsChunkAudioMs) / 1000) * 2);
  const chunks: Buffer[] = [];
  for (let at = 0; at < audio.length; at += chunkBytes) chunks.push(audio.subarray(at, at + chunkBytes));
  const firstAudioMs = partStartMs + HOSTED_FIGURES.wsFirstAudioMs;
  const chunkDueMs = (index: number) => firstAudioMs + index * HOSTED_FIGURES.wsChunkEveryMs;
  if (target.mode === 'parts') {
    await waitUntil(chunkDueMs(Math.max(0, chunks.length - 1)));
    target.emit(encodeAudioFrame(meta(), Buffer.concat([header, audio])));
    return;
  }
  await waitUntil(firstAudioMs);
  target.emit(encodeAudioFrame(meta(firstChunk), header));
  for (let index = 0; index < chunks.length; index++) {
    await waitUntil(chunkDueMs(index));
    target.emit(encodeAudioFrame(audioMeta(firstChunk + 1 + index), chunks[index]!));
  }
  if (!defects.has('ws-no-part-end-chunk'))
    target.emit(encodeAudioFrame(meta(firstChunk + 1 + chunks.length)));
}

/**
 * Defect ws-wav-size-16bit: the streamed header's RIFF and data sizes written as 16-bit values (the
 * rest of each 32-bit field zero): right for a part under 64 KiB of audio (about 1.5 s), wrong for a
 * longer one, so only texts with a longer sentence are hit.
 */
function streamedHeaderSizes(header: Buffer): Buffer {
  if (!defects.has('ws-wav-size-16bit')) return header;
  for (const at of [4, 40]) header.writeUInt32LE(header.readUInt32LE(at) & 0xffff, at);
  return header;
}

/** Below this level a sample counts as silence (of 32767). */
const SILENCE_LEVEL = 256;

/** The part's pieces cut after its last sample above the silence level (the defect above). */
function withoutTrailingSilence(pcm: Int16Array[]): Int16Array[] {
  let keep = pcm.reduce((n, s) => n + s.length, 0);
  const at = (i: number): number => {
    let rest = i;
    for (const piece of pcm) {
      if (rest < piece.length) return piece[rest]!;
      rest -= piece.length;
    }
    return 0;
  };
  while (keep > 0 && Math.abs(at(keep - 1)) < SILENCE_LEVEL) keep--;
  const out: Int16Array[] = [];
  for (const piece of pcm) {
    if (keep <= 0) break;
    out.push(piece.subarray(0, Math.min(piece.length, keep)));
    keep -= piece.length;
  }
  return out;
}

/**
 * The bytes of `samples` as they go on the wire. Latitude ws-stream-reencoded: each sample's lowest
 * bit flipped (a ±1 dither, inaudible), so the stream lasts as long at the same rate as the stored
 * wav but its PCM differs, as from a stream re-encoded on its way.
 */
function bytesOf(samples: Int16Array): Buffer {
  if (latitude.has('ws-stream-reencoded')) {
    const dithered = Int16Array.from(samples, (sample) => sample ^ 1);
    return Buffer.from(dithered.buffer, dithered.byteOffset, dithered.byteLength);
  }
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** The end of a take's stream: a part one past the last, with no audio (chunk_id 0 in chunks mode). */
export function endOfTakeFrame(
  takeId: string,
  requestId: RequestId,
  partCount: number,
  mode: StreamMode,
): Buffer {
  return encodeAudioFrame({
    take_id: takeId,
    request_id: requestId,
    part_id: partCount,
    ...(mode === 'chunks' ? { chunk_id: 0 } : {}),
  });
}
