/**
 * A route that never serves is learned once (src/client/route-patience.ts), on a fake clock, and
 * the route template every request is counted under (src/client/route.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { ClientDiagnostic } from '../../src/client/diagnostics.ts';
import { closeHttp, send } from '../../src/client/http.ts';
import { pathTemplate, routeOf } from '../../src/client/route.ts';
import { ROUTE_PATIENCE_MS, RoutePatience } from '../../src/client/route-patience.ts';
import { runOutages } from '../../src/facts/outages.ts';
import { memoryFacts, resetMemoryFacts, runFacts } from '../../src/facts/run-facts.ts';

function fakeRun() {
  let now = 1_000_000;
  let served = 0;
  const facts = memoryFacts();
  const clock = { nowMs: () => now, servedTotal: () => served };
  return {
    facts,
    patience: (route = 'GET /v1/speak/takes/{take_id}/flac') => {
      const p = new RoutePatience(route, clock, facts);
      // Every fact recorded at the fake time.
      const record = facts.record;
      facts.record = (f) => record({ ...f, atMs: f.atMs ?? now });
      return p;
    },
    advance: (ms: number, servedMeanwhile = 10) => {
      now += ms;
      served += servedMeanwhile;
    },
  };
}

describe('route templates', () => {
  test.each([
    ['/v1/speak/takes/3f0c1a52-8d3e-4c1b-9a57-0d6f0e2b1c44/flac', '/v1/speak/takes/{take_id}/flac'],
    ['/v1/speak/voices/vc_01HZX3K8Q9T2M4N6P8R0S2U4W6', '/v1/speak/voices/{voice_id}'],
    ['/v1/speak/takes/42', '/v1/speak/takes/{take_id}'],
    ['/signed/audio/9b1e4f0a2c3d4e5f/m4a', '/signed/audio/{id}/m4a'],
    ['/v1/speak/takes/generate', '/v1/speak/takes/generate'],
    ['/v1/speak/version', '/v1/speak/version'],
  ])('%s → %s', (path, template) => {
    expect(pathTemplate(path)).toBe(template);
  });

  test('the method is part of the route, the query never', () => {
    expect(routeOf('get', 'http://h/v1/speak/takes/42/wav?X-Amz-Signature=abc')).toBe(
      'GET /v1/speak/takes/{take_id}/wav',
    );
  });
});

describe('route patience', () => {
  test('unavailable after 25 s (to the end of the last Retry-After) and 3 honoured Retry-Afters while other routes were served: one sentence', () => {
    const run = fakeRun();
    const flac = run.patience();
    for (let i = 0; i < 24; i++) {
      expect(flac.throttled(429, 1_000), `answer ${i + 1}`).toBeUndefined();
      run.advance(1_000, 7);
    }
    const fact = flac.throttled(429, 1_000);
    expect(fact?.sentence).toBe(
      'GET /v1/speak/takes/{take_id}/flac answered 429 to all 25 requests over 24 s while 168 other requests were served',
    );
    expect(fact?.consequence).toMatchObject({ kind: 'not-concluded' });
    // Learned once: another request of the run (another "thread" over the same facts) finds it at once.
    expect(run.patience().unavailable()?.sentence).toBe(fact?.sentence);
    expect(runOutages(run.facts)).toEqual([
      expect.objectContaining({
        route: 'GET /v1/speak/takes/{take_id}/flac',
        statuses: [429],
        answers: 25,
        servedElsewhere: 168,
      }),
    ]);
  });

  test('a brief overload still conforms: any answer of the route starts its patience again', () => {
    const run = fakeRun();
    const flac = run.patience();
    for (let i = 0; i < 15; i++) {
      flac.throttled(503, 1_000);
      run.advance(1_000);
    }
    flac.served();
    for (let i = 0; i < 15; i++) {
      expect(flac.throttled(503, 1_000)).toBeUndefined();
      run.advance(1_000);
    }
    expect(flac.unavailable()).toBeUndefined();
  });

  test('never without three honoured Retry-Afters, nor when nothing else of the run was served', () => {
    const noRetryAfter = fakeRun();
    const a = noRetryAfter.patience();
    a.throttled(429, 1_000);
    a.throttled(429, 1_000);
    for (let i = 0; i < 40; i++) {
      noRetryAfter.advance(1_000);
      expect(a.throttled(429, undefined)).toBeUndefined();
    }
    const wholeRun = fakeRun();
    const b = wholeRun.patience();
    for (let i = 0; i < 40; i++) {
      expect(b.throttled(429, 1_000)).toBeUndefined();
      wholeRun.advance(1_000, 0);
    }
    expect(ROUTE_PATIENCE_MS).toBe(25_000);
  });

  test('per route: another route of the same run keeps its own patience', () => {
    const run = fakeRun();
    const flac = run.patience();
    for (let i = 0; i <= 31; i++) {
      flac.throttled(429, 1_000);
      run.advance(1_000);
    }
    expect(flac.unavailable()).toBeDefined();
    expect(run.patience('GET /v1/speak/takes/{take_id}/wav').unavailable()).toBeUndefined();
  });
});

describe('a request to a route the run learned to be unavailable', () => {
  test('is not sent: it throws the throttled diagnostic at once, with the sentence', async () => {
    let received = 0;
    const server = createServer((_req, res) => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    resetMemoryFacts();
    try {
      runFacts().record({
        key: 'route:GET /v1/speak/takes/{take_id}/flac',
        type: 'unavailable',
        consequence: { kind: 'not-concluded', wouldJudge: 'x' },
        sentence:
          'GET /v1/speak/takes/{take_id}/flac answered 429 to all 25 requests over 24 s while 9 other requests were served',
        outage: {
          route: 'GET /v1/speak/takes/{take_id}/flac',
          statuses: [429],
          answers: 25,
          spanMs: 24_000,
          servedElsewhere: 9,
        },
      });
      const started = performance.now();
      const error = await send({
        method: 'GET',
        url: `${base}/v1/speak/takes/42/flac`,
        timeoutMs: 2_000,
      }).catch((e) => e);
      expect(error).toBeInstanceOf(ClientDiagnostic);
      expect((error as ClientDiagnostic).kind).toBe('throttled');
      expect((error as Error).message).toMatch(
        /^GET \/v1\/speak\/takes\/\{take_id\}\/flac answered 429 to all 25 requests.*was not sent/,
      );
      expect(performance.now() - started).toBeLessThan(500);
      expect(received).toBe(0);
      // Another route of the same take is sent as usual.
      expect(
        (await send({ method: 'GET', url: `${base}/v1/speak/takes/42/wav`, timeoutMs: 2_000 })).status,
      ).toBe(200);
      expect(received).toBe(1);
    } finally {
      resetMemoryFacts();
      await closeHttp();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a route throttled alone (issue 49)', () => {
  test('its limit is its own from its second 429 in a row, when no other route got one and the run was served', () => {
    const run = fakeRun();
    const flac = run.patience();
    let run429 = 0;
    const throttled = (p: RoutePatience) => {
      p.throttled(429, 1_000, run429);
      run429++;
      return p.throttledAlone(run429);
    };
    expect(throttled(flac)).toBe(false); // the first is the run's: it cannot tell yet
    run.advance(1_000);
    expect(throttled(flac)).toBe(true);
    run.advance(1_000);
    expect(throttled(flac)).toBe(true);
  });

  test('a run-wide limit (other routes refused too) never is, nor a streak nothing else was served beside', () => {
    const run = fakeRun();
    const flac = run.patience();
    const wav = run.patience('GET /v1/speak/takes/{take_id}/wav');
    let run429 = 0;
    const throttled = (p: RoutePatience) => {
      p.throttled(429, 1_000, run429);
      run429++;
      return p.throttledAlone(run429);
    };
    throttled(flac);
    run.advance(1_000);
    expect(throttled(wav)).toBe(false);
    expect(throttled(flac)).toBe(false); // another route was refused since its streak began
    const lone = fakeRun();
    const models = lone.patience('GET /v1/speak/models');
    run429 = 0;
    throttled(models);
    lone.advance(1_000, 0);
    expect(throttled(models)).toBe(false); // nothing else served: the server throttles everything
  });
});
