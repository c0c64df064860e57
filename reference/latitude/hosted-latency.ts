/**
 * Latitude hosted-latency: the reference stack takes the time a hosted neural TTS takes (the figures
 * of issue 32, measured on one), instead of espeak's milliseconds. Every delay is a real wait in the
 * stack (a timer, never a busy loop: the event loop keeps serving), at the exact spot:
 *
 * - every API request 30–80 ms, login and refresh 150 ms (api/app.ts, an onRequest hook);
 * - a REST take stays queued (`waiting`) 0.3–0.8 s, then each part (sentence) takes 0.5–0.7 s
 *   (worker/synthesize-take.ts); a voice's example take stays `waiting` 2–4 s and the voice is ready
 *   no sooner than 5 s after its creation;
 * - on the websocket, a part's first audio (chunk 0) leaves 0.25 s after the part starts, then one
 *   200 ms audio chunk every 0.10 s (worker/websocket/part-stream.ts);
 * - a webhook call leaves 0.2–0.5 s after the change (webhooks/outbox-store.ts).
 *
 * The random figures come from a seeded generator (pure-rand's xoroshiro128+): one stream per
 * process and purpose, seeded by the stack's latency seed (`serve --latency-seed`, default 1), so
 * the sequence of figures each process draws is the same on every run (which request draws which
 * figure still depends on arrival order).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { latitude } from './active.ts';

/** A closed range of milliseconds, both ends included. */
export type MsRange = readonly [min: number, max: number];

/** The figures of a hosted neural TTS (issue 32). */
export const HOSTED_FIGURES = {
  /** A voice's example take waits in the queue this long: the voice shows `waiting`. */
  voiceWaitingMs: [2000, 4000] as MsRange,
  /** A voice is ready no sooner than this after its creation. */
  voiceReadyAfterMs: 5000,
  /** A REST take waits in the queue this long before `started`. */
  takeQueuedMs: [300, 800] as MsRange,
  /** Each part (sentence) of a take takes this long, synthesis included. */
  partMs: [500, 700] as MsRange,
  /** Websocket: the first audio frame of a part leaves this long after the part starts. */
  wsFirstAudioMs: 250,
  /** Websocket: the audio of a part is sent in chunks of this many milliseconds of sound... */
  wsChunkAudioMs: 200,
  /** ...one every this many milliseconds. */
  wsChunkEveryMs: 100,
  /** A webhook call leaves this long after the change. */
  webhookMs: [200, 500] as MsRange,
  /** POST /auth/login and /auth/refresh. */
  authMs: 150,
  /** Every other API request. */
  requestMs: [30, 80] as MsRange,
} as const;

export const DEFAULT_LATENCY_SEED = 1;
/** Hands the seed to the worker processes the stack forks (as the switches themselves are). */
export const LATENCY_SEED_ENV = 'SPEAKCHECK_REFERENCE_LATENCY_SEED';

export type LatencyPurpose = 'request' | 'voice' | 'take' | 'part' | 'webhook';

/** A seeded source of delays: one generator per purpose, so one kind of draw never shifts another. */
export class LatencySchedule {
  readonly #draw: Record<LatencyPurpose, (range: MsRange) => number>;

  constructor(seed: number, stream = '') {
    const purposes: LatencyPurpose[] = ['request', 'voice', 'take', 'part', 'webhook'];
    this.#draw = Object.fromEntries(
      purposes.map((purpose) => {
        const rng = xoroshiro128plus(mix(seed, `${stream}:${purpose}`));
        return [purpose, (range: MsRange) => uniformInt(rng, range[0], range[1])];
      }),
    ) as Record<LatencyPurpose, (range: MsRange) => number>;
  }

  /** Time an API request takes before its handler runs: 150 ms for login and refresh. */
  requestMs(method: string, path: string): number {
    if (method === 'POST' && /^\/auth\/(login|refresh)\/?$/.test(path)) return HOSTED_FIGURES.authMs;
    return this.#draw.request(HOSTED_FIGURES.requestMs);
  }

  /** Time a take waits in the queue (`waiting`): longer for a voice's example take. */
  queuedMs(exampleOfVoice: boolean): number {
    return exampleOfVoice
      ? this.#draw.voice(HOSTED_FIGURES.voiceWaitingMs)
      : this.#draw.take(HOSTED_FIGURES.takeQueuedMs);
  }

  /** Time one part (sentence) of a REST take takes. */
  partMs(): number {
    return this.#draw.part(HOSTED_FIGURES.partMs);
  }

  webhookMs(): number {
    return this.#draw.webhook(HOSTED_FIGURES.webhookMs);
  }
}

/** The seed and a stream name as one 32-bit seed (FNV-1a over the name, xor the seed). */
function mix(seed: number, stream: string): number {
  let hash = 0x811c9dc5;
  for (const char of stream) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash ^ seed) | 0;
}

let schedule: LatencySchedule | undefined;
let scheduleSeed: number | undefined;

/**
 * The schedule of this process while hosted-latency is on, else undefined (the stack's own speed).
 * `stream` names the process (the API, a worker) so that forked workers draw their own sequences.
 */
export function hostedLatency(stream = process.env.SPEAK_WORKER_ID ?? 'api'): LatencySchedule | undefined {
  if (!latitude.has('hosted-latency')) return undefined;
  const seed = latencySeed();
  if (!schedule || scheduleSeed !== seed) {
    schedule = new LatencySchedule(seed, stream);
    scheduleSeed = seed;
  }
  return schedule;
}

function latencySeed(): number {
  const given = Number(process.env[LATENCY_SEED_ENV]);
  return Number.isSafeInteger(given) ? given : DEFAULT_LATENCY_SEED;
}

/** Sets the seed for this process and the workers it forks (the stack calls it at start). */
export function setLatencySeed(seed: number): void {
  process.env[LATENCY_SEED_ENV] = String(seed);
  schedule = undefined;
}

/** Waits until `untilMs` (epoch ms), if it is still ahead: a timer, the event loop stays free. */
export async function waitUntil(untilMs: number): Promise<void> {
  const left = untilMs - Date.now();
  if (left > 0) await sleep(left);
}

export { sleep };
