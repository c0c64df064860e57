/**
 * Login and token refresh inside the script. Each VU holds its own token pair (refresh rotates the
 * refresh token, so VUs must not share one): it logs in on first use, refreshes on a 401 and retries
 * the request once. A permanent token (SPEAK_TOKEN) is used as is.
 */
import http, { type RefinedParams, type RefinedResponse, type ResponseType } from 'k6/http';
import type { TokenPair } from '../../schemas/types.ts';
import type { Target } from './config.ts';

type Body = string | null;

export class Session {
  private tokens: TokenPair | undefined;

  constructor(private readonly t: Target) {}

  private login(): void {
    if (this.t.token) return;
    if (!this.t.email || !this.t.password) {
      throw new Error('no credentials: set SPEAK_EMAIL and SPEAK_PASSWORD, or SPEAK_TOKEN');
    }
    const res = http.post(
      `${this.t.authUrl}/auth/login`,
      JSON.stringify({ email: this.t.email, password: this.t.password }),
      {
        headers: { 'content-type': 'application/json' },
        tags: { name: 'auth/login' },
      },
    );
    if (res.status !== 200) throw new Error(`login failed: HTTP ${res.status}`);
    this.tokens = res.json() as unknown as TokenPair;
  }

  private refresh(): void {
    if (this.t.token) return;
    if (!this.tokens) {
      this.login();
      return;
    }
    const res = http.post(
      `${this.t.authUrl}/auth/refresh`,
      JSON.stringify({ refresh_token: this.tokens.refresh_token, email: this.t.email }),
      { headers: { 'content-type': 'application/json' }, tags: { name: 'auth/refresh' } },
    );
    if (res.status === 200) this.tokens = res.json() as unknown as TokenPair;
    else this.login(); // the refresh token was revoked or expired: start over with the password
  }

  private bearer(): string {
    if (this.t.token) return this.t.token;
    if (!this.tokens) this.login();
    return this.tokens!.access_token;
  }

  /** An API request with the bearer header; never follows redirects; refreshes once on 401. */
  request<RT extends ResponseType | undefined = undefined>(
    method: string,
    path: string,
    body: Body,
    params: RefinedParams<RT> = {},
  ): RefinedResponse<RT> {
    const send = (): RefinedResponse<RT> =>
      http.request(method, `${this.t.baseUrl}${path}`, body, {
        ...params,
        redirects: 0,
        headers: {
          ...(params.headers ?? {}),
          authorization: `Bearer ${this.bearer()}`,
          ...(body === null ? {} : { 'content-type': 'application/json' }),
        },
      });
    let res = send();
    if (res.status === 401 && !this.t.token) {
      this.refresh();
      res = send();
    }
    return res;
  }

  getJson<T>(path: string, name: string): T {
    const res = this.request('GET', path, null, { tags: { name } });
    if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
    return res.json() as unknown as T;
  }
}
