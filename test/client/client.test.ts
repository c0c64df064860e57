import { afterEach, describe, expect, test } from 'vitest';
import { closeHttp } from '../../src/client/http.ts';
import { HttpSpeakClient } from '../../src/client/speak-client.ts';
import { newTestRecord, runWithRecord } from '../../src/evidence/evidence.ts';
import { REDACTED } from '../../src/evidence/redact.ts';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeHttp();
});

const settings = (url: string) => ({ baseUrl: url, authUrl: url, requestTimeoutMs: 2_000 });

/** Login hands out access-1; refresh hands out access-2; only access-2 is accepted by /models. */
async function startAuthServer(o: { refreshWorks: boolean }) {
  let refreshes = 0;
  return startFakeServer((req, res) => {
    if (req.url === '/auth/login')
      return sendJson(res, 200, { access_token: 'access-one-aaaa', refresh_token: 'refresh-one-aaaa' });
    if (req.url === '/auth/refresh') {
      refreshes++;
      if (!o.refreshWorks) return sendJson(res, 401, { detail: 'refresh token revoked' });
      return sendJson(res, 200, {
        access_token: `access-two-${refreshes}aaa`,
        refresh_token: 'refresh-two-aaaa',
      });
    }
    if (req.url === '/v1/speak/models') {
      return req.headers.authorization?.startsWith('Bearer access-two')
        ? sendJson(res, 200, [])
        : sendJson(res, 401, { detail: 'expired' });
    }
    sendJson(res, 404, { detail: 'unknown' });
  });
}

describe('session', () => {
  test('a 401 refreshes the token and retries exactly once', async () => {
    server = await startAuthServer({ refreshWorks: true });
    const api = await HttpSpeakClient.login(settings(server.url), {
      email: 'a@b.c',
      password: 'secret-password',
    });
    const exchange = await api.get('/v1/speak/models');
    expect(exchange.status).toBe(200);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/auth/login',
      '/v1/speak/models',
      '/auth/refresh',
      '/v1/speak/models',
    ]);
    const refresh = JSON.parse(server.requests[2]!.body);
    expect(refresh).toEqual({ refresh_token: 'refresh-one-aaaa', email: 'a@b.c' });
    expect(api.tokens()).toEqual({ access: 'access-two-1aaa', refresh: 'refresh-two-aaaa' });
  });

  test('a second 401 after the retry is returned, not retried again', async () => {
    server = await startFakeServer((req, res) => {
      if (req.url.startsWith('/auth/'))
        return sendJson(res, 200, { access_token: 'tok-aaaaaa', refresh_token: 'ref-aaaaaa' });
      sendJson(res, 401, { detail: 'never' });
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    const exchange = await api.get('/v1/speak/models');
    expect(exchange.status).toBe(401);
    expect(server.requests.filter((r) => r.url === '/v1/speak/models')).toHaveLength(2);
    expect(server.requests.filter((r) => r.url === '/auth/refresh')).toHaveLength(1);
  });

  test('when the refresh is refused the client logs in again with the password', async () => {
    server = await startAuthServer({ refreshWorks: false });
    const api = await HttpSpeakClient.login(settings(server.url), {
      email: 'a@b.c',
      password: 'secret-password',
    });
    await api.get('/v1/speak/models');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/auth/login',
      '/v1/speak/models',
      '/auth/refresh',
      '/auth/login',
      '/v1/speak/models',
    ]);
  });

  test('an explicit authorization header is sent as given and never retried', async () => {
    server = await startAuthServer({ refreshWorks: true });
    const api = await HttpSpeakClient.login(settings(server.url), {
      email: 'a@b.c',
      password: 'secret-password',
    });
    const exchange = await api.get('/v1/speak/models', { headers: { Authorization: 'Bearer tampered' } });
    expect(exchange.status).toBe(401);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer tampered');
    expect(server.requests.filter((r) => r.url === '/auth/refresh')).toHaveLength(0);
  });

  test('the anonymous client sends no Authorization', async () => {
    server = await startAuthServer({ refreshWorks: true });
    const anon = HttpSpeakClient.anonymous(settings(server.url));
    const exchange = await anon.get('/v1/speak/models');
    expect(exchange.status).toBe(401);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('redirects and signed URLs', () => {
  test('a 307 is returned as is, and fetchSigned follows it without Authorization', async () => {
    server = await startFakeServer((req, res) => {
      if (req.url === '/auth/login')
        return sendJson(res, 200, { access_token: 'acc-aaaaaa', refresh_token: 'ref-aaaaaa' });
      if (req.url === '/v1/speak/takes/t1/wav') {
        res.writeHead(307, { location: '/blobs/t1.wav?X-Amz-Signature=abcdef123456&X-Amz-Expires=600' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from('RIFF0000WAVE'));
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    const redirect = await api.get('/v1/speak/takes/t1/wav');
    expect(redirect.status).toBe(307);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer acc-aaaaaa');
    const audio = await api.fetchSigned(redirect.headers.location!, {
      headers: { Authorization: 'Bearer leak' },
    });
    expect(audio.status).toBe(200);
    expect(audio.body.subarray(0, 4).toString()).toBe('RIFF');
    const signed = server.requests.at(-1)!;
    expect(signed.url).toContain('X-Amz-Signature=abcdef123456');
    expect(signed.headers.authorization).toBeUndefined();
    expect(server.requests).toHaveLength(3); // login, redirect, signed: nothing followed automatically
  });

  test("the run's token is never sent to a signed URL or another origin, even in a caller's own header", async () => {
    server = await startFakeServer((req, res) => {
      if (req.url === '/auth/login')
        return sendJson(res, 200, { access_token: 'acc-guarded-aaaa', refresh_token: 'ref-guarded-aaaa' });
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{"detail":"two auth mechanisms"}');
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    const anon = HttpSpeakClient.anonymous(settings(server.url));
    const bearer = { headers: { authorization: 'Bearer acc-guarded-aaaa' } };
    const signed = `${server.url}/blobs/t1.wav?X-Amz-Signature=abcdef123456`;
    await expect(anon.get(signed, bearer)).rejects.toThrow(/refused to send a credential of the run/);
    await expect(anon.get('http://127.0.0.1:9/elsewhere', bearer)).rejects.toThrow(/only the API gets it/);
    expect(server.requests.map((r) => r.url)).toEqual(['/auth/login']);
    // A decoy goes out; so does the token to the API's own unsigned routes.
    expect((await anon.get(signed, { headers: { authorization: 'Bearer decoy-value' } })).status).toBe(403);
    expect((await anon.get('/v1/speak/models', bearer)).status).toBe(403);
    expect(api.tokens()?.access).toBe('acc-guarded-aaaa');
    // Nor does the logged-in client attach it to a signed URL on the API's own origin.
    await api.get(signed);
    expect(server.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  test('readUpTo ends the read of a body that streams on, keeping what came', async () => {
    let streaming: NodeJS.Timeout | undefined;
    server = await startFakeServer((_req, res) => {
      // A server that streams a take's audio for as long as it is spoken: here, until the test ends.
      res.writeHead(200, { 'content-type': 'audio/flac' });
      res.write(Buffer.from('fLaC-first-bytes'));
      streaming = setInterval(() => res.write(Buffer.alloc(1024)), 50);
      res.on('close', () => clearInterval(streaming));
    });
    const api = HttpSpeakClient.anonymous(settings(server.url));
    const started = Date.now();
    const audio = await api.fetchSigned('/blobs/t1.flac?sig=abcdef', { timeoutMs: 10_000, readUpTo: 1 });
    clearInterval(streaming);
    expect(audio.status).toBe(200);
    expect(audio.body.subarray(0, 4).toString()).toBe('fLaC');
    expect(Date.now() - started, 'not read to the bound').toBeLessThan(5_000);
  });
});

describe('evidence', () => {
  test('every exchange is recorded for the running test, with secrets redacted', async () => {
    server = await startFakeServer((req, res) => {
      if (req.url === '/auth/login')
        return sendJson(res, 200, {
          access_token: 'eyJhbGciOi.eyJzdWIiOi.sig',
          refresh_token: 'refresh-xyz-123',
        });
      res.writeHead(307, { location: `${server!.url}/blob?X-Amz-Signature=deadbeefcafe` });
      res.end();
    });
    const record = newTestRecord();
    await runWithRecord(record, async () => {
      const api = await HttpSpeakClient.login(settings(server!.url), {
        email: 'me@x.y',
        password: 'hunter2-password',
      });
      await api.get('/v1/speak/takes/x/wav');
    });
    expect(record.evidence).toHaveLength(2);
    const [login, audio] = record.evidence;
    expect(login!.method).toBe('POST');
    expect(login!.status).toBe(200);
    expect(login!.requestBody).toContain('"password":"‹redacted›"');
    expect(login!.body).not.toContain('refresh-xyz-123');
    expect(login!.body).not.toContain('eyJhbGciOi');
    expect(audio!.requestHeaders.authorization).toBe(`Bearer ${REDACTED}`);
    expect(audio!.status).toBe(307);
    expect(audio!.headers.location).toContain(`X-Amz-Signature=${REDACTED}`);
    const all = JSON.stringify(record.evidence);
    expect(all).not.toContain('hunter2-password');
    expect(all).not.toContain('deadbeefcafe');
  });
});

describe('evidence of a failed exchange', () => {
  test('a body over maxBytes is recorded once, with status, what came and the error, redacted', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(1_000));
    });
    const record = newTestRecord();
    const anon = HttpSpeakClient.anonymous(settings(server.url));
    const failure = await runWithRecord(record, () =>
      anon.get('/v1/speak/takes/x/wav?X-Amz-Signature=deadbeefcafe', { maxBytes: 10 }).catch((e) => e),
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('exceeded 10 bytes');
    // The message reaches junit.xml and allure-results, which do not redact.
    expect((failure as Error).message).toContain(`X-Amz-Signature=${REDACTED}`);
    expect((failure as Error).message).not.toContain('deadbeefcafe');
    expect(record.evidence).toHaveLength(1);
    const [entry] = record.evidence;
    expect(entry!.status).toBe(200);
    expect(entry!.error).toContain('exceeded 10 bytes');
    expect(entry!.url).toContain(`X-Amz-Signature=${REDACTED}`);
    expect(JSON.stringify(entry)).not.toContain('deadbeefcafe');
  });
});

describe('lifetimes: no credential is sent past the lifetime it shows (issue 37)', () => {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  /** A JWT whose exp is `inS` seconds from now (no iat: only exp speaks). */
  const jwtExpiring = (inS: number, tag: string) =>
    `${b64({ alg: 'HS256' })}.${b64({ exp: Math.floor(Date.now() / 1000) + inS, tag })}.c2lnbmF0dXJl`;

  test('an access token past its JWT exp is refreshed before the request, never sent', async () => {
    const stale = jwtExpiring(-5, 'stale');
    const fresh = jwtExpiring(900, 'fresh');
    server = await startFakeServer((req, res) => {
      if (req.url === '/auth/login')
        return sendJson(res, 200, { access_token: stale, refresh_token: 'r-one-aaaa' });
      if (req.url === '/auth/refresh')
        return sendJson(res, 200, { access_token: fresh, refresh_token: 'r-two-aaaa' });
      sendJson(res, 200, []);
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    expect((await api.get('/v1/speak/models')).status).toBe(200);
    expect(server.requests.map((r) => r.url)).toEqual(['/auth/login', '/auth/refresh', '/v1/speak/models']);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${fresh}`);
  });

  test('an access token made stale by a 429 wait is refreshed before the retry (expires_in)', async () => {
    let logins = 0;
    let refreshes = 0;
    let limited = false;
    const issuedAt = new Map<string, number>();
    server = await startFakeServer((req, res) => {
      if (req.url === '/auth/login' || req.url === '/auth/refresh') {
        const token =
          req.url === '/auth/login' ? `opaque-login-${++logins}` : `opaque-refresh-${++refreshes}`;
        issuedAt.set(token, Date.now());
        return sendJson(res, 200, { access_token: token, refresh_token: `r-${token}`, expires_in: 2 });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!limited) {
        limited = true;
        res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' });
        return res.end('{"detail":"Rate limit exceeded"}');
      }
      if (Date.now() > (issuedAt.get(token) ?? 0) + 2_000) return sendJson(res, 401, { detail: 'expired' });
      sendJson(res, 200, []);
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    expect((await api.get('/v1/speak/models')).status).toBe(200);
    // login, the throttled try, the refresh after the wait, the retry with the new token: no 401 at all.
    expect(server.requests.map((r) => r.url)).toEqual([
      '/auth/login',
      '/v1/speak/models',
      '/auth/refresh',
      '/v1/speak/models',
    ]);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer opaque-refresh-1');
  }, 10_000);

  test('a server that keeps handing out stale tokens: bounded renewals, then the request goes', async () => {
    server = await startFakeServer((req, res) => {
      if (req.url?.startsWith('/auth/'))
        return sendJson(res, 200, { access_token: jwtExpiring(-5, req.url), refresh_token: 'r-aaaaaaaa' });
      sendJson(res, 200, []);
    });
    const api = await HttpSpeakClient.login(settings(server.url), { email: 'a@b.c', password: 'pw-123456' });
    expect((await api.get('/v1/speak/models')).status).toBe(200);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/auth/login',
      '/auth/refresh',
      '/auth/refresh',
      '/v1/speak/models',
    ]);
  });

  test('an explicit Authorization is sent as given, stale or not (the expiry checks)', async () => {
    server = await startFakeServer((_req, res) => sendJson(res, 401, { detail: 'expired' }));
    const anon = HttpSpeakClient.anonymous(settings(server.url));
    const stale = jwtExpiring(-5, 'stale');
    expect(
      (await anon.get('/v1/speak/models', { headers: { authorization: `Bearer ${stale}` } })).status,
    ).toBe(401);
    expect(server.requests).toHaveLength(1);
  });

  const amz = (ms: number) =>
    new Date(ms)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  const signedPath = (signedAtMs: number, n: number) =>
    `/blobs/t1.wav?X-Amz-Date=${amz(signedAtMs)}&X-Amz-Expires=8&X-Amz-Signature=sig${n}aaaaaa`;

  test('a signed URL past X-Amz-Date + X-Amz-Expires is asked for again (reissue), the stale one never sent', async () => {
    let issued = 0;
    server = await startFakeServer((req, res) => {
      if (req.url === '/v1/speak/takes/t1/wav') {
        issued++;
        res.writeHead(307, { location: signedPath(Date.now(), issued) });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from('RIFF0000WAVE'));
    });
    const api = HttpSpeakClient.anonymous(settings(server.url));
    const stale = signedPath(Date.now() - 60_000, 0);
    const audio = await api.fetchSigned(stale, {
      reissue: async () => (await api.get('/v1/speak/takes/t1/wav')).headers.location!,
    });
    expect(audio.status).toBe(200);
    // The stale URL was never sent: a new 307, then the URL it gave.
    expect(server.requests.map((r) => r.url.replace(/X-Amz-Date=\w+&/, ''))).toEqual([
      '/v1/speak/takes/t1/wav',
      '/blobs/t1.wav?X-Amz-Expires=8&X-Amz-Signature=sig1aaaaaa',
    ]);
    expect(server.requests.some((r) => r.url.includes('sig0'))).toBe(false);
  });

  test('a signed URL made stale by a back-pressure wait is asked for again before the retry', async () => {
    // The blob store sheds the first fetch (503, Retry-After: 2); the URL lives 2 s: after the wait
    // it is stale, and a store that checks expiry would refuse it (403 request has expired).
    let issued = 0;
    let shed = false;
    server = await startFakeServer((req, res) => {
      if (req.url === '/v1/speak/takes/t1/wav') {
        issued++;
        res.writeHead(307, {
          location: `/blobs/t1.wav?X-Amz-Date=${amz(Date.now())}&X-Amz-Expires=2&X-Amz-Signature=sig${issued}aaaaaa`,
        });
        return res.end();
      }
      const url = new URL(req.url ?? '/', 'http://x');
      const signedAt = Date.parse(
        url.searchParams
          .get('X-Amz-Date')!
          .replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
      );
      if (Date.now() > signedAt + 2_000) return sendJson(res, 403, { detail: 'request has expired' });
      if (!shed) {
        shed = true;
        res.writeHead(503, { 'retry-after': '2', 'content-type': 'application/json' });
        return res.end('{"detail":"slow down"}');
      }
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from('RIFF0000WAVE'));
    });
    const api = HttpSpeakClient.anonymous(settings(server.url));
    const first = (await api.get('/v1/speak/takes/t1/wav')).headers.location!;
    const audio = await api.fetchSigned(first, {
      receivedAtMs: Date.now(),
      reissue: async () => (await api.get('/v1/speak/takes/t1/wav')).headers.location!,
    });
    expect(audio.status).toBe(200);
    expect(issued).toBe(2);
    const blobs = server.requests
      .filter((r) => r.url.startsWith('/blobs/'))
      .map((r) => /sig(\d)/.exec(r.url)![1]);
    // The first URL once (shed), then only the fresh one: the stale one was never sent again.
    expect(blobs).toEqual(['1', '2']);
  }, 10_000);

  test('without reissue a stale signed URL is sent as given (the expiry check wants exactly that)', async () => {
    server = await startFakeServer((_req, res) => sendJson(res, 403, { detail: 'request has expired' }));
    const api = HttpSpeakClient.anonymous(settings(server.url));
    const stale = signedPath(Date.now() - 60_000, 0);
    expect((await api.fetchSigned(stale)).status).toBe(403);
    expect(server.requests.map((r) => r.url)).toEqual([stale]);
  });

  test('a fresh signed URL is used as is', async () => {
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from('RIFF0000WAVE'));
    });
    const api = HttpSpeakClient.anonymous(settings(server.url));
    const fresh = signedPath(Date.now(), 0);
    let reissued = 0;
    let sent = 0;
    const audio = await api.fetchSigned(fresh, {
      reissue: async () => `${++reissued}`,
      onSend: () => sent++,
    });
    expect(audio.status).toBe(200);
    expect(reissued).toBe(0);
    expect(sent).toBe(1);
    expect(server.requests.map((r) => r.url)).toEqual([fresh]);
  });
});
