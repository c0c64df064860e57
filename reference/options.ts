/**
 * Options of the reference stack (`startReferenceStack`, `speakcheck serve`). Every lifetime is an
 * option so tests can make tokens and URLs expire quickly.
 */
export interface ExtraUser {
  email: string;
  password: string;
}

export interface StackOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** Data directory (SQLite + audio). When absent a temp dir is used and removed on close. */
  dataDir?: string;
  /** Synthesis worker processes (0 = API only: standalone workers join through the data dir). */
  workers: number;
  accessTokenTtlSeconds: number;
  /** At least 600 (the SDK caches signed URLs for 10 minutes) unless a test asks for less. */
  signedUrlTtlSeconds: number;
  websocketUrlTtlSeconds: number;
  /**
   * Where signed audio URLs point: undefined = a blob-store listener of the stack's own on `blobPort`
   * (another origin, as the real service's object storage: curl and browsers drop Authorization on
   * the redirect); a URL = that listener's public origin (a proxy, a container's published address);
   * 'same-origin' = no listener, signed URLs on the API's own origin (a client that keeps
   * Authorization on a same-origin redirect then meets the 400 "only one auth mechanism").
   */
  blobUrl?: string;
  /** Port of the blob-store listener (0 = any free port); unused with blobUrl 'same-origin'. */
  blobPort: number;
  /** Websocket audio frames of a request are sent out of order within a window of this many (0 = in order). */
  wsShuffleWindow: number;
  /**
   * Each worker's websocket endpoint speaks with the worker's REST synthesizer instead of an espeak
   * thread of its own (issue 52): one espeak-ng isolate per worker fewer (its JIT compile of
   * espeak-ng's 840 KB of JavaScript and ~40 MB), websocket parts queueing behind at most one REST
   * part. For the stack a conformance run starts itself, where latency is never a verdict; `serve`
   * keeps the separate thread by default, as the load benchmarks measure it.
   */
  wsSharesSynthesizer: boolean;
  /**
   * A part espeak-ng spoke before is replayed at the engine's pace, not computed again
   * (reference/synth/part-replay.ts, issue 52): the same audio and streaming for less CPU. For the
   * stack a conformance run starts itself, which speaks the same sentences again and again; `serve`
   * computes every part by default, as the load benchmarks measure espeak.
   */
  replaySpokenParts: boolean;
  /**
   * The synthesis workers as worker threads of the API process instead of child processes (issue 52):
   * one Node process fewer for the stack a conformance run starts itself. `serve` keeps processes
   * by default (one can be killed alone; the persistence tests do).
   */
  workerThreads: boolean;
  /** Users besides the seeded demo user. */
  users: ExtraUser[];
  /** Create a permanent (never expiring) access token for the demo user. */
  permanentToken: boolean;
  /** Which webhook targets may be called (reference/webhooks/target.ts); default any. */
  webhookAllow?: string;
  /** Defect switches to turn on (reference/defects/registry.ts); off by default. */
  defects?: string[];
  /** Latitude switches to turn on (reference/latitude/registry.ts); off by default. */
  latitude?: string[];
  /** Latitude rate-limit: requests per second refilled into each token's bucket. */
  rateLimitRps: number;
  /** Latitude rate-limit: bucket size (requests at once). */
  rateLimitBurst: number;
  /**
   * Latitude rate-limit: the Retry-After a 429 states, in seconds, instead of the time until a token
   * is back (a hosted limit with a window: "come back in 10 s"); undefined: the bucket's own.
   */
  rateLimitRetryAfterSeconds?: number;
  /**
   * https and wss with a throwaway CA made at start (reference/tls.ts); the CA file is in the stack's
   * `caFile`. Needs the openssl command-line tool.
   */
  tls?: boolean;
  /** Seed of latitude hosted-latency's random delays (reference/latitude/hosted-latency.ts). */
  latencySeed?: number;
  /** Log sink (already redacted by the caller's conventions: never tokens or passwords). */
  log?: (line: string) => void;
}

export const DEFAULT_OPTIONS: StackOptions = {
  host: '127.0.0.1',
  port: 0,
  workers: 2,
  accessTokenTtlSeconds: 900,
  signedUrlTtlSeconds: 900,
  websocketUrlTtlSeconds: 3600,
  blobPort: 0,
  wsShuffleWindow: 0,
  wsSharesSynthesizer: false,
  replaySpokenParts: false,
  workerThreads: false,
  users: [],
  permanentToken: false,
  rateLimitRps: 15,
  rateLimitBurst: 30,
};

export function resolveOptions(given: Partial<StackOptions>): StackOptions {
  const o: StackOptions = { ...DEFAULT_OPTIONS, ...stripUndefined(given) };
  const positive = (name: keyof StackOptions, min: number) => {
    const v = o[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new RangeError(`option ${name} must be an integer >= ${min} (got ${String(v)})`);
    }
  };
  positive('port', 0);
  positive('workers', 0);
  positive('accessTokenTtlSeconds', 1);
  positive('signedUrlTtlSeconds', 1);
  positive('websocketUrlTtlSeconds', 1);
  positive('wsShuffleWindow', 0);
  positive('blobPort', 0);
  positive('rateLimitBurst', 1);
  if (o.rateLimitRetryAfterSeconds !== undefined) positive('rateLimitRetryAfterSeconds', 1);
  if (!(Number.isFinite(o.rateLimitRps) && o.rateLimitRps > 0)) {
    throw new RangeError(`option rateLimitRps must be a number > 0 (got ${String(o.rateLimitRps)})`);
  }
  for (const name of ['port', 'blobPort'] as const) {
    if (o[name] > 65535) throw new RangeError(`option ${name} must be <= 65535 (got ${o[name]})`);
  }
  if (o.blobUrl !== undefined && o.blobUrl !== SAME_ORIGIN) o.blobUrl = blobOrigin(o.blobUrl);
  return o;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** blobUrl value: signed audio URLs on the API's own origin (no blob-store listener). */
export const SAME_ORIGIN = 'same-origin';

/** The origin of a --blob-url (http(s)://host[:port], no path): a RangeError says what is wrong. */
export function blobOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RangeError(
      `option blobUrl must be an http(s) URL or '${SAME_ORIGIN}' (got ${JSON.stringify(value)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RangeError(`option blobUrl must be http or https (got ${url.protocol})`);
  }
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new RangeError(
      `option blobUrl must be an origin, without path or query (got ${JSON.stringify(value)})`,
    );
  }
  return url.origin;
}
