/**
 * Refused means not upgraded (src/checks/upgrade-refusal.ts): any non-101 answer or a connection
 * closed before an answer is a refusal, whatever its status; back-pressure, no connection at all and
 * no answer in time are not. Then the same outcomes read off real upgrades on loopback
 * (suites/support/upgrade.ts attemptUpgrade through the stream client).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  classifyUpgradeFailure,
  describeUpgradeOutcome,
  isNotableRefusal,
  isRefusal,
  type UpgradeOutcome,
} from '../../src/checks/upgrade-refusal.ts';
import { attemptUpgrade } from '../../suites/support/upgrade.ts';

describe('classifyUpgradeFailure', () => {
  it.each([401, 403, 404, 400, 426, 500, 502, 504])('HTTP %i is a refusal', (status) => {
    const outcome = classifyUpgradeFailure({ kind: 'upgrade-refused', message: '…', status });
    expect(outcome).toEqual({ kind: 'refused', status });
    expect(isRefusal(outcome!)).toBe(true);
  });

  it('a 5xx is a refusal named as a server error, a 4xx is not notable', () => {
    const bad = classifyUpgradeFailure({ kind: 'upgrade-refused', message: '…', status: 502 })!;
    expect(isNotableRefusal(bad)).toBe(true);
    expect(describeUpgradeOutcome(bad)).toMatch(/HTTP 502, a server error/);
    const plain = classifyUpgradeFailure({ kind: 'upgrade-refused', message: '…', status: 401 })!;
    expect(isNotableRefusal(plain)).toBe(false);
    expect(describeUpgradeOutcome(plain)).toBe('refused with HTTP 401');
  });

  it.each([429, 503])('HTTP %i is back-pressure, never a refusal', (status) => {
    const outcome = classifyUpgradeFailure({ kind: 'upgrade-refused', message: '…', status })!;
    expect(outcome.kind).toBe('back-pressure');
    expect(isRefusal(outcome)).toBe(false);
  });

  it.each([
    ['ECONNRESET', 'cannot connect to ws://h/x: socket hang up'],
    ['EPIPE', 'cannot connect to ws://h/x: write EPIPE'],
    [undefined, 'cannot connect to ws://h/x: socket hang up'],
  ])('a connection closed before an answer (%s) is a refusal', (errno, message) => {
    const outcome = classifyUpgradeFailure({ kind: 'connect-error', message, errno })!;
    expect(outcome.kind).toBe('closed');
    expect(isRefusal(outcome)).toBe(true);
    expect(isNotableRefusal(outcome)).toBe(true);
    expect(describeUpgradeOutcome(outcome)).toMatch(/closed without an HTTP answer/);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH'])(
    'no connection at all (%s) says nothing about the URL',
    (errno) => {
      const outcome = classifyUpgradeFailure({ kind: 'connect-error', message: 'x', errno })!;
      expect(outcome.kind).toBe('unreachable');
      expect(isRefusal(outcome)).toBe(false);
    },
  );

  it('no answer in time is neither accepted nor refused', () => {
    const outcome = classifyUpgradeFailure({ kind: 'connect-timeout', message: 'no upgrade within 5 ms' })!;
    expect(outcome.kind).toBe('no-answer');
    expect(isRefusal(outcome)).toBe(false);
  });

  it('anything else is no outcome: the caller lets the error through', () => {
    expect(
      classifyUpgradeFailure({ kind: 'connect-error', message: 'Invalid Sec-WebSocket-Accept header' }),
    ).toBeUndefined();
    expect(classifyUpgradeFailure({ kind: 'closed', message: 'x' })).toBeUndefined();
    expect(classifyUpgradeFailure({ kind: 'upgrade-refused', message: 'x' })).toBeUndefined();
  });
});

describe('attemptUpgrade on loopback', () => {
  let server: Server;
  let base: string;
  let closedPort: number;
  const wss = new WebSocketServer({ noServer: true });

  beforeAll(async () => {
    server = createServer((_req, res) => res.end());
    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy());
      const path = req.url ?? '/';
      if (path.startsWith('/ok')) return wss.handleUpgrade(req, socket, head, (ws) => ws.close());
      if (path.startsWith('/401'))
        return socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      if (path.startsWith('/502'))
        return socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A port nothing listens on: bound, then closed.
    const spare = createServer();
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    closedPort = (spare.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
  });
  afterAll(async () => {
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const cases: [string, UpgradeOutcome['kind'], number | undefined][] = [
    ['/ok', 'accepted', undefined],
    ['/401', 'refused', 401],
    ['/502', 'refused', 502],
    ['/hang-up', 'closed', undefined],
  ];
  it.each(cases)('%s → %s', async (path, kind, status) => {
    const outcome = await attemptUpgrade(`${base}${path}?secret=abc`, 5000);
    expect(outcome.kind).toBe(kind);
    if (status !== undefined) expect(outcome).toMatchObject({ status });
  });

  it('a port nothing listens on is unreachable, not a refusal', async () => {
    const outcome = await attemptUpgrade(`ws://127.0.0.1:${closedPort}/x?secret=abc`, 5000);
    expect(outcome.kind).toBe('unreachable');
  });
});
