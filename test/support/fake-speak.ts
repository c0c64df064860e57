/**
 * A minimal Speak server for the harness's own tests (loopback only): version, login/refresh/logout,
 * models. Misbehaving variants: answers HTML, never answers (hung), answers bytes that are not HTTP.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { type FakeServer, sendJson, startFakeServer } from './fake-server.ts';

export const FAKE_EMAIL = 'tester@example.test';
export const FAKE_PASSWORD = 'correct-horse-battery';

export interface FakeSpeakOptions {
  /** Reported major version (1 conforms). */
  version?: number;
  /** Reported minor version (default 0; a string is one bad field: VERSION-MAJOR-MINOR wants an integer). */
  minor?: number | string;
  /**
   * Answers what the preflight asks (version, auth, models) and then nothing else: every other
   * request is read and never answered (a server that hangs everything the suites do).
   */
  hangAfterPreflight?: boolean;
  /** Paths read and never answered (a route of the preflight that hangs). */
  hangPaths?: readonly string[];
  /** The content type every JSON answer declares (default application/json): a mislabelling server. */
  jsonContentType?: string;
}

const PREFLIGHT_PATHS = new Set([
  '/v1/speak/version',
  '/auth/login',
  '/auth/refresh',
  '/auth/logout',
  '/v1/speak/models',
]);

export function startFakeSpeak(o: FakeSpeakOptions = {}): Promise<FakeServer> {
  let issued = 0;
  let takes = 0;
  const json = (res: Parameters<typeof sendJson>[0], status: number, body: unknown) =>
    sendJson(res, status, body, o.jsonContentType ? { 'content-type': o.jsonContentType } : {});
  return startFakeServer((req, res) => {
    const path = req.url.split('?')[0];
    if (o.hangAfterPreflight && !PREFLIGHT_PATHS.has(path ?? '')) return;
    if (o.hangPaths?.includes(path ?? '')) return;
    if (path === '/v1/speak/version') return json(res, 200, { version: o.version ?? 1, minor: o.minor ?? 0 });
    if (path === '/auth/login') {
      const body = JSON.parse(req.body || '{}') as { email?: string; password?: string };
      if (body.email !== FAKE_EMAIL || body.password !== FAKE_PASSWORD) {
        return json(res, 401, { detail: 'wrong email or password' });
      }
      issued++;
      return json(res, 200, {
        access_token: `fake-access-${issued}-xyz`,
        refresh_token: `fake-refresh-${issued}-xyz`,
      });
    }
    if (path === '/auth/logout') return json(res, 200, true);
    if (!req.headers.authorization?.startsWith('Bearer fake-access-')) {
      return json(res, 401, { detail: 'missing or invalid token' });
    }
    if (path === '/v1/speak/models') {
      return json(res, 200, [
        {
          name: 'fake-1',
          displayname: 'Fake',
          flags: [],
          languages: ['en-US'],
          genders: ['female', 'male'],
          styles: [],
          prosody_types: ['simple'],
        },
      ]);
    }
    if (req.method === 'POST' && path === '/v1/speak/takes/generate') {
      const body = JSON.parse(req.body || '{}') as { text?: string; voice_id?: string };
      takes++;
      return json(res, 200, {
        take_id: `take-${takes}`,
        voice_id: body.voice_id,
        text: body.text,
        status: 'waiting',
        info: null,
      });
    }
    if (req.method === 'DELETE' && path?.startsWith('/v1/speak/takes/')) return json(res, 200, true);
    json(res, 404, { detail: `no route ${req.method} ${path}` });
  });
}

export function startHtmlServer(): Promise<FakeServer> {
  return startFakeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>');
  });
}

/** Accepts connections and reads, but never answers. */
export function startHungServer(): Promise<FakeServer> {
  return rawServer(() => undefined);
}

/** Answers every connection with bytes that are not HTTP. */
export function startGarbageServer(): Promise<FakeServer> {
  return rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\x00\x01\x02 not http at all\r\n\r\n'));
}

async function rawServer(onConnection: (socket: import('node:net').Socket) => void): Promise<FakeServer> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => onConnection(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
