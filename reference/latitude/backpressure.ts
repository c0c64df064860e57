/**
 * Latitude switches rate-limit and transient-503: the back-pressure of a hosted API, which the
 * contract leaves open ("Rate limits, maximum text length, and maximum number of voices or takes:
 * not shown."). Both answer before anything else runs (authentication, validation, the route), so
 * the request is not processed and may be sent again. They cover the REST API (auth, the websocket
 * address included), never the signed audio URLs (object storage has its own limits) nor the
 * worker websockets.
 *
 * - rate-limit: a token bucket per bearer token (per client address without one): `burst` requests
 *   at once, refilled at `rps` per second; past it, 429 with `Retry-After: <seconds>` and
 *   {"detail":"Rate limit exceeded, retry later"}.
 * - transient-503: every 20th request is answered 503 with `Retry-After: 1` and a JSON detail, as a
 *   hosted service shedding load.
 * - rate-limit-no-retry-after, retry-after-date: the same bucket, its 429 without Retry-After (the
 *   client backs off on its own) or with an HTTP-date (RFC 9110 §10.2.3: `Retry-After: Fri, 27 Nov
 *   2026 10:00:03 GMT`, the second the token is back, rounded up) instead of delay-seconds.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SIGNED_AUDIO_PREFIX } from '../signing/audio-url.ts';
import { latitude } from './active.ts';

export const RATE_LIMIT_DETAIL = 'Rate limit exceeded, retry later';
export const SHED_LOAD_DETAIL = 'Service temporarily unavailable (shedding load), retry later';
export const DEFAULT_RATE_LIMIT = { rps: 15, burst: 30 } as const;
/** transient-503: one request in this many is shed. */
export const SHED_EVERY = 20;

export interface RateLimit {
  /** Requests per second refilled into each bucket. */
  rps: number;
  /** Bucket size: the requests a client may send at once. */
  burst: number;
  /** The Retry-After a 429 states (whole seconds) instead of the time until a token is back. */
  retryAfterSeconds?: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

/** Buckets kept at most; beyond, the full ones (idle clients) are dropped. */
const MAX_BUCKETS = 10_000;

/** Token buckets by key; `take` spends one token or says how many seconds until one is there. */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const nowMs = this.now();
    const bucket = this.#refilled(key, nowMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    // Whole seconds (RFC 9110 delay-seconds), at least 1: when one token will be back.
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.rps)),
    };
  }

  #refilled(key: string, nowMs: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#dropFull(nowMs);
      bucket = { tokens: this.limit.burst, atMs: nowMs };
      this.#buckets.set(key, bucket);
      return bucket;
    }
    const refill = ((nowMs - bucket.atMs) / 1000) * this.limit.rps;
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + refill);
    bucket.atMs = nowMs;
    return bucket;
  }

  #dropFull(nowMs: number): void {
    for (const [key, bucket] of this.#buckets) {
      const tokens = bucket.tokens + ((nowMs - bucket.atMs) / 1000) * this.limit.rps;
      if (tokens >= this.limit.burst) this.#buckets.delete(key);
    }
  }
}

/** The bucket a request spends from: its bearer token, else its client address. */
export function rateLimitKey(request: FastifyRequest): string {
  const auth = request.headers.authorization;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(\S+)/i.exec(auth)?.[1] : undefined;
  return bearer ? `token ${bearer}` : `address ${request.ip}`;
}

const isSignedAudio = (request: FastifyRequest) => request.url.startsWith(SIGNED_AUDIO_PREFIX);

/** Counts requests and says which to shed: every `every`th. */
export function everyNth(every: number): () => boolean {
  let count = 0;
  return () => ++count % every === 0;
}

function refuse(reply: FastifyReply, status: 429 | 503, retryAfterSeconds: number, detail: string) {
  return reply.code(status).header('retry-after', String(retryAfterSeconds)).send({ detail });
}

/** An HTTP-date (IMF-fixdate, whole seconds) no earlier than `seconds` from `nowMs`. */
export function retryAfterDate(seconds: number, nowMs: number = Date.now()): string {
  return new Date(Math.ceil((nowMs + seconds * 1000) / 1000) * 1000).toUTCString();
}

/** A 429 in the form the switches on ask for: delay-seconds, an HTTP-date, or no Retry-After at all. */
function refuseRateLimited(reply: FastifyReply, retryAfterSeconds: number) {
  if (latitude.has('rate-limit-no-retry-after')) return reply.code(429).send({ detail: RATE_LIMIT_DETAIL });
  if (latitude.has('retry-after-date'))
    return reply
      .code(429)
      .header('retry-after', retryAfterDate(retryAfterSeconds))
      .send({ detail: RATE_LIMIT_DETAIL });
  return refuse(reply, 429, retryAfterSeconds, RATE_LIMIT_DETAIL);
}

/** Whether a token bucket is on: rate-limit, or one of the switches that only change its 429's form. */
export function rateLimited(): boolean {
  return (
    latitude.has('rate-limit') ||
    latitude.has('rate-limit-no-retry-after') ||
    latitude.has('retry-after-date')
  );
}

/** The hooks of whichever of the two switches is on; first of the API's own hooks. */
export function installBackpressure(app: FastifyInstance, limit: RateLimit = DEFAULT_RATE_LIMIT): void {
  if (latitude.has('transient-503')) {
    const shed = everyNth(SHED_EVERY);
    app.addHook('onRequest', async (request, reply) => {
      if (!isSignedAudio(request) && shed()) return refuse(reply, 503, 1, SHED_LOAD_DETAIL);
    });
  }
  if (rateLimited()) {
    const buckets = new TokenBuckets(limit);
    app.addHook('onRequest', async (request, reply) => {
      if (isSignedAudio(request)) return;
      const verdict = buckets.take(rateLimitKey(request));
      if (!verdict.allowed)
        return refuseRateLimited(reply, limit.retryAfterSeconds ?? verdict.retryAfterSeconds);
    });
  }
}
