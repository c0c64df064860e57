/**
 * The wav of a take still being synthesized, as it grows (the signed wav URL before `ready`): a
 * header sized for an unknown length, then the PCM as the worker writes it.
 *
 * The header cannot say how long the recording is, so the end of the transfer is the only sign a
 * client has that it got all of it. The stream therefore ends cleanly only when the take is ready
 * (the whole file sent); every other end (the 5-minute bound, the job redone from the start, the take
 * ended in error/timeout or deleted) throws, so the server destroys the socket and the client sees a
 * cut transfer rather than a short recording that looks whole.
 */
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { WAV_HEADER_BYTES, wavHeader } from '../audio/wav.ts';
import { isDone } from '../store/status.ts';
import { getTakeRow } from '../store/takes.ts';
import { outputSampleRate } from '../synth/index.ts';
import type { ApiContext } from './context.ts';

export const STREAM_LIMIT_MS = 5 * 60 * 1000;
const STREAM_POLL_MS = 15;
const READ_CHUNK = 64 * 1024;

/** Thrown when a streamed wav stops short of the whole recording. */
export class StreamCutShort extends Error {
  override name = 'StreamCutShort';
}

export async function* growingWav(
  ctx: Pick<ApiContext, 'db' | 'audio' | 'log'>,
  takeId: string,
  limitMs = STREAM_LIMIT_MS,
): AsyncGenerator<Buffer> {
  const cut = (why: string) => {
    ctx.log(`streamed wav of ${takeId} cut short: ${why}`);
    return new StreamCutShort(`streamed wav of ${takeId} cut short: ${why}`);
  };
  yield wavHeader({ sampleRate: outputSampleRate(), dataBytes: null });
  const path = ctx.audio.wavPath(takeId);
  const deadline = Date.now() + limitMs;
  let offset = WAV_HEADER_BYTES;
  for (;;) {
    // Status first, then size: once the take is done the file is complete, so this read is the last.
    const row = getTakeRow(ctx.db, takeId);
    const size = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    // The file started over (a worker died and the job is being redone): what was sent no longer
    // matches it, and splicing two runs together would be a recording nobody made.
    if (size > 0 && size < offset) throw cut(`the audio started over after ${offset} bytes were sent`);
    // Whole samples only, so a reader never gets half a sample at the end of a read.
    const end = size - ((size - WAV_HEADER_BYTES) % 2);
    if (end > offset) {
      const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      // Removed since the stat: the take was deleted (the row goes first, then the files).
      if (!handle) throw cut('the take was deleted');
      try {
        while (offset < end) {
          const length = Math.min(READ_CHUNK, end - offset);
          const buffer = Buffer.alloc(length);
          const { bytesRead } = await handle.read(buffer, 0, length, offset);
          if (bytesRead === 0) break;
          offset += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } finally {
        await handle.close();
      }
    }
    // The one clean end: ready, and the file as it stood then has been sent.
    if (row?.status === 'ready') return;
    if (!row) throw cut('the take was deleted');
    if (isDone(row.status)) throw cut(`the take ended in ${row.status}`);
    if (Date.now() > deadline) throw cut(`still ${row.status} after ${Math.round(limitMs / 1000)} s`);
    if (end <= offset) await sleep(STREAM_POLL_MS);
  }
}
