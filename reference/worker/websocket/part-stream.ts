/**
 * One part of a take, spoken and framed for the websocket in either stream mode.
 *
 * parts mode: one frame per part holding a complete WAV (header sized for the part); sent when the
 * part is finished.
 *
 * chunks mode: chunk 0 is the WAV header whose sizes cover the WHOLE part, chunks 1..n carry the
 * samples as espeak produces them, and an empty chunk n+1 ends the part. The part's length is only
 * known when espeak has finished it, and the contract wants the header's length to be exact. So the
 * audio chunks go out as they are produced (first audio within a few ms: the latency target) and
 * chunk 0, the 44-byte header alone, follows when the part is done, just before the end chunk. The
 * protocol lets frames arrive in any order and receivers rebuild it from chunk_id, so this keeps both
 * the exact header and the latency. Trade-off: a player that insists on the header before playing
 * cannot start until the part is synthesized (espeak runs ~30x real time, so ~100 ms for a 3 s
 * sentence); one that knows the format (fixed: 22050 Hz mono 16-bit, also in every earlier part's
 * header and in the take's info.audio_rate) can play chunk 1 at once. Rejected alternatives: waiting
 * for the part to end before sending anything (latency = whole part), an unknown-length header
 * (breaks "length covers the whole part"), a guessed length padded with silence (a guess can be short).
 */

import { wavHeader } from '../../audio/wav.ts';
import { defects } from '../../defects/index.ts';
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
  const firstChunk = defects.has('ws-chunk-id-from-1') ? 1 : 0;
  let nextChunk = firstChunk + 1;
  await synth.synthesizePart(text, voice, (samples) => {
    pcm.push(samples);
    if (target.mode === 'chunks') {
      target.emit(
        encodeAudioFrame(
          meta(nextChunk++),
          Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength),
        ),
      );
    }
    target.onSamples?.(samples);
  });
  const dataBytes = pcm.reduce((n, s) => n + s.byteLength, 0);
  const headerBytes = defects.has('ws-chunk0-sized-for-chunk') ? (pcm.at(-1)?.byteLength ?? 0) : dataBytes;
  const header = wavHeader({
    sampleRate: outputSampleRate(),
    dataBytes: target.mode === 'chunks' ? headerBytes : dataBytes,
  });
  if (target.mode === 'parts') {
    const body = Buffer.concat(pcm.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength)));
    target.emit(encodeAudioFrame(meta(), Buffer.concat([header, body])));
  } else {
    target.emit(encodeAudioFrame(meta(firstChunk), header));
    target.emit(encodeAudioFrame(meta(nextChunk)));
  }
  return dataBytes / 2;
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
