/**
 * A loopback proxy in front of a reference stack that behaves as a hosted service does: it answers
 * some requests itself with back-pressure (429 or 503, Retry-After, a JSON detail) per a script and
 * forwards the rest, over http or over https with a certificate from a private CA made here with
 * the openssl CLI. The Host header is the stack's, so the URLs the stack hands out (signed audio,
 * websocket) still point at the stack itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the proxy answers itself to the n-th request (1-based), or undefined to forward it. */
export type ThrottleScript = (
  n: number,
  req: IncomingMessage,
) => { status: 429 | 503; retryAfter?: string } | undefined;

export interface HostedProxy {
  url: string;
  /**
   * Requests seen, and how many the proxy answered with back-pressure itself, with when it sent each
   * of those answers (epoch ms): a count can be cut at the moment a report was written.
   */
  counts: { seen: number; throttled: number; throttledAtMs: number[] };
  close(): Promise<void>;
}

export async function startHostedProxy(
  target: string,
  script: ThrottleScript,
  tls?: { key: string; cert: string },
): Promise<HostedProxy> {
  const upstream = new URL(target);
  const counts = { seen: 0, throttled: 0, throttledAtMs: [] as number[] };
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    counts.seen++;
    const answer = script(counts.seen, req);
    if (answer) {
      counts.throttled++;
      counts.throttledAtMs.push(Date.now());
      req.resume();
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        ...(answer.retryAfter !== undefined ? { 'retry-after': answer.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          detail:
            answer.status === 429 ? 'Rate limit exceeded, retry later' : 'Service overloaded, retry later',
        }),
      );
      return;
    }
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  };
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that refuses the certificate resets the handshake: not the proxy's problem.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    counts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface PrivateCa {
  /** The CA certificate (PEM) a client trusts with --ca-file. */
  caFile: string;
  /** The server's key and certificate (for 127.0.0.1), signed by the CA. */
  key: string;
  cert: string;
  remove(): void;
}

/** A private CA and a server certificate for IP 127.0.0.1 it signed, made with the openssl CLI. */
export function makePrivateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'speakcheck-ca-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=speakcheck test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  openssl(
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('server.ext'),
  );
  return {
    caFile: at('ca.pem'),
    key: readFileSync(at('server.key'), 'utf8'),
    cert: readFileSync(at('server.pem'), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
