/**
 * The Speak client the suites use: paths under `/auth/` go to the auth url, everything else to the
 * base url. A logged-in client sends the bearer token, and on a 401 renews it (refresh, else login)
 * and retries once. Redirects are never followed automatically; `fetchSigned` follows a Location by
 * hand and never sends Authorization (spec, Audio rules 2; S3 rejects a second auth mechanism).
 *
 * Lifetimes (issue 37): the token and the signed URL are read right before each attempt, after the
 * run's own waits (the limiter, back-pressure). One that is no longer fresh enough for the lifetime
 * it shows (src/client/lifetime.ts) is not sent: the token is refreshed first, the signed URL is
 * asked for again (`reissue`), at most MAX_RENEWALS times per call, so a server is never blamed for
 * refusing a credential the run itself let expire.
 */

import { recordCharacters } from '../evidence/evidence.ts';
import { carriesKnownSecret, redactUrl } from '../evidence/redact.ts';
import { AuthSession, type TokenPair } from './auth-session.ts';
import { DEFAULT_MAX_BYTES, type Exchange, type SendOptions, send, signedRoute } from './http.ts';
import { freshEnough, signedUrlLifetime } from './lifetime.ts';
import { Limiter } from './limiter.ts';
import { signatureParam } from './signed-url.ts';

/** How many times one call renews a stale credential before sending what it has. */
export const MAX_RENEWALS = 2;

/** Thrown by an attempt's `prepare` (inside the limiter) so the renewal happens outside it. */
class StaleCredential extends Error {}

export interface RequestOptions {
  query?: Record<string, string | number>;
  json?: unknown;
  body?: string | Buffer;
  /** An explicit `authorization` header is sent as given and turns off refresh-and-retry. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface SignedFetchOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
  /**
   * A stream the server may hold open before its first byte (a wav while the take synthesizes):
   * `timeoutMs` alone bounds it, never a bound learned from the host's other answers (./http.ts).
   */
  stream?: boolean;
  maxBytes?: number;
  /** Stop reading the body once this many bytes arrived (./http.ts SendOptions.readUpTo). */
  readUpTo?: number;
  /** Called when the signed URL's status and headers arrived (before its body is read). */
  onHeaders?: (status: number) => void;
  /** Called when the first byte of the signed URL's body arrived. */
  onFirstByte?: () => void;
  /**
   * Called right before each attempt leaves, after the run's own waits (the limiter, back-pressure):
   * a time measured from here is the server's, not ours.
   */
  onSend?: () => void;
  /**
   * A new signed URL for the same audio (the format endpoint asked again for its 307): used instead
   * of `location` when the lifetime `location` shows has passed, or nearly, by the time it would be
   * sent. Without it the URL is sent as given, stale or not (the expiry checks want exactly that).
   */
  reissue?: () => Promise<string>;
  /** When `location` reached the run (epoch ms): its stated lifetime counts from then at the latest. */
  receivedAtMs?: number;
  /** Overrides the expiry read from `location` (a URL whose expiry parameter was altered on purpose). */
  expiresAtMs?: number;
}

export interface SpeakClient {
  request(method: string, path: string, o?: RequestOptions): Promise<Exchange>;
  get(path: string, o?: RequestOptions): Promise<Exchange>;
  post(path: string, json?: unknown, o?: RequestOptions): Promise<Exchange>;
  delete(path: string, o?: RequestOptions): Promise<Exchange>;
  fetchSigned(location: string, o?: SignedFetchOptions): Promise<Exchange>;
  tokens(): { access: string; refresh: string } | undefined;
}

export interface ClientSettings {
  baseUrl: string;
  authUrl: string;
  requestTimeoutMs: number;
  limiter?: Limiter;
  /** How long one request waits on back-pressure before giving up (default: src/client/back-pressure.ts). */
  throttleBoundMs?: number;
  /** 'second': the client of the run's second identity (customer B); its evidence says so. */
  account?: 'second';
}

export interface Credentials {
  email?: string;
  password?: string;
  token?: string;
}

export class HttpSpeakClient implements SpeakClient {
  private readonly limiter: Limiter;

  constructor(
    private readonly settings: ClientSettings,
    /** Undefined: an anonymous client that sends no Authorization. */
    readonly session?: AuthSession,
  ) {
    this.limiter = settings.limiter ?? new Limiter(8);
  }

  /** A logged-in client (or one using a permanent token). Throws AuthError on bad credentials. */
  static async login(
    settings: ClientSettings,
    credentials: Credentials,
    reuse?: TokenPair,
  ): Promise<HttpSpeakClient> {
    const client = new HttpSpeakClient(settings);
    const session = new AuthSession({
      authUrl: settings.authUrl,
      ...credentials,
      send: (o) => client.send(o),
    });
    const loggedIn = new HttpSpeakClient({ ...settings, limiter: client.limiter }, session);
    if (credentials.token === undefined) {
      if (reuse) session.adopt(reuse);
      else await session.login();
    }
    return loggedIn;
  }

  static anonymous(settings: ClientSettings): HttpSpeakClient {
    return new HttpSpeakClient(settings);
  }

  tokens(): TokenPair | undefined {
    return this.session?.tokens();
  }

  resolve(path: string, query?: Record<string, string | number>): string {
    const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(path);
    const base = path.startsWith('/auth/') ? this.settings.authUrl : this.settings.baseUrl;
    const url = new URL(absolute ? path : `${base}${path.startsWith('/') ? '' : '/'}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, String(value));
    return url.toString();
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<Exchange> {
    const url = this.resolve(path, o.query);
    const headers: Record<string, string> = { accept: 'application/json', ...lowerCaseKeys(o.headers) };
    let body = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    const explicitAuth = 'authorization' in headers;
    const ownOrigin = this.sameOriginAsServer(url);
    const isAuthCall = url.startsWith(`${this.settings.authUrl}/auth/`);
    // A token of the run goes to the API and nowhere else: never to a signed URL or another origin,
    // not even in a caller's own Authorization header (a decoy is fine). A harness bug: refused here.
    // (Another origin never gets the bearer either way: its query is only read for the API's own.)
    const signed = ownOrigin && signatureParam(new URL(url)) !== undefined;
    if (explicitAuth && carriesKnownSecret(headers.authorization!) && (!ownOrigin || signed))
      throw new Error(
        `speakcheck refused to send a credential of the run in Authorization to ${redactUrl(url)}: only the API gets it (a bug in the harness)`,
      );
    const session = this.session;
    const renews = session !== undefined && !explicitAuth && ownOrigin && !session.permanent;
    /** One call: the token is read (and, when stale, renewed first) right before each attempt. */
    const sendOnce = async (): Promise<{ token: string | undefined; exchange: Exchange }> => {
      let token: string | undefined;
      for (let renewed = 0; ; renewed++) {
        try {
          const exchange = await this.send({
            method,
            url,
            headers,
            ...(body !== undefined ? { body } : {}),
            ...sizing(o),
            prepare: () => {
              token = session?.accessToken();
              if (renews && !isAuthCall && renewed < MAX_RENEWALS && !session.accessTokenFresh())
                throw new StaleCredential();
              return !explicitAuth && ownOrigin && !signed && token
                ? { headers: { authorization: `Bearer ${token}` } }
                : undefined;
            },
          });
          return { token, exchange };
        } catch (error) {
          if (!(error instanceof StaleCredential) || !session) throw error;
          await session.renew(token);
        }
      }
    };
    const first = await sendOnce();
    let exchange = first.exchange;
    if (exchange.status === 401 && renews && !isAuthCall) {
      await session.renew(first.token);
      exchange = (await sendOnce()).exchange;
    }
    this.countSynthesis(method, url, o.json, exchange);
    return exchange;
  }

  get(path: string, o?: RequestOptions): Promise<Exchange> {
    return this.request('GET', path, o);
  }

  post(path: string, json?: unknown, o: RequestOptions = {}): Promise<Exchange> {
    return this.request('POST', path, json === undefined ? o : { ...o, json });
  }

  delete(path: string, o?: RequestOptions): Promise<Exchange> {
    return this.request('DELETE', path, o);
  }

  async fetchSigned(location: string, o: SignedFetchOptions = {}): Promise<Exchange> {
    const headers = lowerCaseKeys(o.headers);
    // Never, whatever the caller passed: a signed URL carries its own authorisation.
    delete headers.authorization;
    delete headers['proxy-authorization'];
    let current = location;
    let receivedAtMs = o.receivedAtMs;
    let expiresAtMs = o.expiresAtMs;
    for (let renewed = 0; ; renewed++) {
      const url = new URL(current, `${this.settings.baseUrl}/`).toString();
      try {
        return await this.send({
          method: 'GET',
          url,
          route: signedRoute(url),
          headers,
          timeoutMs: o.timeoutMs ?? this.settings.requestTimeoutMs,
          maxBytes: o.maxBytes ?? DEFAULT_MAX_BYTES,
          ...(o.onHeaders ? { onHeaders: o.onHeaders } : {}),
          ...(o.onFirstByte ? { onFirstByte: o.onFirstByte } : {}),
          ...(o.stream ? { stream: true } : {}),
          ...(o.readUpTo !== undefined ? { readUpTo: o.readUpTo } : {}),
          prepare: () => {
            if (!o.reissue || renewed >= MAX_RENEWALS) {
              o.onSend?.();
              return undefined;
            }
            const shown = signedUrlLifetime(url, receivedAtMs === undefined ? {} : { receivedAtMs });
            const lifetime =
              expiresAtMs === undefined
                ? shown
                : { ...shown, expiresAtMs, source: shown?.source ?? 'as the caller said' };
            if (!freshEnough(lifetime)) throw new StaleCredential();
            o.onSend?.();
            return undefined;
          },
        });
      } catch (error) {
        if (!(error instanceof StaleCredential) || !o.reissue) throw error;
        current = await o.reissue();
        receivedAtMs = Date.now();
        // The caller's override was for the URL it gave; a reissued one shows its own.
        expiresAtMs = undefined;
      }
    }
  }

  /** The one way out: bounded by the limiter and the request timeout. */
  send(o: Omit<SendOptions, 'timeoutMs'> & { timeoutMs?: number }): Promise<Exchange> {
    const bound = this.settings.throttleBoundMs;
    return this.limiter.run(() =>
      send({
        ...o,
        timeoutMs: o.timeoutMs ?? this.settings.requestTimeoutMs,
        ...(bound !== undefined && o.throttleBoundMs === undefined ? { throttleBoundMs: bound } : {}),
        ...(this.settings.account ? { account: this.settings.account } : {}),
      }),
    );
  }

  private sameOriginAsServer(url: string): boolean {
    const origin = new URL(url).origin;
    return (
      origin === new URL(this.settings.baseUrl).origin || origin === new URL(this.settings.authUrl).origin
    );
  }

  /** Real services bill per character: count what was accepted for synthesis. */
  private countSynthesis(method: string, url: string, json: unknown, exchange: Exchange): void {
    if (method.toUpperCase() !== 'POST' || exchange.status < 200 || exchange.status >= 300) return;
    const path = new URL(url).pathname;
    if (path.endsWith('/v1/speak/takes/generate')) {
      const bodies = Array.isArray(json) ? json : [json];
      recordCharacters(bodies.reduce((n: number, b) => n + textLength(b), 0));
    } else if (path.endsWith('/v1/speak/voices/generate')) {
      recordCharacters(textLength((json as { example_take?: unknown } | undefined)?.example_take));
    }
  }
}

function textLength(body: unknown): number {
  const text = (body as { text?: unknown } | null | undefined)?.text;
  return typeof text === 'string' ? [...text].length : 0;
}

function sizing(o: RequestOptions): { timeoutMs?: number; maxBytes?: number } {
  return {
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.maxBytes !== undefined ? { maxBytes: o.maxBytes } : {}),
  };
}

function lowerCaseKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
