/**
 * The login session of one client: login, refresh (single flight: many requests failing with 401
 * at once cause one refresh), logout. A permanent token is used as is and never refreshed.
 * Every token learnt is registered as a secret so it is redacted from all evidence.
 */

import { SpeakcheckError } from '../errors.ts';
import { registerSecret } from '../evidence/redact.ts';
import { recordedLogout } from '../facts/logouts.ts';
import { ClientDiagnostic } from './diagnostics.ts';
import type { Exchange, SendOptions } from './http.ts';
import { accessTokenLifetime, freshEnough, type Lifetime } from './lifetime.ts';

export interface TokenPair {
  access: string;
  refresh: string;
}

export class AuthError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_AUTH';
  override name = 'AuthError';
  constructor(
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
  }
}

export type Sender = (o: Omit<SendOptions, 'timeoutMs'> & { timeoutMs?: number }) => Promise<Exchange>;

export class AuthSession {
  private pair: TokenPair | undefined;
  /** The lifetime the access token shows (JWT exp, expires_in); undefined: none shown. */
  private lifetime: Lifetime | undefined;
  private inFlight: Promise<void> | undefined;

  constructor(
    private readonly o: { authUrl: string; email?: string; password?: string; token?: string; send: Sender },
  ) {
    registerSecret(o.password);
    registerSecret(o.token);
  }

  get permanent(): boolean {
    return this.o.token !== undefined;
  }

  tokens(): TokenPair | undefined {
    return this.pair ? { ...this.pair } : undefined;
  }

  /** Reuse tokens obtained elsewhere (e.g. handed over by the run) instead of logging in. */
  adopt(pair: TokenPair): void {
    registerSecret(pair.access);
    registerSecret(pair.refresh);
    this.pair = { ...pair };
    this.lifetime = accessTokenLifetime(pair.access);
  }

  accessToken(): string | undefined {
    return this.o.token ?? this.pair?.access;
  }

  /**
   * Whether the access token can still be sent now: more than its margin left of the lifetime it
   * shows (src/client/lifetime.ts). A permanent token, or one that shows no lifetime, always can.
   */
  accessTokenFresh(nowMs: number = Date.now()): boolean {
    if (this.o.token !== undefined || !this.pair) return true;
    return freshEnough(this.lifetime, nowMs);
  }

  async login(): Promise<TokenPair> {
    if (this.o.token) throw new AuthError('a permanent token is in use: there is nothing to log in with.');
    if (this.o.email === undefined || this.o.password === undefined) {
      throw new AuthError('no email and password to log in with.');
    }
    const url = `${this.o.authUrl}/auth/login`;
    const exchange = await this.postJson(url, { email: this.o.email, password: this.o.password });
    if (exchange.status === 401 || exchange.status === 403) {
      throw new AuthError(
        `the server rejected the email and password (POST ${url} answered ${exchange.status}).`,
        exchange,
      );
    }
    this.pair = this.readPair(exchange, 'login');
    return { ...this.pair };
  }

  /** Makes sure the access token is newer than `stale` (the one a 401 was answered to). */
  async renew(stale: string | undefined): Promise<void> {
    if (this.o.token) throw new AuthError('the permanent token was rejected (401); it cannot be refreshed.');
    if (this.pair && this.pair.access !== stale) return; // someone else already renewed
    this.inFlight ??= this.refreshOrLogin().finally(() => {
      this.inFlight = undefined;
    });
    await this.inFlight;
  }

  private async refreshOrLogin(): Promise<void> {
    if (this.pair) {
      const exchange = await this.postJson(`${this.o.authUrl}/auth/refresh`, {
        refresh_token: this.pair.refresh,
        ...(this.o.email !== undefined ? { email: this.o.email } : {}),
      });
      if (exchange.status >= 200 && exchange.status < 300) {
        this.pair = this.readPair(exchange, 'refresh');
        return;
      }
    }
    // The refresh token is gone too (revoked, expired): start over with the password if we have it.
    await this.login();
  }

  async logout(): Promise<Exchange | undefined> {
    if (!this.pair) return undefined;
    const refresh_token = this.pair.refresh;
    // Recorded for the run: a server that logs out everywhere ends the customer's other sessions too.
    const exchange = await recordedLogout(this.o.email, () =>
      this.postJson(`${this.o.authUrl}/auth/logout`, { refresh_token }),
    );
    this.pair = undefined;
    this.lifetime = undefined;
    return exchange;
  }

  private postJson(url: string, json: unknown): Promise<Exchange> {
    return this.o.send({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(json),
    });
  }

  private readPair(exchange: Exchange, what: string): TokenPair {
    const receivedAtMs = Date.now();
    const body = exchange.json as
      | { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown }
      | undefined;
    if (exchange.status < 200 || exchange.status >= 300) {
      throw new AuthError(`${what} failed: POST ${exchange.url} answered ${exchange.status}.`, exchange);
    }
    if (!body || typeof body.access_token !== 'string' || typeof body.refresh_token !== 'string') {
      throw new ClientDiagnostic(
        'not-json',
        `${what} answered ${exchange.status} without a token pair ({"access_token","refresh_token"} strings) at POST ${exchange.url}.`,
        exchange.url,
      );
    }
    registerSecret(body.access_token);
    registerSecret(body.refresh_token);
    this.lifetime = accessTokenLifetime(body.access_token, {
      receivedAtMs,
      ...(typeof body.expires_in === 'number' ? { expiresInS: body.expires_in } : {}),
    });
    return { access: body.access_token, refresh: body.refresh_token };
  }
}
