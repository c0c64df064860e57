/**
 * The websocket handshake: opens a connection WITHOUT any Authorization unless the caller says so
 * (the secret in the URL is the credential: Authentication 9), records the upgrade as evidence, and
 * turns every way it can fail into one WsClientError: 'upgrade-refused' (HTTP status and body),
 * 'connect-timeout' (a stalled TCP connect included) or 'connect-error'.
 *
 * A websocket URL lives a short time (an hour in the contract, seconds on some servers) and the
 * handshake can wait: the run's pace, and Retry-After of a 429/503 upgrade. The URL is therefore
 * judged fresh right before each attempt, and a stale one is asked for again (`reissue`) rather than
 * sent and its refusal blamed on the server (issue 37).
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { type EvidenceEntry, recordEvidence } from '../evidence/evidence.ts';
import { describeWebsocketUrl, REDACTED } from '../evidence/redact.ts';
import { BackPressure, isBackPressure, runThrottle } from './back-pressure.ts';
import { certificateProblem } from './diagnostics.ts';
import { freshEnough, websocketUrlLifetime } from './lifetime.ts';
import { WEBSOCKET_UPGRADE_ROUTE } from './route.ts';
import { answerBoundMs, observeAnswer, RouteSilence } from './route-silence.ts';
import { trustedCa } from './tls-trust.ts';
import { WsClientError } from './ws-client-error.ts';
import { registerUrlSecrets } from './ws-url.ts';

/** How many times one connect asks for a new URL before sending what it has. */
export const MAX_URL_RENEWALS = 2;

export interface WebsocketConnectOptions {
  timeoutMs: number;
  headers?: Record<string, string>;
  /**
   * Asks the server for a new URL (the same model and form) when the one in hand is no longer fresh
   * enough to send. Absent: the URL is sent as given, however old (the expiry checks do that on
   * purpose).
   */
  reissue?: () => Promise<string>;
  /**
   * When the URL was issued, local epoch ms: best taken right BEFORE asking for it (it cannot have
   * been issued earlier, so its expiry is never overestimated). Default: when the connect started.
   */
  issuedAtMs?: number;
  /** --ws-url-lifetime: seconds a URL lives, when the run was told (else the expiry the URL shows). */
  configuredLifetimeS?: number;
}

/**
 * Opens the connection and hands it to `wrap` inside the 'open' event itself, so the wrapper's
 * message listeners are attached before anything the server sends at once can be emitted.
 * `where` is the URL as reports may show it (its secret parts redacted).
 */
export async function openWebsocket<T>(
  firstUrl: string,
  o: WebsocketConnectOptions,
  wrap: (socket: WebSocket, where: string) => T,
): Promise<T> {
  // An upgrade refused with 429/503 is back-pressure like any request: waited out and tried again
  // (a refused upgrade did not use the URL up), every attempt recorded as evidence.
  const backPressure = new BackPressure(
    `GET (websocket upgrade) ${describeWebsocketUrl(firstUrl)}`,
    firstUrl,
    undefined,
    undefined,
    WEBSOCKET_UPGRADE_ROUTE,
  );
  // An upgrade that is never answered is learned once too (./route-silence.ts).
  const throttle = runThrottle();
  const silence = new RouteSilence(WEBSOCKET_UPGRADE_ROUTE, () => throttle.answered());
  let url = firstUrl;
  let issuedAtMs = o.issuedAtMs ?? Date.now();
  let renewals = 0;
  for (;;) {
    const unanswered = silence.unanswered();
    if (unanswered)
      throw unansweredUpgrade(
        new WsClientError(
          'connect-timeout',
          `${unanswered.sentence ?? 'the websocket upgrade does not answer'}; this upgrade was not sent (the route does not answer for the rest of the run)`,
        ),
        true,
      );
    await backPressure.beforeAttempt();
    // The waits above (and a Retry-After before them) may have outlived the URL: renewed here, at
    // the last moment before it is sent. Bounded: a server whose URLs are stale when issued (or a
    // skewed clock) gets the last one sent, and its answer judged, after two renewals.
    if (
      o.reissue &&
      renewals < MAX_URL_RENEWALS &&
      !freshEnough(websocketUrlLifetime(url, issuedAtMs, o.configuredLifetimeS))
    ) {
      const askedAtMs = Date.now();
      url = await o.reissue();
      issuedAtMs = askedAtMs;
      renewals++;
    }
    const timeoutMs = answerBoundMs(WEBSOCKET_UPGRADE_ROUTE, o.timeoutMs);
    const startedMs = performance.now();
    const servedBefore = throttle.answered();
    try {
      const opened = await openOnce(url, { ...o, timeoutMs }, wrap);
      silence.answered();
      observeAnswer(WEBSOCKET_UPGRADE_ROUTE, performance.now() - startedMs);
      backPressure.answered();
      return opened;
    } catch (error) {
      if (error instanceof WsClientError && error.kind === 'connect-timeout') {
        const learned = silence.noAnswer(error.message, timeoutMs, servedBefore);
        if (learned)
          throw unansweredUpgrade(
            new WsClientError(
              'connect-timeout',
              `${error.message}; ${learned.sentence ?? 'the upgrade does not answer'}: the route does not answer for the rest of the run`,
            ),
            true,
          );
        // One upgrade without an answer: this connect's own finding (a URL is not sent twice).
        unansweredUpgrade(error, false);
      }
      if (error instanceof WsClientError && error.kind === 'upgrade-refused') silence.answered();
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

/**
 * Names the upgrade's route on a connect that got no answer, as a 'hung' request names its route
 * (src/harness/disposition.ts): learned, a run-wide fact; else this connect's own finding.
 */
function unansweredUpgrade(error: WsClientError, learned: boolean): WsClientError {
  error.route = WEBSOCKET_UPGRADE_ROUTE;
  if (learned) error.routeLearned = true;
  return error;
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
