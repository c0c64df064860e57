/**
 * The Synthesizer of the seam, backed by espeak-ng (WASM) in a worker thread of its own.
 *
 * - Streaming: each ~100 ms buffer espeak produces is passed to onSamples as it arrives from the
 *   thread, long before the part is finished.
 * - One part at a time per instance: calls queue behind each other (espeak is one engine).
 * - Reuse without leaks: one WASM instance per synthesizer for its whole life; buffers are transferred,
 *   not accumulated. `wasmHeapBytes()` lets tests check the engine's heap stays flat.
 * - Bounded: a part that takes longer than its timeout (60 s by default) kills the thread; the next
 *   part starts a new one.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { ESPEAK_THREAD, PROFILER_ARGS } from '../entry-points.ts';
import { type EspeakDataShare, espeakDataShare } from './espeak-data.ts';
import { type EspeakSettings, type EspeakVoiceEntry, espeakSettingsFor } from './espeak-settings.ts';
import type { ThreadReply, ThreadRequest } from './espeak-thread-protocol.ts';
import { PartRecorder, PartReplays, replayPart } from './part-replay.ts';
import { slowdown } from './slowdown.ts';
import { outputSampleRate, SAMPLE_RATE, toOutputRate, type VoiceRendering } from './voice-rendering.ts';

/** Every part ends in this much silence (the contract: "a part ... ends in silence"). */
export const TRAILING_SILENCE_MS = 150;
export const TRAILING_SILENCE_SAMPLES = Math.round((SAMPLE_RATE * TRAILING_SILENCE_MS) / 1000);

const START_TIMEOUT_MS = 30_000;
export const DEFAULT_PART_TIMEOUT_MS = 60_000;
const CLOSE_GRACE_MS = 10_000;

export interface Synthesizer {
  /** Speaks one part; calls onSamples as espeak-ng produces audio (streaming), ends the part with
   *  trailing silence; resolves with the number of samples delivered. */
  synthesizePart(text: string, voice: VoiceRendering, onSamples: (pcm: Int16Array) => void): Promise<number>;
  close(): Promise<void>;
}

interface PendingCall {
  onReply(reply: ThreadReply): void;
  onFailure(error: Error): void;
}

/**
 * A worker thread running espeak-thread: from the compiled CLI, its bundled JavaScript, by plain Node.
 * From the sources it is TypeScript, so the thread registers tsx itself (a worker does not inherit the
 * loader that bin/speakcheck.js or vitest set up); execArgv [] keeps a parent's `--import tsx` from
 * registering it twice. The espeak-ng module (840 KB of JavaScript: espeak-ng compiled by Emscripten to asm.js-style
 * JavaScript, its asm2js output) is then
 * imported natively BEFORE tsx registers: loaded through tsx it costs ~100 MB more RSS per thread
 * (measured: 222 vs 118 MB for a thread that speaks one sentence); espeak-thread.ts's own import of it
 * gets the already evaluated module from the thread's module cache.
 */
const require = createRequire(import.meta.url);

function startThread(): Worker {
  const options = { execArgv: PROFILER_ARGS, workerData: { espeakData: espeakData() } };
  if (!ESPEAK_THREAD.needsTsx) return new Worker(ESPEAK_THREAD.path, options);
  const espeakUrl = JSON.stringify(pathToFileURL(require.resolve('@echogarden/espeak-ng-emscripten')).href);
  const threadUrl = JSON.stringify(pathToFileURL(ESPEAK_THREAD.path).href);
  // tsx's ESM api sits beside the CommonJS one that require.resolve finds.
  const tsxApi = JSON.stringify(pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href);
  const bootstrap = `import(${espeakUrl}).then(() => import(${tsxApi})).then((tsx) => { tsx.register(); return import(${threadUrl}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

let sharedData: EspeakDataShare | undefined;

/**
 * espeak-ng.data, shared by every espeak thread of the process and read in where they read it; its
 * one descriptor is held for the process's life (./espeak-data.ts says why). A worker thread of the
 * API (serve --worker-threads) is handed the API's (../worker/pool.ts): one share per process,
 * however many worker threads it starts, restarts included.
 */
export function espeakData(): EspeakDataShare {
  sharedData ??=
    (isMainThread ? undefined : (workerData as { espeakData?: EspeakDataShare } | undefined)?.espeakData) ??
    espeakDataShare(join(dirname(require.resolve('@echogarden/espeak-ng-emscripten')), 'espeak-ng.data'));
  return sharedData;
}

/** One worker thread running espeak-thread.ts; correlates replies to requests by id. */
class EspeakThread {
  private readonly worker: Worker;
  private readonly calls = new Map<number, PendingCall>();
  private nextId = 1;
  private failure: Error | undefined;
  catalogue: EspeakVoiceEntry[] = [];

  private constructor() {
    this.worker = startThread();
    this.worker.on('message', (reply: ThreadReply) => {
      const id = 'id' in reply ? reply.id : 0;
      this.calls.get(id)?.onReply(reply);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const call of this.calls.values()) call.onFailure(error);
      this.calls.clear();
    };
    this.worker.on('error', (error) => fail(new Error(`espeak thread failed: ${error.message}`)));
    this.worker.on('exit', (code) => fail(new Error(`espeak thread exited (code ${code})`)));
  }

  static async start(): Promise<EspeakThread> {
    const thread = new EspeakThread();
    thread.catalogue = await thread.call<EspeakVoiceEntry[]>(
      0,
      undefined,
      START_TIMEOUT_MS,
      (reply, done) => {
        if (reply.type !== 'ready') return;
        if (reply.sampleRate !== SAMPLE_RATE) {
          throw new Error(`espeak-ng runs at ${reply.sampleRate} Hz, expected ${SAMPLE_RATE}`);
        }
        done(reply.catalogue);
      },
    );
    return thread;
  }

  get alive(): boolean {
    return this.failure === undefined;
  }

  /** Sends a request (unless undefined) and feeds its replies to `handle` until it calls done. */
  call<T>(
    id: number,
    request: ThreadRequest | undefined,
    timeoutMs: number,
    handle: (reply: ThreadReply, done: (value: T) => void) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const timer = setTimeout(() => {
        this.calls.delete(id);
        reject(new Error(`espeak thread did not answer within ${timeoutMs} ms`));
        void this.terminate(); // a stuck engine is not reused
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.calls.delete(id);
      };
      this.calls.set(id, {
        onReply: (reply) => {
          try {
            if (reply.type === 'error') throw new Error(reply.message);
            handle(reply, (value) => {
              settle();
              resolve(value);
            });
          } catch (error) {
            settle();
            reject(error);
          }
        },
        onFailure: (error) => {
          settle();
          reject(error);
        },
      });
      if (request) this.worker.postMessage(request);
    });
  }

  newId(): number {
    return this.nextId++;
  }

  async terminate(): Promise<void> {
    this.failure ??= new Error('espeak thread closed');
    await this.worker.terminate();
  }
}

class EspeakSynthesizer implements Synthesizer {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private thread: EspeakThread,
    private readonly partTimeoutMs: number,
    /** Parts spoken before, replayed instead of computed again (./part-replay.ts); none when undefined. */
    private readonly replays: PartReplays | undefined,
  ) {}

  /** The espeak voice catalogue (identifiers and language tags) of this engine. */
  get catalogue(): readonly EspeakVoiceEntry[] {
    return this.thread.catalogue;
  }

  settingsFor(voice: VoiceRendering): EspeakSettings {
    return espeakSettingsFor(voice, this.thread.catalogue);
  }

  synthesizePart(text: string, voice: VoiceRendering, onSamples: (pcm: Int16Array) => void): Promise<number> {
    return this.synthesizeWith(text, () => this.settingsFor(voice), onSamples);
  }

  /** synthesizePart with espeak settings given as they are (benchmarks compare variants with it). */
  synthesizeWith(
    text: string,
    settings: () => EspeakSettings,
    onSamples: (pcm: Int16Array) => void,
  ): Promise<number> {
    if (this.closed) return Promise.reject(new Error('synthesizer is closed'));
    const factor = outputSampleRate() / SAMPLE_RATE;
    const run = this.queue
      .then(() => this.speak(text, settings, (pcm) => onSamples(toOutputRate(pcm))))
      .then(async (samples) => {
        await slowdown();
        return samples * factor;
      });
    this.queue = run.catch(() => undefined); // one failed part does not block the next
    return run;
  }

  private async speak(
    text: string,
    settingsOf: () => EspeakSettings,
    onSamples: (pcm: Int16Array) => void,
  ): Promise<number> {
    // A restarted thread has its own catalogue: settings are made after it is up.
    if (!this.thread.alive) this.thread = await EspeakThread.start();
    const id = this.thread.newId();
    const settings = settingsOf();
    const replays = this.replays;
    const key = replays && PartReplays.key(text, settings);
    const before = replays && key !== undefined ? replays.get(key) : undefined;
    const recorder = key === undefined || before ? undefined : new PartRecorder();
    let callbackError: unknown;
    const deliver = (pcm: Int16Array) => {
      if (callbackError !== undefined) return;
      try {
        onSamples(pcm);
      } catch (error) {
        callbackError = error; // stop delivering, let espeak finish the part, then report it
      }
    };
    const spoken =
      replays && before
        ? await replayPart(before, replays.replayMs(before), deliver)
        : await this.thread.call<number>(
            id,
            { type: 'part', id, text, settings },
            this.partTimeoutMs,
            (reply, done) => {
              if (reply.type === 'samples') {
                recorder?.add(reply.pcm);
                deliver(reply.pcm);
              } else if (reply.type === 'done') done(reply.samples);
            },
          );
    if (replays && recorder && key !== undefined) replays.set(key, recorder.done(spoken));
    deliver(new Int16Array(TRAILING_SILENCE_SAMPLES));
    if (callbackError !== undefined) throw callbackError;
    return spoken + TRAILING_SILENCE_SAMPLES;
  }

  /** Size of the engine's WASM heap: flat across many parts when nothing leaks. */
  wasmHeapBytes(): Promise<number> {
    const run = this.queue.then(async () => {
      const id = this.thread.newId();
      return this.thread.call<number>(id, { type: 'memory', id }, 5_000, (reply, done) => {
        if (reply.type === 'memory') done(reply.wasmHeapBytes);
      });
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Let a part in progress finish (bounded), then stop the thread.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    await this.thread.terminate();
  }
}

export type { EspeakSynthesizer };

/**
 * Starts espeak-ng in a worker thread and warms it (English dictionary, JIT) so the first real part
 * starts as fast as later ones. `replaySpokenParts`: a part spoken before is replayed at the engine's
 * pace, not computed again (workers of `serve --replay-spoken-parts`, the stack a run starts itself;
 * never plain `serve`, the load tests and the benchmarks, which time espeak).
 */
export async function createSynthesizer(
  o: { partTimeoutMs?: number; replaySpokenParts?: boolean } = {},
): Promise<EspeakSynthesizer> {
  const synthesizer = new EspeakSynthesizer(
    await EspeakThread.start(),
    o.partTimeoutMs ?? DEFAULT_PART_TIMEOUT_MS,
    o.replaySpokenParts ? new PartReplays() : undefined,
  );
  await synthesizer.synthesizePart(
    'Ready.',
    { language: 'en-US', gender: 'female', prosody: null, style: null, seed: 'warm-up' },
    () => {},
  );
  return synthesizer;
}
