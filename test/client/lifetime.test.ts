/**
 * src/client/lifetime.ts: when a signed URL, a websocket URL or an access token stops working, read
 * from what it shows, and whether it is still fresh enough to send (issue 37).
 */
import { describe, expect, test } from 'vitest';
import {
  accessTokenLifetime,
  amzDateMs,
  FRESHNESS_MARGIN_MS,
  freshEnough,
  freshnessMarginMs,
  signedUrlLifetime,
  visibleExpiryMs,
  websocketUrlLifetime,
} from '../../src/client/lifetime.ts';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const amz = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const signed = (signedAtMs: number, expiresS: number) =>
  `https://blobs.example/a.wav?X-Amz-Date=${amz(signedAtMs)}&X-Amz-Expires=${expiresS}&X-Amz-Signature=abc`;
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: Record<string, number>) => `${b64({ alg: 'HS256' })}.${b64(claims)}.c2ln`;

describe('freshEnough', () => {
  test('the margin is 1 s, or a tenth of a lifetime shorter than 10 s', () => {
    expect(freshnessMarginMs({ expiresAtMs: 0, lifetimeMs: 3_600_000, source: 's' })).toBe(
      FRESHNESS_MARGIN_MS,
    );
    expect(freshnessMarginMs({ expiresAtMs: 0, lifetimeMs: 8_000, source: 's' })).toBe(800);
    expect(freshnessMarginMs({ expiresAtMs: 0, source: 's' })).toBe(FRESHNESS_MARGIN_MS);
  });

  test('fresh until the margin before the expiry, stale from then on; unknown is fresh', () => {
    const lifetime = { expiresAtMs: T0 + 8_000, lifetimeMs: 8_000, source: 's' };
    expect(freshEnough(lifetime, T0)).toBe(true);
    expect(freshEnough(lifetime, T0 + 7_199)).toBe(true);
    expect(freshEnough(lifetime, T0 + 7_200)).toBe(false);
    expect(freshEnough(lifetime, T0 + 9_000)).toBe(false);
    expect(freshEnough(undefined, T0)).toBe(true);
  });
});

describe('signed URLs', () => {
  test('X-Amz-Date + X-Amz-Expires', () => {
    expect(amzDateMs(amz(T0))).toBe(T0);
    expect(amzDateMs('2026-11-26')).toBeUndefined();
    const l = signedUrlLifetime(signed(T0, 8));
    expect(l).toMatchObject({
      expiresAtMs: T0 + 8_000,
      lifetimeMs: 8_000,
      source: 'X-Amz-Date + X-Amz-Expires',
    });
    expect(freshEnough(l, T0 + 5_000)).toBe(true);
    expect(freshEnough(l, T0 + 7_500)).toBe(false);
  });

  test('never later than X-Amz-Expires from when the URL arrived (a URL signed "in the future")', () => {
    const l = signedUrlLifetime(signed(T0 + 2_000, 8), { receivedAtMs: T0 });
    expect(l?.expiresAtMs).toBe(T0 + 8_000);
  });

  test('a URL stale at arrival by our clock means skewed clocks: counted from arrival instead', () => {
    const l = signedUrlLifetime(signed(T0 - 3_600_000, 8), { receivedAtMs: T0 });
    expect(l).toMatchObject({
      expiresAtMs: T0 + 8_000,
      source: 'X-Amz-Expires from when the URL was received',
    });
    // Without the arrival time, only the URL speaks: stale.
    expect(freshEnough(signedUrlLifetime(signed(T0 - 3_600_000, 8)), T0)).toBe(false);
  });

  test('an expiry epoch, the configured lifetime, or nothing known', () => {
    expect(signedUrlLifetime(`https://b.example/a?sig=x&Expires=${(T0 + 60_000) / 1000}`)?.expiresAtMs).toBe(
      T0 + 60_000,
    );
    expect(
      signedUrlLifetime('https://b.example/a?sig=x', { receivedAtMs: T0, configuredS: 30 }),
    ).toMatchObject({
      expiresAtMs: T0 + 30_000,
      source: '--signed-url-lifetime',
    });
    expect(signedUrlLifetime('https://b.example/a?sig=x', { receivedAtMs: T0 })).toBeUndefined();
    expect(signedUrlLifetime('not a url')).toBeUndefined();
  });
});

describe('websocket URLs', () => {
  test('the expiry it shows (a query epoch or a claim), the configured lifetime, the tighter', () => {
    expect(visibleExpiryMs(`wss://w.example/ws?secret=abc&exp=${(T0 + 5_000) / 1000}`)).toBe(T0 + 5_000);
    const claim = `wss://w.example/ws?secret=${b64({ exp: (T0 + 7_000) / 1000 })}.sig`;
    expect(visibleExpiryMs(claim)).toBe(T0 + 7_000);
    expect(websocketUrlLifetime(claim, T0)).toMatchObject({ expiresAtMs: T0 + 7_000, lifetimeMs: 7_000 });
    expect(websocketUrlLifetime(claim, T0, 3)).toMatchObject({
      expiresAtMs: T0 + 3_000,
      source: '--ws-url-lifetime',
    });
    expect(websocketUrlLifetime('wss://w.example/ws?secret=opaque', T0)).toBeUndefined();
  });
});

describe('access tokens', () => {
  test('JWT exp, and exp − iat from when it arrived', () => {
    const token = jwt({ iat: T0 / 1000, exp: T0 / 1000 + 8 });
    expect(accessTokenLifetime(token)).toMatchObject({ expiresAtMs: T0 + 8_000, lifetimeMs: 8_000 });
    // Received 2 s after it was issued: exp on our clock is the tighter.
    expect(accessTokenLifetime(token, { receivedAtMs: T0 + 2_000 })?.expiresAtMs).toBe(T0 + 8_000);
    // Our clock 1 h ahead: the token would be stale at arrival; counted from arrival instead.
    expect(accessTokenLifetime(token, { receivedAtMs: T0 + 3_600_000 })?.expiresAtMs).toBe(T0 + 3_608_000);
  });

  test('expires_in for an opaque token; nothing known without it', () => {
    expect(accessTokenLifetime('opaque-token', { receivedAtMs: T0, expiresInS: 20 })).toMatchObject({
      expiresAtMs: T0 + 20_000,
      source: 'expires_in',
    });
    expect(accessTokenLifetime('opaque-token', { receivedAtMs: T0 })).toBeUndefined();
    // Both: the tighter.
    const token = jwt({ iat: T0 / 1000, exp: T0 / 1000 + 900 });
    expect(accessTokenLifetime(token, { receivedAtMs: T0, expiresInS: 60 })?.expiresAtMs).toBe(T0 + 60_000);
  });
});
