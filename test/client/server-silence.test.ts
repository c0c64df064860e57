/**
 * A server that answers nothing at all is learned once (src/client/server-silence.ts): the request
 * that found it and every later one are an outage that blocks what needed them, never a finding; a
 * later request does not wait out its own bound; the server answering again at its root is served.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ClientDiagnostic } from '../../src/client/diagnostics.ts';
import { closeHttp, send } from '../../src/client/http.ts';
import { resetObservedAnswers } from '../../src/client/route-silence.ts';
import { resetServerRechecks, setServerRecheckMsForTests } from '../../src/client/server-silence.ts';
import { runOutages } from '../../src/facts/outages.ts';
import { resetMemoryFacts } from '../../src/facts/run-facts.ts';
import { classify } from '../../src/harness/disposition.ts';

let server: Server | undefined;
let hanging = false;
const received: string[] = [];

beforeEach(async () => {
  resetMemoryFacts();
  resetObservedAnswers();
  resetServerRechecks();
  received.length = 0;
  hanging = false;
  server = createServer((req, res) => {
    received.push(req.url ?? '');
    if (hanging) return; // accepts, never answers: not even its root
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  setServerRecheckMsForTests();
  server?.closeAllConnections();
  server?.close();
  await closeHttp();
  resetMemoryFacts();
  resetServerRechecks();
});

const base = () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
const get = (path: string, timeoutMs = 150) =>
  send({ method: 'GET', url: `${base()}${path}`, timeoutMs }).then(
    (exchange) => exchange,
    (e: unknown) => e as ClientDiagnostic,
  );

describe('a server that answers nothing at all', () => {
  test('is learned from one request and its root, then blocks every later request at once', async () => {
    expect(await get('/v1/speak/version', 2_000)).toMatchObject({ status: 200 });
    hanging = true;
    const first = (await get('/v1/speak/takes/speakcheck-a')) as ClientDiagnostic;
    expect(first.kind).toBe('hung');
    // Its root asked, this route not asked a second time: one bound and the root's, not two bounds.
    expect(received).toEqual(['/v1/speak/version', '/v1/speak/takes/speakcheck-a', '/']);
    // An outage: what the test needed is blocked, never a finding against the route (a GET, a POST).
    expect(classify(first)).toMatchObject({ kind: 'outage' });
    const post = (await send({
      method: 'POST',
      url: `${base()}/v1/speak/takes/generate`,
      body: '{}',
      timeoutMs: 150,
    }).catch((e: unknown) => e)) as ClientDiagnostic;
    expect(post.message).toMatch(/answered nothing, not even at its root.*was not sent/);
    expect(classify(post)).toMatchObject({ kind: 'outage' });
    // Not sent: concluded at once (an event, not a stopwatch).
    expect(received).not.toContain('/v1/speak/takes/generate');
    // Named once, as one outage of the whole server.
    expect(runOutages().map((o) => o.route)).toEqual([`any request to ${base()}`]);
  });

  test('is served again once its root answers', async () => {
    setServerRecheckMsForTests(0);
    await get('/v1/speak/version', 2_000);
    hanging = true;
    expect(classify(await get('/v1/speak/takes/speakcheck-a'))).toMatchObject({ kind: 'outage' });
    hanging = false;
    // Its root is asked again before the request, answers, and the request is sent.
    expect(await get('/v1/speak/takes/speakcheck-b', 2_000)).toMatchObject({ status: 200 });
    expect(received.slice(-2)).toEqual(['/', '/v1/speak/takes/speakcheck-b']);
    hanging = true;
    // Silent again: learned again.
    expect(classify(await get('/v1/speak/takes/speakcheck-c'))).toMatchObject({ kind: 'outage' });
  });

  test('a route silent while the server answers elsewhere is no outage of the server', async () => {
    await get('/v1/speak/version', 2_000);
    // A server that answers its root: the request's own no-answer, asked again (a GET), not an outage.
    server!.removeAllListeners('request');
    server!.on('request', (req, res) => {
      received.push(req.url ?? '');
      if (req.url?.startsWith('/hang')) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const hung = (await get('/hang/speakcheck-x')) as ClientDiagnostic;
    expect(classify(hung).kind).not.toBe('outage');
    expect(runOutages().filter((o) => o.route.startsWith('any request'))).toEqual([]);
  });
});
