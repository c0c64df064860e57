/**
 * One REST take, spoken by a worker: parts one after another, the samples streamed into
 * `<data>/audio/<take_id>/take.wav` as espeak makes them (so the signed wav URL can stream it before
 * ready), status moved forward per part (started → progress_25/50/75 → ready) each with its item
 * event, and the WAV header rewritten with the real sizes before `ready`.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { pcmBytes, WAV_HEADER_BYTES, wavHeader } from '../audio/wav.ts';
import { defects } from '../defects/index.ts';
import { HOSTED_FIGURES, hostedLatency, sleep, waitUntil } from '../latitude/hosted-latency.ts';
import { takeAudioDir, takeAudioPath } from '../store/audio-files.ts';
import { progressAfter } from '../store/status.ts';
import { advanceTake, getTakeRow } from '../store/takes.ts';
import { outputSampleRate, type Synthesizer, splitIntoParts, type VoiceRendering } from '../synth/index.ts';

export interface TakeJobContext {
  db: Database;
  synth: Synthesizer;
  dataDir: string;
  workerId: string;
  /** Tells the API process that item events were written (it wakes its event tail). */
  notifyEvents(): void;
  /** False once the job's lease is lost or the take was deleted: stop early. */
  stillOurs(): boolean;
}

export type TakeJobResult = 'ready' | 'gone';

export async function synthesizeTake(ctx: TakeJobContext, takeId: string): Promise<TakeJobResult> {
  const row = getTakeRow(ctx.db, takeId);
  if (!row) return 'gone';
  const rendering = JSON.parse(row.rendering) as VoiceRendering;
  const parts = splitIntoParts(row.text);
  const step = (status: string, extra: Parameters<typeof advanceTake>[3] = {}) => {
    if (advanceTake(ctx.db, takeId, status, extra)) ctx.notifyEvents();
  };
  // Latitude hosted-latency: the take waits in a hosted service's queue first (a voice's example
  // take longer: "After a few seconds a fetch by `voice_id` returns `ready`.").
  const hosted = hostedLatency();
  if (hosted) {
    await sleep(hosted.queuedMs(row.example_of !== null));
    if (!ctx.stillOurs() || !getTakeRow(ctx.db, takeId)) return 'gone';
  }
  step('started', { worker: ctx.workerId });
  await dwellForDefect();
  // Defect override-language-fails: the language code goes to espeak as a voice name it does not know.
  if (row.override_language !== null && defects.has('override-language-fails')) {
    step('error', { error: `espeak has no voice named ${JSON.stringify(row.override_language)}` });
    return 'gone';
  }
  // Deleted meanwhile: nothing to write (and no audio directory to leave behind).
  if (!getTakeRow(ctx.db, takeId)) return 'gone';

  mkdirSync(takeAudioDir(ctx.dataDir, takeId), { recursive: true });
  const fd = openSync(takeAudioPath(ctx.dataDir, takeId, 'wav'), 'w');
  let dataBytes = 0;
  // Samples of a part that failed or timed out can still arrive after the file is closed; writing
  // them would hit a closed (or, worse, reused) descriptor.
  let open = true;
  try {
    writeSync(fd, wavHeader({ sampleRate: outputSampleRate(), dataBytes: null }));
    for (let i = 0; i < parts.length; i++) {
      if (!ctx.stillOurs() || !getTakeRow(ctx.db, takeId)) return 'gone';
      const partStartMs = Date.now();
      await ctx.synth.synthesizePart(parts[i]!, rendering, (pcm) => {
        if (!open) return;
        const bytes = pcmBytes(pcm);
        writeSync(fd, bytes, 0, bytes.length, WAV_HEADER_BYTES + dataBytes);
        dataBytes += bytes.length;
      });
      // Latitude hosted-latency: a part takes what a hosted neural TTS takes, synthesis included.
      if (hosted) await waitUntil(partStartMs + hosted.partMs());
      const progress = progressAfter(i + 1, parts.length);
      if (progress) {
        step(progress);
        await dwellForDefect();
      }
    }
    writeSync(fd, wavHeader({ sampleRate: outputSampleRate(), dataBytes }), 0, WAV_HEADER_BYTES, 0);
  } finally {
    open = false;
    closeSync(fd);
  }
  // Latitude hosted-latency: a voice is ready no sooner than voiceReadyAfterMs after its creation.
  if (hosted && row.example_of !== null) await waitUntil(row.timestamp_ms + HOSTED_FIGURES.voiceReadyAfterMs);
  if (!ctx.stillOurs()) return 'gone';
  step('ready', {
    info: {
      duration: dataBytes / 2,
      // Defect info-audio-rate-doubled: the rate reported is twice the wav's (samples of both channels of a stereo stream).
      audio_rate: outputSampleRate() * (defects.has('info-audio-rate-doubled') ? 2 : 1),
      // Defect normalized-text-trailing-empty: the split keeps the empty piece after the last sentence.
      normalized_text: defects.has('normalized-text-trailing-empty') ? [...parts, ''] : parts,
    },
    worker: ctx.workerId,
  });
  return 'ready';
}

/**
 * Defects that show only in a take's intermediate states: status-goes-backwards shows progress_* as
 * waiting (reference/store/takes.ts); webhook-status-missing skips the status call for started
 * (reference/webhooks/from-item-events.ts), which the harness sees against the statuses polling saw.
 * A take of a few sentences passes its intermediate states in milliseconds, so whether a poller saw
 * one was chance: with either switch on, the worker stays 400 ms in each (a slow worker, as a hosted
 * one is), longer than the harness's longest poll interval, so the defect is there to be seen on
 * every run.
 */
const DWELL_DEFECTS = ['status-goes-backwards', 'webhook-status-missing'] as const;

async function dwellForDefect(): Promise<void> {
  if (DWELL_DEFECTS.some((name) => defects.has(name)))
    await new Promise((resolve) => setTimeout(resolve, 400));
}
