/** Each failure mode of a server ends within its bound with a sentence that names it. */
import { afterEach, describe, expect, test } from 'vitest';
import { diagnoseNetworkError } from '../../src/client/diagnostics.ts';
import { closeHttp, expectJson, send } from '../../src/client/http.ts';
import { type FakeServer, startFakeServer } from '../support/fake-server.ts';
import { startGarbageServer, startHtmlServer, startHungServer } from '../support/fake-speak.ts';
import { failure } from './diagnostic-failure.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeHttp();
});

describe('diagnostics', () => {
  test('connection refused names the URL', async () => {
    const d = await failure(
      send({ method: 'GET', url: 'http://127.0.0.1:9/v1/speak/version', timeoutMs: 2_000 }),
    );
    expect(d.kind).toBe('unreachable');
    expect(d.message).toBe(
      'connection refused: nothing listens at that address (GET http://127.0.0.1:9/v1/speak/version)',
    );
  });

  test('a DNS failure names the host', () => {
    const error = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND speak.invalid'), {
        code: 'ENOTFOUND',
        hostname: 'speak.invalid',
      }),
    });
    const d = diagnoseNetworkError(error, { method: 'GET', url: 'http://speak.invalid/v1', timeoutMs: 1 });
    expect(d.kind).toBe('unreachable');
    expect(d.message).toMatch(/host name speak\.invalid could not be resolved \(DNS\)/);
  });

  test('a hung server ends at the bound as "no response headers"', async () => {
    server = await startHungServer();
    const started = performance.now();
    const d = await failure(send({ method: 'GET', url: `${server.url}/v1/speak/version`, timeoutMs: 800 }));
    const elapsed = performance.now() - started;
    expect(d.kind).toBe('hung');
    expect(d.message).toMatch(/got no response headers within 800 ms/);
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(3_000);
  });

  test('a body that stalls after the headers ends at the bound', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const started = performance.now();
    const d = await failure(send({ method: 'GET', url: `${server.url}/x`, timeoutMs: 800 }));
    expect(d.kind).toBe('hung');
    expect(d.message).toMatch(/body/);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  test('bytes that are not HTTP are called garbage', async () => {
    server = await startGarbageServer();
    const d = await failure(send({ method: 'GET', url: `${server.url}/v1/speak/version`, timeoutMs: 2_000 }));
    expect(d.kind).toBe('garbage');
    expect(d.message).toMatch(/not HTTP/);
  });

  test('HTML where JSON was expected: content type and first bytes', async () => {
    server = await startHtmlServer();
    const exchange = await send({ method: 'GET', url: `${server.url}/v1/speak/models`, timeoutMs: 2_000 });
    expect(exchange.json).toBeUndefined();
    const d = await failure(Promise.resolve().then(() => expectJson(exchange, 'GET /v1/speak/models')));
    expect(d.kind).toBe('not-json');
    expect(d.message).toMatch(
      /^GET \/v1\/speak\/models answered 200 with something other than JSON: text\/html, \d+ bytes: "<!DOCTYPE html><html>/,
    );
  });

  test('JSON content type with a broken body says so', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"oops": ');
    });
    const exchange = await send({ method: 'GET', url: `${server.url}/x`, timeoutMs: 2_000 });
    expect(() => expectJson(exchange)).toThrow(
      /a body that does not parse as JSON: application\/json, 9 bytes/,
    );
  });

  test('a body over the cap is cut off with a diagnostic', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.alloc(100_000));
    });
    const d = await failure(
      send({ method: 'GET', url: `${server.url}/big`, timeoutMs: 2_000, maxBytes: 10_000 }),
    );
    expect(d.kind).toBe('too-large');
    expect(d.message).toMatch(/exceeded 10000 bytes/);
  });
});
