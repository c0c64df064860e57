/**
 * The websocket endpoint of a worker node: an HTTP server whose only route is the upgrade at
 * WEBSOCKET_PATH. The secret in the URL (query `secret`) is checked BEFORE the upgrade: a missing,
 * malformed, tampered or expired secret is answered with a plain HTTP 401 (JSON `detail`), a valid
 * secret for a model this node does not hold with 403, so a refused client never sees an open socket.
 * No Authorization header is needed or looked at: the secret is the credential.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { routerGate } from '../../latitude/ws-router.ts';
import { warmupGate } from '../../latitude/ws-warmup.ts';
import type { Synthesizer } from '../../synth/index.ts';
import { serveConnection } from './connection.ts';
import { verifyWebsocketSecret } from './secret.ts';
import type { WebsocketTakeService } from './service.ts';

export const WEBSOCKET_PATH = '/v1/speak/worker/websocket';

export interface WebsocketWorkerOptions {
  /** HMAC key shared with the API process (which signs the URLs). */
  secretKey: string | Buffer;
  /** Models this node holds. */
  models: readonly string[];
  service: WebsocketTakeService;
  synth: Synthesizer;
  shuffleWindow?: number;
  host?: string;
  port?: number;
  /** serve --tls: wss with the stack's certificate (no plain ws on the port). */
  tls?: { key: Buffer; cert: Buffer };
  log?: (message: string) => void;
}

export interface WebsocketWorker {
  /** ws://host:port/v1/speak/worker/websocket, to which the address plugin appends `?secret=...`. */
  baseUrl: string;
  close(): Promise<void>;
}

function refuse(socket: Duplex, status: 401 | 403 | 404, detail: string): void {
  const body = JSON.stringify({ detail });
  const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** 503 with Retry-After: 1, as a node shedding load refuses an upgrade. */
function refuseOverloaded(socket: Duplex): void {
  const body = JSON.stringify({ detail: 'the worker is overloaded, retry later' });
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The endpoint path and the secret: `?secret=`, or (latitude ws-secret-in-path) the last path segment. */
function secretOf(url: URL): { path: string; secret: string | null } {
  if (latitude.has('ws-secret-in-path') && url.pathname.startsWith(`${WEBSOCKET_PATH}/`)) {
    return {
      path: WEBSOCKET_PATH,
      secret: decodeURIComponent(url.pathname.slice(WEBSOCKET_PATH.length + 1)),
    };
  }
  return { path: url.pathname, secret: url.searchParams.get('secret') };
}

export async function startWebsocketWorker(o: WebsocketWorkerOptions): Promise<WebsocketWorker> {
  const host = o.host ?? '127.0.0.1';
  const onlyUpgrades: RequestListener = (_request, response) => {
    response.writeHead(426, { 'content-type': 'application/json', upgrade: 'websocket' });
    response.end(JSON.stringify({ detail: 'this endpoint only accepts websocket connections' }));
  };
  const server: Server = o.tls ? createHttpsServer(o.tls, onlyUpgrades) : createServer(onlyUpgrades);
  // perMessageDeflate off: audio does not compress and deflate would add latency to every chunk.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1 << 20 });

  // Latitude ws-upgrade-warmup-503: the node's first upgrades are refused while it "warms up".
  const warmingUp = warmupGate();
  // Latitude ws-router-node-param(-close): a router in front of the node places each upgrade by the
  // node its URL names (set once the node listens); a URL it cannot place gets 502 or a closed socket.
  let nodeAddress: string | undefined;
  const routed = routerGate(o.secretKey, () => nodeAddress);
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(request.url ?? '/', 'http://worker');
    if (routed(url, socket)) return;
    // Defect ws-upgrade-always-503: every upgrade is refused as an overloaded node would, forever.
    if (defects.has('ws-upgrade-always-503')) return refuseOverloaded(socket);
    // Defect ws-upgrade-hangs: the upgrade request is read and never answered (the socket stays open).
    if (defects.has('ws-upgrade-hangs')) return;
    if (warmingUp(socket)) return;
    const { path, secret } = secretOf(url);
    // Defects ws-any-url-accepted, ws-url-without-secret: neither the path nor the secret is checked;
    // a URL without a valid secret connects for the model this node holds (as nobody).
    const anyUrl = defects.has('ws-any-url-accepted') || defects.has('ws-url-without-secret');
    if (path !== WEBSOCKET_PATH && !anyUrl) return refuse(socket, 404, `no websocket endpoint at ${path}`);
    const verified = verifyWebsocketSecret(o.secretKey, secret);
    const check =
      !verified.ok && anyUrl
        ? ({ ok: true, claims: { userId: '', model: o.models[0] ?? '', expiresAtMs: 0 } } as const)
        : verified;
    if (!check.ok) return refuse(socket, 401, check.detail);
    if (!o.models.includes(check.claims.model)) {
      return refuse(socket, 403, `this worker does not hold model ${check.claims.model}`);
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Low latency for small chunk frames: no Nagle batching.
      (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      serveConnection(ws, {
        userId: check.claims.userId,
        model: check.claims.model,
        service: o.service,
        synth: o.synth,
        shuffleWindow: o.shuffleWindow ?? 0,
        ...(o.log ? { log: o.log } : {}),
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `${o.tls ? 'wss' : 'ws'}://${hostInUrl}:${port}${WEBSOCKET_PATH}`;
  // The node as the API sees it in the URL this node announces (websocket-address.ts seals it).
  nodeAddress = new URL(baseUrl).host;
  return {
    baseUrl,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
