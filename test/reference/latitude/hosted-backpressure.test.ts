/**
 * The hosted-server latitude switches of the reference stack, in process (issue 32): the delay
 * schedule of hosted-latency (seeded, within its figures), the token buckets of rate-limit, and
 * the hooks of rate-limit and transient-503 on a fastify app (429/503 + Retry-After + detail, the
 * route never reached, signed audio URLs left alone).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import {
  everyNth,
  installBackpressure,
  RATE_LIMIT_DETAIL,
  type RateLimit,
  retryAfterDate,
  SHED_EVERY,
  TokenBuckets,
} from '../../../reference/latitude/backpressure.ts';
import { HOSTED_FIGURES, LatencySchedule, type MsRange } from '../../../reference/latitude/hosted-latency.ts';
import { activateLatitude } from '../../../reference/latitude/index.ts';
import { WARMUP_REFUSALS, warmupGate } from '../../../reference/latitude/ws-warmup.ts';
import { SIGNED_AUDIO_PREFIX } from '../../../reference/signing/audio-url.ts';
import { parseRetryAfter } from '../../../src/client/back-pressure.ts';

const within = (value: number, [min, max]: MsRange) => value >= min && value <= max;

describe('hosted-latency schedule', () => {
  test('draws every figure within its range, login and refresh 150 ms', () => {
    const schedule = new LatencySchedule(7, 'api');
    for (let i = 0; i < 200; i++) {
      expect(within(schedule.requestMs('GET', '/v1/speak/takes'), HOSTED_FIGURES.requestMs)).toBe(true);
      expect(within(schedule.queuedMs(true), HOSTED_FIGURES.voiceWaitingMs)).toBe(true);
      expect(within(schedule.queuedMs(false), HOSTED_FIGURES.takeQueuedMs)).toBe(true);
      expect(within(schedule.partMs(), HOSTED_FIGURES.partMs)).toBe(true);
      expect(within(schedule.webhookMs(), HOSTED_FIGURES.webhookMs)).toBe(true);
    }
    expect(schedule.requestMs('POST', '/auth/login')).toBe(150);
    expect(schedule.requestMs('POST', '/auth/refresh')).toBe(150);
    // Logout is an ordinary request.
    expect(within(schedule.requestMs('POST', '/auth/logout'), HOSTED_FIGURES.requestMs)).toBe(true);
  });

  test('the same seed and stream give the same figures; another seed or stream others', () => {
    const draw = (seed: number, stream: string) => {
      const schedule = new LatencySchedule(seed, stream);
      return Array.from({ length: 20 }, () => [schedule.partMs(), schedule.queuedMs(false)]);
    };
    expect(draw(1, 'worker-1')).toEqual(draw(1, 'worker-1'));
    expect(draw(2, 'worker-1')).not.toEqual(draw(1, 'worker-1'));
    expect(draw(1, 'worker-2')).not.toEqual(draw(1, 'worker-1'));
  });

  test('one purpose never shifts another: request draws leave the part figures as they were', () => {
    const quiet = new LatencySchedule(3, 'w');
    const busy = new LatencySchedule(3, 'w');
    for (let i = 0; i < 50; i++) busy.requestMs('GET', '/x');
    expect(Array.from({ length: 10 }, () => busy.partMs())).toEqual(
      Array.from({ length: 10 }, () => quiet.partMs()),
    );
  });
});

describe('rate-limit token buckets', () => {
  test('a burst passes, the next is refused with Retry-After, and it recovers at the rate', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets({ rps: 15, burst: 30 }, () => now);
    for (let i = 0; i < 30; i++) expect(buckets.take('token a').allowed, `request ${i + 1}`).toBe(true);
    expect(buckets.take('token a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Another token has its own bucket.
    expect(buckets.take('token b').allowed).toBe(true);
    now += 1000; // 15 tokens back
    for (let i = 0; i < 15; i++) expect(buckets.take('token a').allowed, `after 1 s: ${i + 1}`).toBe(true);
    expect(buckets.take('token a').allowed).toBe(false);
  });

  test('Retry-After is whole seconds until a token is back (a slow rate asks for longer)', () => {
    let now = 0;
    const buckets = new TokenBuckets({ rps: 0.25, burst: 1 }, () => now);
    expect(buckets.take('k').allowed).toBe(true);
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    now += 2000;
    expect(buckets.take('k')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    now += 2000;
    expect(buckets.take('k').allowed).toBe(true);
  });

  test('every 20th', () => {
    const shed = everyNth(SHED_EVERY);
    const refused = Array.from({ length: 60 }, (_, i) => (shed() ? i + 1 : 0)).filter(Boolean);
    expect(refused).toEqual([20, 40, 60]);
  });
});

describe('the back-pressure hooks on an app', () => {
  let app: FastifyInstance | undefined;
  let handled = 0;
  afterEach(async () => {
    await app?.close();
    activateLatitude([]);
  });

  async function appWith(
    switches: string[],
    limit: RateLimit = { rps: 1, burst: 3 },
  ): Promise<FastifyInstance> {
    activateLatitude(switches);
    handled = 0;
    const built = Fastify();
    installBackpressure(built, limit);
    built.all('/*', async () => {
      handled++;
      return { ok: true };
    });
    await built.ready();
    app = built;
    return built;
  }

  const get = (a: FastifyInstance, url: string, token?: string) =>
    a.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  test('rate-limit: 429 with Retry-After and the detail past the burst, the route not run', async () => {
    const a = await appWith(['rate-limit']);
    for (let i = 0; i < 3; i++) expect((await get(a, '/v1/speak/takes', 'one')).statusCode).toBe(200);
    const refused = await get(a, '/v1/speak/takes', 'one');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({ detail: RATE_LIMIT_DETAIL });
    expect(handled).toBe(3);
    // Per token: another token, and an unauthenticated client (by address), have buckets of their own.
    expect((await get(a, '/v1/speak/takes', 'two')).statusCode).toBe(200);
    expect((await a.inject({ method: 'POST', url: '/auth/login' })).statusCode).toBe(200);
    // Signed audio URLs are never limited.
    for (let i = 0; i < 5; i++)
      expect((await get(a, `${SIGNED_AUDIO_PREFIX}/tk_1/wav`, 'one')).statusCode).toBe(200);
  });

  test('transient-503: every 20th request is 503 + Retry-After: 1 + JSON detail, not processed', async () => {
    const a = await appWith(['transient-503']);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const reply = await get(a, '/v1/speak/voices', 'one');
      statuses.push(reply.statusCode);
      if (reply.statusCode === 503) {
        expect(reply.headers['retry-after']).toBe('1');
        expect(reply.json()).toHaveProperty('detail', expect.any(String));
      }
    }
    expect(statuses.flatMap((s, i) => (s === 503 ? [i + 1] : []))).toEqual([20, 40]);
    expect(handled).toBe(38);
  });

  test('rate-limit-no-retry-after: the same bucket, its 429 without Retry-After', async () => {
    const a = await appWith(['rate-limit-no-retry-after']);
    for (let i = 0; i < 3; i++) expect((await get(a, '/v1/speak/takes', 'one')).statusCode).toBe(200);
    const refused = await get(a, '/v1/speak/takes', 'one');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.json()).toEqual({ detail: RATE_LIMIT_DETAIL });
    expect(handled).toBe(3);
  });

  test('retry-after-date: the same bucket, its Retry-After an HTTP-date the harness reads', async () => {
    const a = await appWith(['retry-after-date']);
    for (let i = 0; i < 3; i++) expect((await get(a, '/v1/speak/takes', 'one')).statusCode).toBe(200);
    const before = Date.now();
    const refused = await get(a, '/v1/speak/takes', 'one');
    expect(refused.statusCode).toBe(429);
    const value = String(refused.headers['retry-after']);
    expect(value).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    const waitMs = parseRetryAfter(value, before);
    expect(waitMs).toBeGreaterThanOrEqual(1000);
    expect(waitMs).toBeLessThanOrEqual(2000);
    expect(handled).toBe(3);
  });

  test('rate-limit with a stated Retry-After (--rate-limit-retry-after): the 429 says that many seconds', async () => {
    const a = await appWith(['rate-limit'], { rps: 1, burst: 3, retryAfterSeconds: 10 });
    for (let i = 0; i < 3; i++) expect((await get(a, '/v1/speak/takes', 'one')).statusCode).toBe(200);
    const refused = await get(a, '/v1/speak/takes', 'one');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
  });

  test('retryAfterDate rounds up to the next whole second', () => {
    expect(retryAfterDate(1, Date.UTC(2026, 10, 27, 10, 0, 2, 300))).toBe('Fri, 27 Nov 2026 10:00:04 GMT');
    expect(retryAfterDate(2, Date.UTC(2026, 10, 27, 10, 0, 2, 0))).toBe('Fri, 27 Nov 2026 10:00:04 GMT');
  });

  test('ws-upgrade-warmup-503: the first upgrades of a node are 503 + Retry-After, then let through', () => {
    activateLatitude(['ws-upgrade-warmup-503']);
    const gate = warmupGate();
    const written: string[] = [];
    const socket = { end: (text: string) => written.push(text) } as unknown as Parameters<typeof gate>[0];
    const refused = Array.from({ length: WARMUP_REFUSALS + 2 }, () => gate(socket));
    expect(refused).toEqual([...Array(WARMUP_REFUSALS).fill(true), false, false]);
    expect(written).toHaveLength(WARMUP_REFUSALS);
    expect(written[0]).toMatch(/^HTTP\/1\.1 503 /);
    expect(written[0]).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(written[0]).toContain('"detail"');
    activateLatitude([]);
    expect(warmupGate()(socket)).toBe(false);
  });

  test('off: nothing is limited', async () => {
    const a = await appWith([]);
    for (let i = 0; i < 25; i++) expect((await get(a, '/v1/speak/takes', 'one')).statusCode).toBe(200);
  });
});
