/**
 * The harness against hostile servers, the cases test/client/diagnostics.int.test.ts (refused, DNS, hung,
 * stalled, garbage, HTML, too large) and run-cli.test.ts do not cover: redirect loops, wrong content
 * types, reset sockets, answers dripped byte by byte, and a websocket worker that never ends a take.
 * Each ends within its bound with a diagnostic that names the problem; nothing is left open (every
 * server and connection is closed here, so vitest exits on its own).
 */
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { buildSyntheticStream, tonePcm } from '../../fixtures/ws-streams/synthetic.ts';
import { Finding } from '../../src/checks/finding.ts';
import { closeHttp, expectJson, send } from '../../src/client/http.ts';
import { HttpSpeakClient } from '../../src/client/speak-client.ts';
import { SpeakStreamConnection } from '../../src/client/ws-stream.ts';
import type { SpeakContext } from '../../src/harness/index.ts';
import { fetchAudio } from '../../suites/support/audio.ts';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';
import { speakcheckRun } from '../support/speakcheck-run.ts';
import { failure } from './diagnostic-failure.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await closeHttp();
});

async function fake(handler: Parameters<typeof startFakeServer>[0]): Promise<FakeServer> {
  const server = await startFakeServer(handler);
  closers.push(() => server.close());
  return server;
}

/** A TCP server whose connections are handed to `onSocket` as they are (no HTTP parsing). */
async function rawServer(onSocket: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await p;
  return { value, ms: performance.now() - started };
}

const settings = (url: string) => ({ baseUrl: url, authUrl: url, requestTimeoutMs: 2_000 });

describe('redirect loops', () => {
  test('a signed URL that redirects to itself is requested once and named, not followed', async () => {
    const server = await fake((req, res) => {
      if (req.url === '/auth/login')
        return sendJson(res, 200, { access_token: 'acc-aaaaaa', refresh_token: 'ref-aaaaaa' });
      const loop = `${server.url}/signed/t1/wav?X-Amz-Signature=abcdef123456`;
      res.writeHead(307, { location: loop });
      res.end();
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    const { value: error, ms } = await timed(
      fetchAudio({ api } as unknown as SpeakContext, 't1', 'wav').then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(error).toBeInstanceOf(Finding);
    expect((error as Finding).message).toBe(
      'GET signed wav URL (no Authorization) answered 307, expected 200 with the audio: ""',
    );
    expect(server.requests.map((r) => r.url)).toEqual([
      '/auth/login',
      '/v1/speak/takes/t1/wav',
      '/signed/t1/wav?X-Amz-Signature=abcdef123456',
    ]);
    expect(ms).toBeLessThan(3_000);
  });

  test('speakcheck run against a server that redirects every request to itself: could not run, one sentence', async () => {
    const server = await fake((req, res) => {
      res.writeHead(307, { location: req.url });
      res.end();
    });
    const result = await speakcheckRun(
      ['--base-url', server.url, '--email', 'a@b.c', '--password', 'pw-123456'],
      { timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr + result.stdout).toBe(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^speakcheck: could not run: .*307.*\.$/);
    expect(server.requests.length).toBeLessThan(10);
    expect(result.ms).toBeLessThan(30_000);
  }, 60_000);
});

describe('wrong content types', () => {
  test('JSON text served as text/plain is read as JSON (the content type is judged by API-JSON-BODIES)', async () => {
    const server = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('[{"name":"studio"}]');
    });
    const exchange = await send({ method: 'GET', url: `${server.url}/v1/speak/models`, timeoutMs: 2_000 });
    expect(exchange.headers['content-type']).toBe('text/plain');
    expect(expectJson(exchange, 'GET /v1/speak/models')).toEqual([{ name: 'studio' }]);
  });

  test('text that is not JSON under text/plain is named with its type', async () => {
    const server = await fake((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('name: studio');
    });
    const exchange = await send({ method: 'GET', url: `${server.url}/v1/speak/models`, timeoutMs: 2_000 });
    expect(exchange.json).toBeUndefined();
    const d = await failure(Promise.resolve().then(() => expectJson(exchange, 'GET /v1/speak/models')));
    expect(d.kind).toBe('not-json');
    expect(d.message).toBe(
      'GET /v1/speak/models answered 200 with something other than JSON: text/plain, 12 bytes: "name: studio"',
    );
  });

  test('an answer with no content type at all that is not JSON is named as such', async () => {
    const url = await rawServer((socket) =>
      socket.once('data', () =>
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'),
      ),
    );
    const exchange = await send({ method: 'GET', url: `${url}/v1/speak/version`, timeoutMs: 2_000 });
    const d = await failure(Promise.resolve().then(() => expectJson(exchange, 'GET /v1/speak/version')));
    expect(d.message).toMatch(/something other than JSON: no content-type, 2 bytes: "ok"/);
  });
});

describe('reset sockets', () => {
  test('a connection reset before any answer ends at once as "reset by the server"', async () => {
    const url = await rawServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const { value: d, ms } = await timed(
      failure(send({ method: 'GET', url: `${url}/v1/speak/version`, timeoutMs: 5_000 })),
    );
    expect(d.kind).toBe('unreachable');
    expect(d.message).toBe(`the connection was reset by the server (GET ${url}/v1/speak/version)`);
    expect(ms).toBeLessThan(2_000);
  });

  test('a connection cut in the middle of the body says the answer was incomplete', async () => {
    const url = await rawServer((socket) =>
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"version":',
        );
        setTimeout(() => socket.resetAndDestroy(), 50);
      }),
    );
    const { value: d, ms } = await timed(
      failure(send({ method: 'GET', url: `${url}/v1/speak/version`, timeoutMs: 5_000 })),
    );
    expect(d.message).toMatch(/reset by the server|closed the connection before the answer was complete/);
    expect(d.message).toContain(`GET ${url}/v1/speak/version`);
    expect(ms).toBeLessThan(2_000);
  });
});

describe('answers dripped byte by byte', () => {
  const body = JSON.stringify({ version: 1, minor: 0, padding: 'x'.repeat(60) });

  function dripServer(everyMs: number): Promise<string> {
    return rawServer((socket) =>
      socket.once('data', () => {
        const bytes = Buffer.from(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
        let at = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || at >= bytes.length) return clearInterval(timer);
          socket.write(bytes.subarray(at, at + 1));
          at += 1;
        }, everyMs);
        socket.once('close', () => clearInterval(timer));
      }),
    );
  }

  test('a slow drip that never finishes in time ends at the request bound, not at the last byte', async () => {
    const url = await dripServer(50); // ~170 bytes: ~8.5 s to the last byte
    const { value: d, ms } = await timed(
      failure(send({ method: 'GET', url: `${url}/v1/speak/version`, timeoutMs: 1_000 })),
    );
    expect(['hung', 'timeout']).toContain(d.kind);
    expect(d.message).toMatch(/within 1000 ms|more than 1000 ms/);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(3_000);
  });

  test('a drip that completes within the bound is read whole', async () => {
    const url = await dripServer(1);
    const exchange = await send({ method: 'GET', url: `${url}/v1/speak/version`, timeoutMs: 10_000 });
    expect(exchange.status).toBe(200);
    expect(expectJson(exchange)).toEqual(JSON.parse(body));
  });
});

describe('a websocket worker that never ends a take', () => {
  async function worker(onRequest: (socket: WebSocket, requestId: number | string) => void): Promise<string> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (socket) =>
      socket.on('message', (data) =>
        onRequest(socket, (JSON.parse(String(data)) as { request_id: number }).request_id),
      ),
    );
    closers.push(async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws?secret=hostile-secret`;
  }

  const take = (status: string) => ({
    take_id: 'take-1',
    voice_id: 'v',
    text: 'Hello. Again.',
    status,
    info: null,
  });

  test('status and audio, then silence: the request ends at its bound as a timeout naming what arrived', async () => {
    const url = await worker((socket, requestId) => {
      socket.send(JSON.stringify({ request_id: requestId, data: take('started') }));
      const stream = buildSyntheticStream({
        mode: 'parts',
        requestId,
        takeId: 'take-1',
        parts: [tonePcm(300), tonePcm(200, 2)],
      });
      socket.send(stream.frames[0]!); // the first part, then nothing: no done status, no end marker
    });
    const conn = await SpeakStreamConnection.connect(url, { timeoutMs: 2_000 });
    try {
      const { value: r, ms } = await timed(
        conn.generate(
          { text: 'Hello. Again.' },
          { requestId: 1, mode: 'parts', timeouts: { firstMessageMs: 1_000, endOfTakeMs: 800 } },
        ),
      );
      expect(r.outcome).toBe('timeout');
      expect(r.diagnostic).toMatch(/800 ms/);
      expect(r.statusMessages.length + r.takeMessages.length).toBeGreaterThan(0);
      expect(r.frames.length).toBe(1);
      expect(ms).toBeLessThan(3_000);
    } finally {
      await conn.close();
    }
  });

  test('a worker that accepts TCP but never answers the upgrade: connect-timeout at its bound', async () => {
    const url = (await rawServer(() => undefined)).replace('http:', 'ws:');
    const started = performance.now();
    const error = await SpeakStreamConnection.connect(`${url}/ws?secret=x`, { timeoutMs: 700 }).then(
      async (conn) => {
        await conn.close();
        return undefined;
      },
      (e: unknown) => e as Error & { kind?: string },
    );
    expect(error?.kind).toBe('connect-timeout');
    expect(error?.message).toMatch(/700 ms/);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
