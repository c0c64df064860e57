/**
 * A websocket URL is never sent past the lifetime it shows, also across upgrade retries (issue 37):
 * a 503 whose Retry-After outlasts the URL makes the client ask for a new one before it tries again;
 * without `reissue` the old one is sent (what the expiry checks need).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { runThrottle } from '../../src/client/back-pressure.ts';
import { MAX_URL_RENEWALS, openWebsocket } from '../../src/client/ws-connect.ts';
import { SpeakStreamConnection } from '../../src/client/ws-stream.ts';
import { newTestRecord, runWithRecord } from '../../src/evidence/evidence.ts';

/** Answers the first upgrade 503 Retry-After: 2, accepts every later one; keeps each upgrade's secret. */
async function busyOnce(): Promise<{ base: string; secrets: string[]; close(): Promise<void> }> {
  const wss = new WebSocketServer({ noServer: true });
  const secrets: string[] = [];
  const server: Server = createServer();
  server.on('upgrade', (req, socket, head) => {
    secrets.push(new URL(req.url ?? '/', 'http://x').searchParams.get('secret') ?? '');
    if (secrets.length === 1) {
      const body = '{"detail":"busy, retry later"}';
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => ws.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/speak/worker`,
    secrets,
    close: async () => {
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let server: Awaited<ReturnType<typeof busyOnce>>;
beforeEach(async () => {
  runThrottle().reset();
  server = await busyOnce();
});
afterEach(async () => {
  await server.close();
  runThrottle().reset();
});

const open = (url: string, o: Parameters<typeof openWebsocket>[1]) =>
  runWithRecord(newTestRecord(), () =>
    openWebsocket(url, o, (socket) => {
      socket.close();
      return 'opened';
    }),
  );

describe('an upgrade retried after a Retry-After longer than the URL lives', () => {
  it('asks for a new URL (--ws-url-lifetime 2) and connects with it', async () => {
    let issued = 0;
    const reissue = async () => `${server.base}?secret=new-${++issued}`;
    const opened = await open(`${server.base}?secret=old`, {
      timeoutMs: 2_000,
      issuedAtMs: Date.now(),
      configuredLifetimeS: 2,
      reissue,
    });
    expect(opened).toBe('opened');
    expect(server.secrets).toEqual(['old', 'new-1']);
    expect(issued).toBe(1);
  }, 10_000);

  it('renews a URL that shows its own expiry (exp, epoch ms) through SpeakStreamConnection.connect', async () => {
    let issued = 0;
    const reissue = async () => `${server.base}?secret=new-${++issued}&exp=${Date.now() + 2_000}`;
    const issuedAtMs = Date.now();
    const conn = await runWithRecord(newTestRecord(), () =>
      SpeakStreamConnection.connect(`${server.base}?secret=old&exp=${issuedAtMs + 2_000}`, {
        timeoutMs: 2_000,
        issuedAtMs,
        reissue,
      }),
    );
    await conn.close();
    expect(server.secrets).toEqual(['old', 'new-1']);
  }, 10_000);

  it('without reissue sends the old URL again', async () => {
    const opened = await open(`${server.base}?secret=old`, {
      timeoutMs: 2_000,
      issuedAtMs: Date.now(),
      configuredLifetimeS: 2,
    });
    expect(opened).toBe('opened');
    expect(server.secrets).toEqual(['old', 'old']);
  }, 10_000);

  it('a URL still fresh is not asked for again', async () => {
    let issued = 0;
    await open(`${server.base}?secret=old`, {
      timeoutMs: 2_000,
      issuedAtMs: Date.now(),
      configuredLifetimeS: 60,
      reissue: async () => `${server.base}?secret=new-${++issued}`,
    });
    expect(server.secrets).toEqual(['old', 'old']);
    expect(issued).toBe(0);
  }, 10_000);

  it(`renews at most ${MAX_URL_RENEWALS} times, then sends what it has`, async () => {
    let issued = 0;
    // Every URL issued is already stale (a server whose URLs outlive nothing, or a skewed clock).
    await open(`${server.base}?secret=old`, {
      timeoutMs: 2_000,
      issuedAtMs: Date.now() - 10_000,
      configuredLifetimeS: 1,
      reissue: async () => `${server.base}?secret=new-${++issued}&exp=${Date.now() - 5_000}`,
    });
    expect(issued).toBe(MAX_URL_RENEWALS);
    // Renewed before the first attempt (stale at once), again before the retry, then no more.
    expect(server.secrets).toEqual(['new-1', 'new-2']);
  }, 10_000);
});
