/**
 * Back-pressure (src/client/back-pressure.ts, src/client/http.ts): Retry-After parsing, the backoff,
 * the run-wide throttle (GCRA pace, holds, AIMD, counters shared across threads), and send() against
 * fake servers that throttle: the caller sees only the final answer, every attempt is evidence, a
 * request past its bound is one 'throttled' diagnostic, and a property stops on it without shrinking.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import { assertProperty } from '../../fixtures/property.ts';
import {
  BACKOFF_CAP_MS,
  backoffMs,
  isBackPressure,
  parseRetryAfter,
  runThrottle,
  SharedThrottle,
} from '../../src/client/back-pressure.ts';
import { ClientDiagnostic, certificateProblem } from '../../src/client/diagnostics.ts';
import { closeHttp, send } from '../../src/client/http.ts';
import { rateLimitObservation, throttleSentence } from '../../src/client/throttle-words.ts';
import { openWebsocket } from '../../src/client/ws-connect.ts';
import { newTestRecord, runWithRecord } from '../../src/evidence/evidence.ts';
import { throttledBy } from '../../src/harness/check.ts';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');

  it('reads delay-seconds and HTTP-dates (RFC 9110 §10.2.3) as ms from now', () => {
    expect(parseRetryAfter('1', now)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Wed, 25 Nov 2026 12:00:05 GMT', now)).toBe(5_000);
    // A date already past: go again now.
    expect(parseRetryAfter('Wed, 25 Nov 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('is undefined when absent or neither form (the client backs off on its own)', () => {
    for (const value of [undefined, '', '1.5', '-1', '+3', 'soon', 'Wed, 99 Foo 2026'])
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
  });

  it('429 and 503 are back-pressure; nothing else is', () => {
    expect([429, 503].every(isBackPressure)).toBe(true);
    expect([200, 400, 404, 500, 502, 504, null].some(isBackPressure)).toBe(false);
  });
});

describe('backoff', () => {
  it('doubles from 0.5 s with jitter in the upper half, capped at 30 s, never zero', () => {
    expect(backoffMs(0, () => 0)).toBe(250);
    expect(backoffMs(0, () => 1)).toBe(500);
    expect(backoffMs(1, () => 0)).toBe(500);
    expect(backoffMs(3, () => 1)).toBe(4_000);
    expect(backoffMs(20, () => 0)).toBe(BACKOFF_CAP_MS / 2);
    expect(backoffMs(20, () => 1)).toBe(BACKOFF_CAP_MS);
  });
});

describe('the run-wide throttle', () => {
  it('--max-rps paces the starts one interval apart', () => {
    // The clock stands still: on a busy machine a real one moved 4 ms between two calls (CI).
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    try {
      const t = new SharedThrottle();
      t.reset({ maxRps: 10 });
      const waits = [t.reserve(), t.reserve(), t.reserve(), t.reserve()];
      // 10 requests/s: each start one 100 ms interval after the one before.
      expect(waits).toEqual([0, 100, 200, 300]);
      expect(t.stats()).toMatchObject({ requests: 4, rateRps: 10 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('unpaced until the server throttles; a 429 holds every start and halves the rate (AIMD)', () => {
    const t = new SharedThrottle();
    t.reset();
    for (let i = 0; i < 20; i++) expect(t.reserve()).toBe(0);
    t.noteThrottled(429, 1_000, 1_000);
    const held = t.reserve();
    expect(held).toBeGreaterThan(900);
    expect(held).toBeLessThanOrEqual(1_000);
    const { rateRps } = t.stats();
    // Half the rate the run just went at (20 starts within well under a second: far above 1/s).
    expect(rateRps).toBeGreaterThan(1);
    // A second 429 of the same burst does not halve again.
    t.noteThrottled(429, 1_000, 1_000);
    expect(t.stats().rateRps).toBe(rateRps);
    expect(t.stats()).toMatchObject({ answered429: 2, retryAfterS: { min: 1, max: 1 } });
  });

  it('a 503 holds only its own request: the run goes on unpaced', () => {
    const t = new SharedThrottle();
    t.reset();
    t.noteThrottled(503, 1_000, 1_000);
    expect(t.reserve()).toBe(0);
    expect(t.stats()).toMatchObject({ answered503: 1, heldS: 0 });
    expect(t.stats().rateRps).toBeUndefined();
  });

  it('the held time counts overlapping holds once', () => {
    const t = new SharedThrottle();
    t.reset();
    t.noteThrottled(429, 2_000, 2_000);
    t.noteThrottled(429, 1_000, 1_000);
    t.noteThrottled(429, undefined, 500);
    const { heldS, retryAfterS, retryAfterAbsent } = t.stats();
    expect(heldS).toBeCloseTo(2, 1);
    expect(retryAfterS).toEqual({ min: 1, max: 2 });
    expect(retryAfterAbsent).toBe(1);
  });

  it('says what it saw in one sentence, and the INFO observation', () => {
    const stats = {
      requests: 900,
      answered429: 37,
      answered503: 0,
      retryAfterS: { min: 1, max: 1 },
      retryAfterAbsent: 0,
      heldS: 41.2,
      waitedS: 80,
      gaveUp: 0,
    };
    expect(throttleSentence({ ...stats, waitedS: 0 })).toBe('throttled: 429 on 37 requests, waited 41 s');
    expect(rateLimitObservation(stats)).toBe(
      'In 900 requests: 429 on 37, 503 on 0; Retry-After 1 s; the run was held 41 s, requests waited 80 s in all.',
    );
    expect(rateLimitObservation({ ...stats, answered429: 0, heldS: 0, waitedS: 0 })).toMatch(
      /^No 429 or 503 in 900 requests/,
    );
  });

  it('is one for every thread of the process: a worker thread counts into the same buffer', async () => {
    const throttle = runThrottle();
    throttle.reset();
    // The worker finds the buffer in the environment data it copied at its start, as a suite thread does.
    const worker = new Worker(
      `const { getEnvironmentData } = require('node:worker_threads');
       const shared = new BigInt64Array(getEnvironmentData('speakcheck:run-throttle'));
       Atomics.add(shared, 8, 5n);`,
      { eval: true },
    );
    await new Promise((resolve, reject) => worker.once('exit', resolve).once('error', reject));
    expect(throttle.stats().requests).toBe(5);
    expect(runThrottle()).toBe(throttle);
  });
});

describe('send() against a throttling server', () => {
  let server: FakeServer | undefined;
  beforeEach(() => runThrottle().reset());
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await closeHttp();
    runThrottle().reset();
  });

  /** A server answering `script[i]` to its i-th request (the last entry from then on). */
  async function scripted(script: Array<{ status: number; headers?: Record<string, string> }>) {
    server = await startFakeServer((req, res) => {
      const step = script[Math.min(server!.requests.length - 1, script.length - 1)]!;
      sendJson(
        res,
        step.status,
        step.status === 200 || step.status === 201
          ? { ok: true, body: req.body }
          : { detail: 'Rate limit exceeded, retry later' },
        step.headers ?? {},
      );
    });
    return server;
  }

  it('waits out 429s (Retry-After) and sends a POST again: the caller sees only the final answer', async () => {
    const s = await scripted([
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 201 },
    ]);
    const record = newTestRecord();
    const exchange = await runWithRecord(record, () =>
      send({
        method: 'POST',
        url: `${s.url}/v1/speak/takes/generate`,
        body: '{"text":"hi"}',
        timeoutMs: 2_000,
      }),
    );
    expect(exchange.status).toBe(201);
    expect(s.requests.map((r) => r.body)).toEqual(['{"text":"hi"}', '{"text":"hi"}', '{"text":"hi"}']);
    // Every attempt is evidence.
    expect(record.evidence.map((e) => e.status)).toEqual([429, 429, 201]);
    expect(runThrottle().stats()).toMatchObject({ requests: 3, answered429: 2 });
  });

  it('a 503 without Retry-After backs off on its own, then the answer comes', async () => {
    const s = await scripted([{ status: 503 }, { status: 200 }]);
    const started = performance.now();
    const exchange = await send({ method: 'GET', url: `${s.url}/v1/speak/voices`, timeoutMs: 2_000 });
    expect(exchange.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(runThrottle().stats()).toMatchObject({ answered503: 1, retryAfterAbsent: 1 });
  });

  it('onHeaders sees only the answer, never the back-pressure', async () => {
    const s = await scripted([{ status: 429, headers: { 'retry-after': '0' } }, { status: 200 }]);
    const seen: number[] = [];
    await send({ method: 'GET', url: s.url, timeoutMs: 2_000, onHeaders: (status) => seen.push(status) });
    expect(seen).toEqual([200]);
  });

  it('past its bound: one throttled diagnostic saying what the server answered and how long it waited', async () => {
    const s = await scripted([
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '5' } },
    ]);
    const error = await send({
      method: 'GET',
      url: `${s.url}/v1/speak/voices`,
      timeoutMs: 2_000,
      throttleBoundMs: 2_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientDiagnostic);
    expect((error as ClientDiagnostic).kind).toBe('throttled');
    expect((error as Error).message).toMatch(
      /^throttled: 429 ×2 \(Retry-After: 5\) to GET http:\/\/127\.0\.0\.1:\d+\/v1\/speak\/voices; waited 0\.\d s, and 5\.0 s more would pass the request's bound of 2 s$/,
    );
    expect(s.requests).toHaveLength(2);
    expect(runThrottle().stats().gaveUp).toBe(1);
  });

  it("past the run's budget (--max-time): gives up at once instead of waiting beyond it", async () => {
    runThrottle().reset({ deadlineMs: Date.now() + 500 });
    const s = await scripted([{ status: 429, headers: { 'retry-after': '1' } }]);
    const error = await send({ method: 'GET', url: s.url, timeoutMs: 2_000 }).catch((e: unknown) => e);
    expect((error as ClientDiagnostic).kind).toBe('throttled');
    expect((error as Error).message).toMatch(/the run's budget \(--max-time\) ends/);
    expect(s.requests).toHaveLength(1);
  });
});

describe('the websocket upgrade', () => {
  it('refused with 429 is waited out and tried again; each attempt is evidence', async () => {
    runThrottle().reset();
    const wss = new WebSocketServer({ noServer: true });
    let upgrades = 0;
    const server = createServer();
    server.on('upgrade', (req, socket, head) => {
      upgrades++;
      if (upgrades === 1) {
        const body = '{"detail":"Rate limit exceeded, retry later"}';
        socket.end(
          `HTTP/1.1 429 Too Many Requests\r\nRetry-After: 0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => ws.close());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/speak/ws`;
    const record = newTestRecord();
    try {
      const opened = await runWithRecord(record, () =>
        openWebsocket(url, { timeoutMs: 2_000 }, (socket) => {
          socket.close();
          return 'opened';
        }),
      );
      expect(opened).toBe('opened');
      expect(upgrades).toBe(2);
      expect(record.evidence.map((e) => e.status)).toEqual([429, 101]);
      expect(runThrottle().stats().answered429).toBe(1);
    } finally {
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      runThrottle().reset();
    }
  });
});

describe('a throttled request inside a property', () => {
  it('ends fc.assert at once with the diagnostic: no counterexample, no shrinking', async () => {
    let calls = 0;
    const diagnostic = new ClientDiagnostic('throttled', 'throttled: 429 ×3 (Retry-After: 1) to GET x', 'x');
    const error = await assertProperty(
      'throttled property',
      fc.asyncProperty(fc.integer(), async () => {
        calls++;
        throw diagnostic;
      }),
      { numRuns: 50, seed: 1 },
    ).catch((e: unknown) => e);
    expect(error).toBe(diagnostic);
    expect(calls).toBe(1);
    expect(throttledBy(new Error('wrapped', { cause: diagnostic }))).toBe(diagnostic);
  });
});

describe('an untrusted certificate is one sentence', () => {
  it('names --ca-file for an unknown CA, and says when --ca-file cannot help', () => {
    expect(
      certificateProblem('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'),
    ).toBe(
      "the server's TLS certificate is not signed by a trusted CA (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate); give the private CA that signed it with --ca-file FILE (PEM, env SPEAK_CA_FILE)",
    );
    expect(certificateProblem('DEPTH_ZERO_SELF_SIGNED_CERT', undefined)).toMatch(/--ca-file FILE/);
    expect(
      certificateProblem('ERR_TLS_CERT_ALTNAME_INVALID', "Host: x. is not in the cert's altnames"),
    ).toMatch(/does not name this host .*--ca-file only adds a trusted CA, it does not skip the name check/);
    expect(certificateProblem('ECONNREFUSED', 'connect ECONNREFUSED')).toBeUndefined();
  });
});

describe('the rate grows back after a throttle', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('by a quarter (at least 1 request/s) per calm second, up to --max-rps', async () => {
    const t = new SharedThrottle();
    t.reset({ maxRps: 10 });
    t.noteThrottled(429, 0, 0);
    expect(t.stats().rateRps).toBe(5);
    t.noteAnswer();
    // Not yet: less than a second since the decrease.
    expect(t.stats().rateRps).toBe(5);
    vi.advanceTimersByTime(1_050);
    t.noteAnswer();
    expect(t.stats().rateRps).toBe(6.25);
  });
});
