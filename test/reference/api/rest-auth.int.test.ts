/**
 * The reference stack's authentication over HTTP: login, refresh rotation (also with a bearer
 * header), logout, expiry with a short access-token lifetime, tampering, permanent tokens, the bearer
 * requirement on every protected route, two users' isolation, and signed-URL expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Session, type Stack, startStack } from '../stack.ts';

const OTHER = { email: 'other@example.test', password: 'other-password-1' };
const TTL_SECONDS = 2;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack([
    '--access-token-ttl',
    String(TTL_SECONDS),
    '--signed-url-ttl',
    '1',
    '--user',
    `${OTHER.email}:${OTHER.password}`,
    '--permanent-token',
    '--workers',
    '1',
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

function expectDetail(reply: { status: number; json: unknown; headers: Headers }, status: number): string {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toContain('application/json');
  const detail = (reply.json as { detail?: unknown }).detail;
  expect(typeof detail).toBe('string');
  expect(String(detail).length).toBeGreaterThan(0);
  return String(detail);
}

/** Waits (bounded) until the clock has passed `ms` from now; the token lifetime is wall-clock time. */
async function waitPast(ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, until - Date.now() + 5)));
}

describe('login', () => {
  it('returns a token pair for the demo user and 401 with detail otherwise', async () => {
    const ok = await stack.request('POST', '/auth/login', {
      json: { email: stack.email, password: stack.password },
    });
    expect(ok.status).toBe(200);
    const pair = ok.json as Record<string, unknown>;
    expect(typeof pair.access_token).toBe('string');
    expect(typeof pair.refresh_token).toBe('string');
    expect(String(pair.access_token).split('.')).toHaveLength(3); // a JWT
    expectDetail(
      await stack.request('POST', '/auth/login', { json: { email: stack.email, password: 'wrong' } }),
      401,
    );
    expectDetail(
      await stack.request('POST', '/auth/login', { json: { email: 'nobody@example.test', password: 'x' } }),
      401,
    );
    expect(
      expectDetail(await stack.request('POST', '/auth/login', { json: { email: stack.email } }), 422),
    ).toContain('password');
    expectDetail(
      await stack.request('POST', '/auth/login', {
        body: '{nope',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
  });

  it('JWT lifetime follows --access-token-ttl', async () => {
    const s = await stack.login();
    const payload = JSON.parse(Buffer.from(s.access.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
      iat: number;
    };
    expect(payload.exp - payload.iat).toBe(TTL_SECONDS);
  });
});

describe('bearer on protected routes', () => {
  const routes: [string, string][] = [
    ['GET', '/v1/speak/models'],
    ['GET', '/v1/speak/models/english-gb-v2.1'],
    ['GET', '/v1/speak/voices'],
    ['GET', '/v1/speak/voices/vc_x'],
    ['POST', '/v1/speak/voices/generate'],
    ['POST', '/v1/speak/voices/vc_x'],
    ['DELETE', '/v1/speak/voices/vc_x'],
    ['GET', '/v1/speak/takes'],
    ['GET', '/v1/speak/takes/tk_x'],
    ['POST', '/v1/speak/takes/generate'],
    ['DELETE', '/v1/speak/takes/tk_x'],
    ['GET', '/v1/speak/takes/tk_x/wav'],
    ['GET', '/v1/speak/takes/tk_x/mp3'],
    ['GET', '/v1/speak/_meta/workers'],
  ];

  it('refuses every protected route without, with a malformed and with a tampered token (401 + detail)', async () => {
    const s = await stack.login();
    const [head, payload, signature] = s.access.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: 'us_other' }),
    ).toString('base64url');
    for (const [method, path] of routes) {
      const json = method === 'POST' ? {} : undefined;
      expectDetail(await stack.request(method, path, { json }), 401);
      expectDetail(await stack.request(method, path, { json, headers: { authorization: 'Basic abc' } }), 401);
      expectDetail(await stack.request(method, path, { json, token: `${head}.${payload}.${flipped}` }), 401);
      expectDetail(await stack.request(method, path, { json, token: `${head}.${forged}.${signature}` }), 401);
    }
    const missing = await stack.request('GET', '/v1/speak/models');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('version needs no token', async () => {
    const reply = await stack.request('GET', '/v1/speak/version');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ version: 1, minor: expect.any(Number) });
  });

  it('an access token expires after its lifetime (401 "expired"), a permanent token does not', async () => {
    const s = await stack.login();
    expect((await s.get('/v1/speak/models')).status).toBe(200);
    expect(stack.permanentToken).toMatch(/^spk_perm_/);
    await waitPast(TTL_SECONDS * 1000 + 1100);
    expect(expectDetail(await s.get('/v1/speak/models'), 401)).toContain('expired');
    const permanent = await stack.request('GET', '/v1/speak/models', { token: stack.permanentToken! });
    expect(permanent.status).toBe(200);
    // The refresh token still gets a fresh access token after the access token expired.
    const refreshed = await stack.request('POST', '/auth/refresh', {
      json: { refresh_token: s.refresh },
      token: s.access,
    });
    expect(refreshed.status).toBe(200);
  });
});

describe('refresh and logout', () => {
  it('rotates: a new pair, the new access token works, the used refresh token stops working', async () => {
    const s = await stack.login();
    const r1 = await stack.request('POST', '/auth/refresh', {
      json: { refresh_token: s.refresh, email: stack.email },
    });
    expect(r1.status).toBe(200);
    const p1 = r1.json as { access_token: string; refresh_token: string };
    expect(p1.refresh_token).not.toBe(s.refresh);
    expect(p1.access_token).not.toBe(s.access);
    expect((await stack.request('GET', '/v1/speak/models', { token: p1.access_token })).status).toBe(200);
    expectDetail(await stack.request('POST', '/auth/refresh', { json: { refresh_token: s.refresh } }), 401);
    // The chain goes on without the password, also with the bearer header on the call.
    let refresh = p1.refresh_token;
    let access = p1.access_token;
    for (let i = 0; i < 3; i++) {
      const next = await stack.request('POST', '/auth/refresh', {
        json: { refresh_token: refresh, email: stack.email },
        token: access,
      });
      expect(next.status).toBe(200);
      ({ refresh_token: refresh, access_token: access } = next.json as {
        access_token: string;
        refresh_token: string;
      });
    }
    // The refresh token alone as the bearer (no body) is accepted too.
    const viaHeader = await stack.request('POST', '/auth/refresh', { token: refresh });
    expect(viaHeader.status).toBe(200);
  });

  it("refuses a refresh with another user's email and with garbage", async () => {
    const s = await stack.login();
    expectDetail(
      await stack.request('POST', '/auth/refresh', {
        json: { refresh_token: s.refresh, email: OTHER.email },
      }),
      401,
    );
    expectDetail(
      await stack.request('POST', '/auth/refresh', { json: { refresh_token: 'spk_rt_nonsense' } }),
      401,
    );
    expectDetail(await stack.request('POST', '/auth/refresh', { json: {} }), 422);
    expectDetail(await stack.request('POST', '/auth/refresh', { json: { refresh_token: 12 } }), 422);
    expectDetail(await stack.request('POST', '/auth/refresh', { json: [1] }), 422);
  });

  it('logout revokes the refresh token (true), a second logout and a refresh with it are 401', async () => {
    const s = await stack.login();
    const out = await stack.request('POST', '/auth/logout', { json: { refresh_token: s.refresh } });
    expect(out.status).toBe(200);
    expect(out.json).toBe(true);
    expectDetail(await stack.request('POST', '/auth/refresh', { json: { refresh_token: s.refresh } }), 401);
    expectDetail(await stack.request('POST', '/auth/logout', { json: { refresh_token: s.refresh } }), 401);
  });
});

describe('two users', () => {
  let a: Session;
  let b: Session;
  let voiceId: string;
  let takeId: string;

  beforeAll(async () => {
    a = await stack.login(undefined, undefined, { renew: true });
    b = await stack.login(OTHER.email, OTHER.password, { renew: true });
    const voice = await a.post('/v1/speak/voices/generate', {
      name: 'Private',
      gender: 'female',
      model: 'english-gb-v2.1',
    });
    expect(voice.status).toBe(200);
    voiceId = String((voice.json as Record<string, unknown>).voice_id);
    const take = await a.post('/v1/speak/takes/generate', { voice_id: voiceId, text: 'Only mine.' });
    expect(take.status).toBe(200);
    takeId = String((take.json as Record<string, unknown>).take_id);
    await pollUntil(a, `/v1/speak/takes/${takeId}`, isDone);
  });

  it("never see or touch each other's items (404)", async () => {
    expectDetail(await b.get(`/v1/speak/voices/${voiceId}`), 404);
    expectDetail(await b.post(`/v1/speak/voices/${voiceId}`, { name: 'Stolen' }), 404);
    expectDetail(await b.delete(`/v1/speak/voices/${voiceId}`), 404);
    expectDetail(await b.get(`/v1/speak/takes/${takeId}`), 404);
    expectDetail(await b.get(`/v1/speak/takes/${takeId}/wav`), 404);
    expectDetail(await b.delete(`/v1/speak/takes/${takeId}`), 404);
    expect(
      expectDetail(await b.post('/v1/speak/takes/generate', { voice_id: voiceId, text: 'Hi.' }), 404),
    ).toContain('voice_id');
    const voices = (await b.get('/v1/speak/voices')).json as { voice_id: string }[];
    expect(voices.map((v) => v.voice_id)).not.toContain(voiceId);
    const takes = (await b.get(`/v1/speak/takes?take_id=${takeId}`)).json as unknown[];
    expect(takes).toEqual([]);
    // Still there for its owner, unchanged.
    const mine = await a.get(`/v1/speak/voices/${voiceId}`);
    expect((mine.json as Record<string, unknown>).name).toBe('Private');
    expect((await a.get(`/v1/speak/takes/${takeId}`)).status).toBe(200);
  });

  it('a signed URL expires after --signed-url-ttl (403 detail)', async () => {
    const redirect = await a.get(`/v1/speak/takes/${takeId}/wav`);
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get('location')!;
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('1');
    // X-Amz-Date has second resolution: past 2 s after signing it is certainly expired.
    await waitPast(2100);
    expect(expectDetail(await stack.request('GET', location), 403)).toContain('expired');
  });
});
