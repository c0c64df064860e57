/**
 * The websocket handshake: opens a connection WITHOUT any Authorization unless the caller says so
 * (the secret in the URL is the credential: Authentication 9), records the upgrade as evidence, and
 * turns every way it can fail into one WsClientError: 'upgrade-refused' (HTTP status and body),
 * 'connect-timeout' (a stalled TCP connect included) or 'connect-error'.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type EvidenceEntry, recordEvidence } from '../evidence/evidence.ts';
import { describeWebsocketUrl, REDACTED } from '../evidence/redact.ts';
import { BackPressure, isBackPressure } from './back-pressure.ts';
import { certificateProblem } from './diagnostics.ts';
import { WEBSOCKET_UPGRADE_ROUTE } from './route.ts';
import { trustedCa } from './tls-trust.ts';
import { WsClientError } from './ws-client-error.ts';
import { registerUrlSecrets } from './ws-url.ts';

/**
 * Opens the connection and hands it to `wrap` inside the 'open' event itself, so the wrapper's
 * message listeners are attached before anything the server sends at once can be emitted.
 * `where` is the URL as reports may show it (its secret parts redacted).
 */
export async function openWebsocket<T>(
  url: string,
  o: { timeoutMs: number; headers?: Record<string, string> },
  wrap: (socket: WebSocket, where: string) => T,
): Promise<T> {
  // An upgrade refused with 429/503 is back-pressure like any request: waited out and tried again
  // (a refused upgrade did not use the URL up), every attempt recorded as evidence.
  const backPressure = new BackPressure(
    `GET (websocket upgrade) ${describeWebsocketUrl(url)}`,
    url,
    undefined,
    undefined,
    WEBSOCKET_UPGRADE_ROUTE,
  );
  for (;;) {
    await backPressure.beforeAttempt();
    try {
      const opened = await openOnce(url, o, wrap);
      backPressure.answered();
      return opened;
    } catch (error) {
      if (
        !(
          error instanceof WsClientError &&
          error.kind === 'upgrade-refused' &&
          isBackPressure(error.status ?? null)
        )
      )
        throw error;
      await backPressure.throttled(error.status!, error.retryAfter);
    }
  }
}

function openOnce<T>(
  url: string,
  o: { timeoutMs: number; headers?: Record<string, string> },
  wrap: (socket: WebSocket, where: string) => T,
): Promise<T> {
  registerUrlSecrets(url);
  const where = describeWebsocketUrl(url);
  const started = performance.now();
  const evidence = (status: number | null, headers: Record<string, string>, body: string, error?: string) =>
    recordEvidence({
      method: 'GET (websocket upgrade)',
      url: where,
      requestHeaders: Object.fromEntries(
        Object.entries(o.headers ?? {}).map(([k, v]) => [k, /authorization/i.test(k) ? REDACTED : v]),
      ),
      status,
      headers,
      body,
      ms: Math.round(performance.now() - started),
      ...(error ? { error } : {}),
    } satisfies EvidenceEntry);
  const ca = trustedCa();
  return new Promise<T>((resolve, reject) => {
    const socket = new WebSocket(url, {
      handshakeTimeout: o.timeoutMs,
      headers: o.headers ?? {},
      followRedirects: false,
      // wss with a private CA (--ca-file), the same trust as REST.
      ...(ca ? { ca: [...ca] } : {}),
    });
    let settled = false;
    const fail = (error: WsClientError) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      evidence(error.status ?? null, {}, error.body ?? '', error.message);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    };
    // ws's handshakeTimeout covers the HTTP upgrade; this guard also covers a stalled TCP connect.
    const guard = setTimeout(
      () =>
        fail(
          new WsClientError('connect-timeout', `no websocket upgrade from ${where} within ${o.timeoutMs} ms`),
        ),
      o.timeoutMs + 100,
    );
    socket.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < 4096) chunks.push(c);
        size += c.length;
      });
      const finish = () => {
        const body = Buffer.concat(chunks).toString('utf8').slice(0, 1000);
        fail(
          new WsClientError(
            'upgrade-refused',
            `${where} refused the websocket upgrade with HTTP ${res.statusCode}${body ? `: ${body}` : ''}`,
            res.statusCode,
            body,
            typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined,
          ),
        );
      };
      res.once('end', finish);
      res.once('error', finish);
      // A body that never ends must not hold the connect past its bound.
      setTimeout(finish, 1000).unref();
    });
    socket.once('error', (err: Error) => {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const certificate = certificateProblem(code, err.message);
      if (certificate !== undefined) {
        fail(new WsClientError('connect-error', `cannot connect to ${where}: ${certificate}`));
        return;
      }
      const timedOut = /timed out|timeout/i.test(err.message);
      fail(
        new WsClientError(
          timedOut ? 'connect-timeout' : 'connect-error',
          timedOut
            ? `no websocket upgrade from ${where} within ${o.timeoutMs} ms`
            : `cannot connect to ${where}: ${err.message}`,
          undefined,
          undefined,
          undefined,
          code || undefined,
        ),
      );
    });
    socket.once('upgrade', (res) => {
      evidence(101, Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), '');
    });
    socket.once('open', () => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      socket.removeAllListeners('error');
      socket.removeAllListeners('unexpected-response');
      resolve(wrap(socket, where));
    });
  });
}
