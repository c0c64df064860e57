/**
 * A route that does not answer is learned once (src/client/route-silence.ts): two no-answers while
 * the server answered others, then every later request concludes at once naming the first; an
 * answer starts over; the bound of the first answer comes from what the route showed. And the ids
 * the harness puts in paths map to the route of a server-made id (src/client/route.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { ClientDiagnostic } from '../../src/client/diagnostics.ts';
import { closeHttp, send, signedRoute } from '../../src/client/http.ts';
import { type HttpMethod, routeOf, WEBSOCKET_UPGRADE_ROUTE } from '../../src/client/route.ts';
import {
  ANSWER_BOUND_FLOOR_MS,
  answerBoundMs,
  boundFrom,
  observeAnswer,
  RouteSilence,
  resetObservedAnswers,
  setAnswerBoundFloorForTests,
} from '../../src/client/route-silence.ts';
import { WsClientError } from '../../src/client/ws-client-error.ts';
import { openWebsocket } from '../../src/client/ws-connect.ts';
import { runOutages } from '../../src/facts/outages.ts';
import { memoryFacts, resetMemoryFacts } from '../../src/facts/run-facts.ts';
import { classify } from '../../src/harness/disposition.ts';
import { requirementOfRoute } from '../../src/harness/route-requirement.ts';
import { outageLine } from '../../src/verdict/words.ts';

describe('route identity', () => {
  test.each([
    ['GET', 'http://h/v1/speak/takes/speakcheck-probe-unknown/flac', 'GET /v1/speak/takes/{take_id}/flac'],
    ['GET', 'http://h/v1/speak/takes/tk_01HZX3K8Q9T2M4N6P8R0S2/flac', 'GET /v1/speak/takes/{take_id}/flac'],
    ['DELETE', 'http://h/v1/speak/voices/speakcheck-unknown-id', 'DELETE /v1/speak/voices/{voice_id}'],
    ['GET', 'http://h/v1/speak/takes/3f0c1a52-8d3e-4c1b-9a57-0d6f0e2b1c44', 'GET /v1/speak/takes/{take_id}'],
  ])('%s %s → %s', (method, url, route) => {
    expect(routeOf(method, url)).toBe(route);
  });

  test('a signed URL is a route of its host, whatever its path and query', () => {
    expect(signedRoute('https://bucket.example.com/a/tk_1/wav?X-Amz-Signature=abc')).toBe(
      signedRoute('https://bucket.example.com/b/tk_2/flac?X-Amz-Signature=def'),
    );
    expect(signedRoute('https://bucket.example.com/a')).toBe('GET (signed URL) bucket.example.com');
  });
});

describe('the bound of the first answer', () => {
  afterEach(resetObservedAnswers);

  test('the option until the route showed enough answers', () => {
    expect(boundFrom(undefined, 15_000)).toBe(15_000);
    expect(boundFrom({ slowestMs: 10, samples: 2 }, 15_000)).toBe(15_000);
  });

  test('a multiple of the slowest answer, never below the floor nor above the ceiling', () => {
    expect(boundFrom({ slowestMs: 10, samples: 3 }, 15_000)).toBe(ANSWER_BOUND_FLOOR_MS);
    expect(boundFrom({ slowestMs: 1_000, samples: 5 }, 15_000)).toBe(10_000);
    expect(boundFrom({ slowestMs: 4_000, samples: 5 }, 15_000)).toBe(15_000);
  });

  test('observed per route', () => {
    for (const ms of [5, 900, 20]) observeAnswer('GET /a', ms);
    expect(answerBoundMs('GET /a', 60_000)).toBe(9_000);
    expect(answerBoundMs('GET /b', 60_000)).toBe(60_000);
  });
});

describe('a route that does not answer', () => {
  test('learned after two no-answers while others were answered, then concluded at once', () => {
    const facts = memoryFacts();
    let served = 0;
    const silence = new RouteSilence('GET /v1/speak/models', () => served, facts);
    expect(silence.noAnswer('got no response headers within 100 ms (first)', 100)).toBeUndefined();
    expect(silence.noAnswer('second', 100)).toBeUndefined(); // nothing else answered: maybe the server is down
    served = 3;
    const learned = silence.noAnswer('third', 100);
    expect(learned?.sentence).toContain('GET /v1/speak/models did not answer 3 requests');
    expect(learned?.sentence).toContain('the first: got no response headers within 100 ms (first)');
    expect(silence.unanswered()).toBe(learned);
    expect(runOutages(facts).map((o) => o.route)).toEqual(['GET /v1/speak/models']);
  });

  test('an answer starts over', () => {
    const facts = memoryFacts();
    const silence = new RouteSilence('GET /x', () => 5, facts);
    silence.noAnswer('one', 100);
    silence.answered();
    expect(silence.noAnswer('two', 100)).toBeUndefined();
    expect(silence.noAnswer('three', 100)?.sentence).toContain('the first: two');
  });

  test('over the wire: a hanging route is waited out twice, then named at once', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    const received: string[] = [];
    const server: Server = createServer((req, res) => {
      received.push(req.url ?? '');
      if (req.url?.startsWith('/hang')) return; // accepts, never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const hung = async (id: string) =>
        send({ method: 'GET', url: `${base}/hang/speakcheck-${id}`, timeoutMs: 150 }).then(
          () => undefined,
          (e: unknown) => e as ClientDiagnostic,
        );
      expect((await hung('a'))?.kind).toBe('hung');
      // The server is up: it answers another route while this one is silent.
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const second = await hung('b');
      expect(second?.message).toContain('the route does not answer for the rest of the run');
      const third = await hung('c');
      // Named at once: not sent, so not waited for (an event, not a stopwatch: a busy machine's
      // timing says nothing).
      expect(received).not.toContain('/hang/speakcheck-c');
      expect(third).toBeInstanceOf(ClientDiagnostic);
      expect(third?.message).toMatch(/GET \/hang\/\{id\} did not answer \d+ requests .*was not sent/);
      expect(runOutages()).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });

  test('a request already waiting when the route is learned stops waiting', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/hang')) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const t0 = performance.now();
      const long = send({ method: 'GET', url: `${base}/hang/speakcheck-long`, timeoutMs: 20_000 }).catch(
        (e: unknown) => e as ClientDiagnostic,
      );
      for (const id of ['a', 'b']) {
        await send({ method: 'GET', url: `${base}/hang/speakcheck-${id}`, timeoutMs: 100 }).catch(
          () => undefined,
        );
        await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      }
      const ended = await long;
      expect(performance.now() - t0).toBeLessThan(3_000);
      expect((ended as ClientDiagnostic).message).toMatch(
        /did not answer \d+ requests.*stopped waiting after/,
      );
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });
});

describe('what a route that does not answer means for a test', () => {
  const hung = (route: string, learned: boolean, method: HttpMethod = 'GET') => {
    const d = new ClientDiagnostic(
      'hung',
      `got no response headers within 8000 ms (${method} …)`,
      'http://h/',
    );
    d.route = route;
    d.method = method;
    if (learned) d.routeLearned = true;
    return d;
  };

  test('a learned route: evidence against the MUST that says the call returns something, a block elsewhere', () => {
    expect(classify(hung('GET /v1/speak/models', true))).toMatchObject({
      kind: 'run-fact',
      requirement: 'MODELS-LIST',
    });
    expect(classify(hung('GET (signed URL) bucket:9000', true))).toMatchObject({
      kind: 'run-fact',
      requirement: 'AUDIO-SIGNED-NO-AUTH',
    });
    expect(requirementOfRoute('GET /v1/speak/takes/{take_id}/flac')).toBe('AUDIO-307');
    expect(requirementOfRoute('GET /v1/speak/version')).toBe('VERSION-NO-TOKEN');
  });

  test("one no-answer of a route not learned (a POST, not sent again) is that request's own finding", () => {
    expect(classify(hung('POST /v1/speak/voices/generate', false, 'POST'))).toMatchObject({
      kind: 'finding',
      requirement: 'VOICE-GENERATE-RETURNS-VOICE',
    });
  });

  test('whether it was sent once is told by its method, not by how its route is written', () => {
    // A GET is asked again: one no-answer of it is no finding against the route's MUST.
    expect(classify(hung('GET /v1/speak/models', false, 'GET'))).not.toMatchObject({
      requirement: 'MODELS-LIST',
    });
    // A route named for a POST, its request a GET: the method decides, not the route's text.
    expect(classify(hung('POST /v1/speak/voices/generate', false, 'GET'))).not.toMatchObject({
      requirement: 'VOICE-GENERATE-RETURNS-VOICE',
    });
  });

  test('a websocket upgrade without an answer: its own finding once, the route learned at the second', () => {
    const upgrade = (learned: boolean) => {
      const e = new WsClientError('connect-timeout', 'Opening handshake has timed out');
      e.route = WEBSOCKET_UPGRADE_ROUTE;
      if (learned) e.routeLearned = true;
      return e;
    };
    expect(classify(upgrade(false))).toMatchObject({ kind: 'finding', requirement: 'WS-CONNECT-NO-BEARER' });
    expect(classify(upgrade(true))).toMatchObject({ kind: 'run-fact', requirement: 'WS-CONNECT-NO-BEARER' });
  });

  test('a route no MUST names the answer of stays a finding', () => {
    expect(classify(hung('GET /v1/speak/nothing', true)).kind).toBe('finding');
  });
});

describe('a request that is not sent again (issue 49)', () => {
  async function silentServer(): Promise<{ base: string; server: Server; upgrades: () => number }> {
    let upgrades = 0;
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/hang')) return; // accepts, never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    server.on('upgrade', () => {
      upgrades++; // accepted, never answered
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      server,
      upgrades: () => upgrades,
    };
  }

  test('one unanswered POST is its own finding; the second learns the route', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    const { base, server } = await silentServer();
    const post = () =>
      send({ method: 'POST', url: `${base}/hang/generate`, body: '{}', timeoutMs: 150 }).then(
        () => undefined,
        (e: unknown) => e as ClientDiagnostic,
      );
    try {
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const first = await post();
      expect(first?.kind).toBe('hung');
      expect(first?.method).toBe('POST');
      expect(first?.routeLearned).toBeUndefined();
      expect(runOutages()).toEqual([]);
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const second = await post();
      expect(second?.routeLearned).toBe(true);
      expect(second?.message).toContain('the route does not answer for the rest of the run');
      const t0 = performance.now();
      const third = await post();
      expect(performance.now() - t0).toBeLessThan(100);
      expect(third?.routeLearned).toBe(true);
      expect(runOutages().map((o) => o.route)).toEqual(['POST /hang/generate']);
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });

  test('the websocket upgrade is a route like the others: learned at the second unanswered upgrade', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    const { base, server, upgrades } = await silentServer();
    const url = `${base.replace('http', 'ws')}/v1/speak/ws`;
    const connect = () =>
      openWebsocket(url, { timeoutMs: 150 }, (socket) => socket.close()).then(
        () => undefined,
        (e: unknown) => e as WsClientError,
      );
    try {
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const first = await connect();
      expect(first?.kind).toBe('connect-timeout');
      expect(first?.route).toBe(WEBSOCKET_UPGRADE_ROUTE);
      expect(first?.routeLearned).toBeUndefined();
      await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      const second = await connect();
      expect(second?.routeLearned).toBe(true);
      const third = await connect();
      expect(third?.routeLearned).toBe(true);
      expect(upgrades()).toBe(2); // the third was not sent
      expect(runOutages().map((o) => o.route)).toEqual([WEBSOCKET_UPGRADE_ROUTE]);
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });
});

describe('fair to a slow server (issue 49 review)', () => {
  test('a full stall is no route of its own: only answers after the streak began count', () => {
    const facts = memoryFacts();
    let served = 40; // answered before the route went silent: says nothing about now
    const silence = new RouteSilence('GET /v1/speak/models', () => served, facts);
    expect(silence.noAnswer('one', 100, 40)).toBeUndefined();
    expect(silence.noAnswer('two', 100, 40)).toBeUndefined();
    served = 41; // one other request answered since the first no-answer was sent
    expect(silence.noAnswer('three', 100, 41)?.sentence).toContain('while 1 other request was answered');
  });

  test('the bound learned from headers never cuts a first body byte, nor a stream the caller bounded', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    // A floor of 1.5 s instead of 8 (the unit loop's time): loopback answers in a few ms, so the
    // learned bound is still the floor, and a body 0.5 s later than it is what the test is about.
    const floor = 1_500;
    setAnswerBoundFloorForTests(floor);
    const late = floor + 500;
    const server: Server = createServer((req, res) => {
      // Headers at once, then the first byte of the body late (a stream while synthesizing).
      if (req.url?.includes('late-body')) {
        res.writeHead(200, { 'content-type': 'audio/wav' }).flushHeaders();
        setTimeout(() => res.end('RIFF'), late).unref();
        return;
      }
      // Headers late (a stream that answers once synthesis starts).
      if (req.url?.includes('late-headers')) {
        setTimeout(() => res.writeHead(200).end('RIFF'), late).unref();
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/wav' }).end('RIFF'); // a ready download: fast
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const route = signedRoute(base);
    try {
      for (const n of [1, 2, 3])
        await send({ method: 'GET', url: `${base}/ready/${n}`, route, timeoutMs: 30_000 });
      expect(answerBoundMs(route, 30_000)).toBe(floor);
      const [body, stream] = await Promise.all([
        send({ method: 'GET', url: `${base}/late-body`, route, timeoutMs: 30_000 }),
        send({ method: 'GET', url: `${base}/late-headers`, route, timeoutMs: 30_000, stream: true }),
      ]);
      expect(body.text).toBe('RIFF');
      expect(stream.text).toBe('RIFF');
      expect(runOutages()).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
      setAnswerBoundFloorForTests();
    }
  }, 20_000);
});

describe('no secret in what a silent route says (issue 49 review)', () => {
  test('the facts and the outage line carry the route and a redacted URL, never a signature', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/audio')) return; // the storage host never answers
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const signed = (n: number) =>
      `${base}/audio/tk_${n}/wav?X-Amz-Credential=AKIASECRETCRED&X-Amz-Signature=deadbeefsignature${n}`;
    try {
      const route = signedRoute(signed(1));
      for (const n of [1, 2]) {
        await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
        await send({ method: 'GET', url: signed(n), route, timeoutMs: 150 }).catch(() => undefined);
      }
      const [outage] = runOutages();
      expect(outage?.route).toBe(route);
      const line = outageLine(outage!);
      expect(line).toContain(route);
      const said = [
        line,
        ...memoryFacts()
          .all()
          .map((f) => f.sentence ?? ''),
      ].join('\n');
      expect(said).toContain('/audio/tk_1/wav');
      expect(said).not.toMatch(/deadbeefsignature|AKIASECRETCRED/);
    } finally {
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });
});

describe('one no-answer is asked again (issue 49 review)', () => {
  test('a GET the route answers the second time succeeds; one that never answers is learned from itself', async () => {
    resetMemoryFacts();
    resetObservedAnswers();
    let slowOnce = true;
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/hang')) return;
      if (req.url?.startsWith('/once') && slowOnce) {
        slowOnce = false;
        return; // the first request is lost; the next is answered
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Other requests answered meanwhile: the server is up.
    // Their own failures (the server closing at the end, a loaded machine) are not this test's subject.
    const busy = setInterval(
      () => void send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 }).catch(() => undefined),
      20,
    );
    try {
      const once = await send({ method: 'GET', url: `${base}/once/speakcheck-a`, timeoutMs: 200 });
      expect(once.status).toBe(200);
      // Marked: an answer that depends on the state says nothing of the first attempt's effect.
      expect(once.resentAfterNoAnswer).toBe(true);
      const answered = await send({ method: 'GET', url: `${base}/ok`, timeoutMs: 2_000 });
      expect(answered.resentAfterNoAnswer).toBeUndefined();
      expect(runOutages()).toEqual([]);
      const hung = await send({ method: 'GET', url: `${base}/hang/speakcheck-b`, timeoutMs: 200 }).catch(
        (e: unknown) => e as ClientDiagnostic,
      );
      expect((hung as ClientDiagnostic).message).toMatch(/did not answer 2 requests .*the rest of the run/);
      expect(classify(hung)).toMatchObject({ kind: 'finding' }); // no MUST names /hang's answer
      expect(runOutages().map((o) => o.route)).toEqual(['GET /hang/{id}']);
    } finally {
      clearInterval(busy);
      server.closeAllConnections();
      server.close();
      await closeHttp();
      resetMemoryFacts();
    }
  });
});
