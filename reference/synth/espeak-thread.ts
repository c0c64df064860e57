/**
 * The espeak-ng WASM engine, inside a worker thread (started by espeak-synthesizer.ts).
 *
 * espeak's synthesize() is synchronous: it calls back with ~100 ms buffers while it works and returns
 * when the text is spoken. Running it here keeps the owning process's event loop free (sockets, job
 * heartbeats) and lets each buffer reach the owner the moment espeak produces it: postMessage from
 * inside the callback is delivered while synthesis goes on.
 */
import { parentPort, workerData } from 'node:worker_threads';
import createEspeakModule from '@echogarden/espeak-ng-emscripten';
import { type EmscriptenFs, type EspeakDataShare, readFilesOnFirstUse } from './espeak-data.ts';
import type { EspeakSettings, EspeakVoiceEntry } from './espeak-settings.ts';
import type { ThreadReply, ThreadRequest } from './espeak-thread-protocol.ts';

interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(value: number): number;
  set_pitch(value: number): number;
  set_range(value: number): number;
  set_volume(value: number): number;
  get_samplerate(): number;
  list_voices(): { identifier: string; languages: { name: string; priority: number }[] }[];
  synthesize(
    text: string,
    callback: (samples: Int16Array, events: unknown[]) => boolean | number | undefined,
  ): void;
}

interface EspeakModule {
  eSpeakNGWorker: new () => EspeakWorker;
  HEAP8: Int8Array;
  FS: EmscriptenFs;
}

/** Where the package's file system holds espeak-ng.data's files. */
const ESPEAK_DATA_DIR = '/usr/share/espeak-ng-data';

const port = parentPort;
if (!port) throw new Error('espeak-thread.ts must run in a worker thread');

// espeak-ng.data (24 MB: dictionaries, phonemes, voices) is shared by the owning process's espeak
// threads, its bytes read in where espeak first reads them (espeak-data.ts). Without a share the
// factory reads its own copy beside espeak-ng.js (its pre.js locateFile uses import.meta.url). The
// package's loader takes only an ArrayBuffer (it asserts the constructor's name); a shared buffer
// reads the same through the Uint8Array views it makes, so it is passed as one.
const share = (workerData as { espeakData?: EspeakDataShare } | undefined)?.espeakData;
if (share) Object.defineProperty(share.bytes, 'constructor', { value: ArrayBuffer });
const espeakModule = (await createEspeakModule(
  share ? { getPreloadedPackage: () => share.bytes } : {},
)) as EspeakModule;
if (share) readFilesOnFirstUse(espeakModule.FS, ESPEAK_DATA_DIR, share);
const engine = new espeakModule.eSpeakNGWorker();

const catalogue: EspeakVoiceEntry[] = engine.list_voices().map((v) => ({
  identifier: v.identifier,
  languages: v.languages.map((l) => ({ name: l.name, priority: l.priority })),
}));

// set_voice loads the language's dictionary and resets rate/pitch/range; only redo it on change.
let currentVoice = '';
let current = { rate: -1, pitch: -1, range: -1, volume: -1 };

function apply(settings: EspeakSettings): void {
  if (settings.voice !== currentVoice) {
    const status = engine.set_voice(settings.voice);
    if (status !== 0) throw new Error(`espeak-ng set_voice(${settings.voice}) failed with status ${status}`);
    currentVoice = settings.voice;
    current = { rate: -1, pitch: -1, range: -1, volume: -1 };
  }
  if (current.rate !== settings.rate) engine.set_rate(settings.rate);
  if (current.pitch !== settings.pitch) engine.set_pitch(settings.pitch);
  if (current.range !== settings.range) engine.set_range(settings.range);
  if (current.volume !== settings.volume) engine.set_volume(settings.volume);
  current = { rate: settings.rate, pitch: settings.pitch, range: settings.range, volume: settings.volume };
}

function reply(message: ThreadReply, transfer?: ArrayBuffer[]): void {
  port!.postMessage(message, transfer);
}

port.on('message', (request: ThreadRequest) => {
  if (request.type === 'memory') {
    reply({ type: 'memory', id: request.id, wasmHeapBytes: espeakModule.HEAP8.byteLength });
    return;
  }
  let samples = 0;
  try {
    apply(request.settings);
    engine.synthesize(request.text, (pcm) => {
      // pcm is a fresh copy (HEAP16.slice), so its buffer can be handed over without copying again.
      if (pcm.length > 0) {
        samples += pcm.length;
        reply({ type: 'samples', id: request.id, pcm }, [pcm.buffer as ArrayBuffer]);
      }
      return false; // false = keep going
    });
    reply({ type: 'done', id: request.id, samples });
  } catch (error) {
    currentVoice = ''; // a failed call may leave espeak half-configured
    reply({ type: 'error', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
});

reply({ type: 'ready', sampleRate: engine.get_samplerate(), catalogue });
