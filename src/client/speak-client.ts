/**
 * The Speak client the suites use: paths under `/auth/` go to the auth url, everything else to the
 * base url. A logged-in client sends the bearer token, and on a 401 renews it (refresh, else login)
 * and retries once. Redirects are never followed automatically; `fetchSigned` follows a Location by
 * hand and never sends Authorization (spec, Audio rules 2; S3 rejects a second auth mechanism).
 */

import { recordCharacters } from '../evidence/evidence.ts';
import { AuthSession, type TokenPair } from './auth-session.ts';
import { DEFAULT_MAX_BYTES, type Exchange, type SendOptions, send } from './http.ts';
import { Limiter } from './limiter.ts';

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
  maxBytes?: number;
  /** Called when the signed URL's status and headers arrived (before its body is read). */
  onHeaders?: (status: number) => void;
  /** Called when the first byte of the signed URL's body arrived. */
  onFirstByte?: () => void;
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
    const sendOnce = () => {
      const h = { ...headers };
      const token = this.session?.accessToken();
      if (!explicitAuth && ownOrigin && token) h.authorization = `Bearer ${token}`;
      return {
        token,
        exchange: this.send({
          method,
          url,
          headers: h,
          ...(body !== undefined ? { body } : {}),
          ...sizing(o),
        }),
      };
    };
    const first = sendOnce();
    let exchange = await first.exchange;
    const isAuthCall = url.startsWith(`${this.settings.authUrl}/auth/`);
    if (
      exchange.status === 401 &&
      this.session &&
      !explicitAuth &&
      ownOrigin &&
      !isAuthCall &&
      !this.session.permanent
    ) {
      await this.session.renew(first.token);
      exchange = await sendOnce().exchange;
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
    const url = new URL(location, `${this.settings.baseUrl}/`).toString();
    const headers = lowerCaseKeys(o.headers);
    // Never, whatever the caller passed: a signed URL carries its own authorisation.
    delete headers.authorization;
    delete headers['proxy-authorization'];
    return this.send({
      method: 'GET',
      url,
      headers,
      timeoutMs: o.timeoutMs ?? this.settings.requestTimeoutMs,
      maxBytes: o.maxBytes ?? DEFAULT_MAX_BYTES,
      ...(o.onHeaders ? { onHeaders: o.onHeaders } : {}),
      ...(o.onFirstByte ? { onFirstByte: o.onFirstByte } : {}),
    });
  }

  /** The one way out: bounded by the limiter and the request timeout. */
  send(o: Omit<SendOptions, 'timeoutMs'> & { timeoutMs?: number }): Promise<Exchange> {
    const bound = this.settings.throttleBoundMs;
    return this.limiter.run(() =>
      send({
        ...o,
        timeoutMs: o.timeoutMs ?? this.settings.requestTimeoutMs,
        ...(bound !== undefined && o.throttleBoundMs === undefined ? { throttleBoundMs: bound } : {}),
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
