/**
 * The wav streamed before `ready` (api/growing-wav.ts) ends cleanly only when the take is ready. Its
 * header says "unknown length", so a transfer that simply stopped would look like a whole recording:
 * on the 5-minute bound, a job redone from the start (the file shorter than what was sent), a take
 * that failed or was deleted, the stream throws instead, and over HTTP the client sees a cut transfer.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { growingWav, StreamCutShort } from '../../../reference/api/growing-wav.ts';
import { WAV_HEADER_BYTES, wavHeader } from '../../../reference/audio/wav.ts';
import { SIGNED_AUDIO_PREFIX } from '../../../reference/signing/audio-url.ts';
import { takeAudioDir, takeAudioPath } from '../../../reference/store/audio-files.ts';
import { advanceTake, deleteTakeRow, insertTake } from '../../../reference/store/takes.ts';
import { plainTakeRow } from '../store/take-rows.ts';
import { type InProcessApp, inProcessApp } from './in-process-app.ts';

let stack: InProcessApp;
let serial = 0;

beforeAll(async () => {
  stack = await inProcessApp({ name: 'streamed-wav' });
});

afterAll(async () => {
  await stack?.close();
});

/** A started take whose wav holds the header and `pcmBytes` bytes so far; its id. */
function startedTake(pcmBytes: number): string {
  const takeId = `tk_stream${serial++}`;
  stack.db.transaction(() =>
    insertTake(stack.db, {
      ...plainTakeRow({ takeId, voiceId: 'vc_x', text: 'Hi.' }),
      user_id: stack.userId,
    }),
  )();
  expect(advanceTake(stack.db, takeId, 'started')?.status).toBe('started');
  mkdirSync(takeAudioDir(stack.dir, takeId), { recursive: true });
  writeWav(takeId, pcmBytes);
  return takeId;
}

/** The take's wav file rewritten with `pcmBytes` bytes of PCM after the streaming header. */
function writeWav(takeId: string, pcmBytes: number): void {
  const header = wavHeader({ sampleRate: 22050, dataBytes: null });
  writeFileSync(takeAudioPath(stack.dir, takeId, 'wav'), Buffer.concat([header, Buffer.alloc(pcmBytes, 1)]));
}

/** Pulls from the stream until `bytes` have come (header included); the count. */
async function readUntil(stream: AsyncGenerator<Buffer>, bytes: number): Promise<number> {
  let got = 0;
  while (got < bytes) {
    const { value, done } = await stream.next();
    if (done) throw new Error(`the stream ended after ${got} of ${bytes} bytes`);
    got += value.length;
  }
  return got;
}

describe('the stream', () => {
  it('ends cleanly with the whole file once the take is ready', async () => {
    const takeId = startedTake(100);
    const stream = growingWav(stack.ctx, takeId);
    expect(await readUntil(stream, WAV_HEADER_BYTES + 100)).toBe(WAV_HEADER_BYTES + 100);
    writeWav(takeId, 300);
    const info = { duration: 150, audio_rate: 22050, normalized_text: ['Hi.'] };
    expect(advanceTake(stack.db, takeId, 'ready', { info })?.status).toBe('ready');
    let rest = 0;
    for await (const chunk of stream) rest += chunk.length;
    expect(rest).toBe(200);
  });

  it('throws when its time bound passes before ready', async () => {
    const stream = growingWav(stack.ctx, startedTake(100), 30);
    await readUntil(stream, WAV_HEADER_BYTES + 100);
    await expect(readUntil(stream, Number.POSITIVE_INFINITY)).rejects.toThrow(StreamCutShort);
  });

  it('throws when the file starts over (the job redone) after bytes were sent', async () => {
    const takeId = startedTake(200);
    const stream = growingWav(stack.ctx, takeId);
    await readUntil(stream, WAV_HEADER_BYTES + 200);
    writeWav(takeId, 10);
    await expect(readUntil(stream, Number.POSITIVE_INFINITY)).rejects.toThrow(/started over/);
  });

  it('throws when the take ends in error or is deleted', async () => {
    const failed = startedTake(20);
    const failing = growingWav(stack.ctx, failed);
    await readUntil(failing, WAV_HEADER_BYTES + 20);
    advanceTake(stack.db, failed, 'error', { error: 'synthesis failed' });
    await expect(readUntil(failing, Number.POSITIVE_INFINITY)).rejects.toThrow(/ended in error/);

    const deleted = startedTake(20);
    const vanishing = growingWav(stack.ctx, deleted);
    await readUntil(vanishing, WAV_HEADER_BYTES + 20);
    expect(deleteTakeRow(stack.db, stack.userId, deleted)).toBe(true);
    await expect(readUntil(vanishing, Number.POSITIVE_INFINITY)).rejects.toThrow(/deleted/);
  });
});

describe('over HTTP', () => {
  it('a stream cut short is a cut transfer, not a clean end of the body', async () => {
    const origin = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    const takeId = startedTake(400);
    const signed = new URL(stack.signer.sign(origin, `${SIGNED_AUDIO_PREFIX}/${takeId}/wav`));
    const answer = await fetch(signed);
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    let got = 0;
    while (got < WAV_HEADER_BYTES + 400) got += (await reader.read()).value?.length ?? 0;
    writeWav(takeId, 10);
    const rest = async () => {
      for (;;) if ((await reader.read()).done) return 'clean end';
    };
    await expect(rest()).rejects.toThrow();
  });
});
