/**
 * Lifetimes the server shows: when a signed audio URL, a websocket URL or an access token stops
 * working, and whether one is still fresh enough to send. The run's own waits (back-pressure, a
 * take being generated, a queue) must never make it use a credential past the lifetime it shows
 * and then blame the server for the refusal (issue 37): a caller asks `freshEnough` right before
 * each use and, when it says no, gets a new one (a new 307, a new address, a refresh).
 *
 * Every expiry here is an upper bound on the local clock, the tighter of what is known: the server's
 * own timestamps (X-Amz-Date, JWT exp) read on our clock, and the stated lifetime counted from when
 * the credential reached us (it cannot have been issued later). A skewed clock therefore asks for a
 * fresh credential early, never uses one late; callers bound how often they ask again.
 *
 * The expiry checks themselves (suites/expiry.spec.ts) use stale credentials on purpose and do not
 * go through this.
 */
import { decodeJwt } from 'jose/jwt/decode';

export interface Lifetime {
  /** Local epoch ms after which the credential may be refused. */
  expiresAtMs: number;
  /** How long it lived in all, when known (sizes the margin). */
  lifetimeMs?: number;
  /** Where the expiry was read, for messages: "X-Amz-Date + X-Amz-Expires", "JWT exp", ... */
  source: string;
}

/** The margin left before an expiry: 1 s, or a tenth of a lifetime shorter than 10 s. */
export const FRESHNESS_MARGIN_MS = 1_000;
export const FRESHNESS_MARGIN_FRACTION = 0.1;

export function freshnessMarginMs(lifetime: Lifetime): number {
  return lifetime.lifetimeMs === undefined
    ? FRESHNESS_MARGIN_MS
    : Math.min(FRESHNESS_MARGIN_MS, lifetime.lifetimeMs * FRESHNESS_MARGIN_FRACTION);
}

/**
 * Whether a credential with `lifetime` can still be sent at `nowMs`: more than its margin left. An
 * unknown lifetime (none shown) is fresh: nothing says otherwise.
 */
export function freshEnough(lifetime: Lifetime | undefined, nowMs: number = Date.now()): boolean {
  if (lifetime === undefined) return true;
  return lifetime.expiresAtMs - nowMs > freshnessMarginMs(lifetime);
}

/** The tighter of two lifetimes (either may be unknown). */
export function earlier(a: Lifetime | undefined, b: Lifetime | undefined): Lifetime | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.expiresAtMs <= b.expiresAtMs ? a : b;
}

/**
 * The expiry read on our clock from the server's timestamps (`clock`) against the stated lifetime
 * counted from when the credential reached us (`receipt`): the tighter, unless `clock` already says
 * stale at receipt: then the two clocks disagree (a credential is not issued stale) and only the
 * receipt count is trusted, or every use would ask for a new one.
 */
function tighterUnlessSkewed(
  clock: Lifetime | undefined,
  receipt: Lifetime | undefined,
  receivedAtMs: number | undefined,
): Lifetime | undefined {
  if (clock && receipt && receivedAtMs !== undefined && !freshEnough(clock, receivedAtMs)) return receipt;
  return earlier(clock, receipt);
}

/** `20260101T120000Z` (ISO 8601 basic, S3's X-Amz-Date) → epoch ms. */
export function amzDateMs(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** An epoch in seconds or ms (a number below 1e11 is seconds) → ms. */
const epochMs = (n: number): number => (n < 1e11 ? n * 1000 : n);

/**
 * The expiry a websocket URL (or any URL carrying a secret) shows: an `exp`/`expires`/`expiry`/`e`
 * epoch query parameter, or an `exp` claim in a base64url JSON part of a query value or a path
 * segment (a JWT-like secret). Epoch ms, or undefined when it shows none.
 */
export function visibleExpiryMs(raw: string): number | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  for (const [name, value] of url.searchParams) {
    if (/^(exp|expires|expiry|e)$/i.test(name) && /^\d+$/.test(value)) return epochMs(Number(value));
  }
  for (const candidate of [...url.searchParams.values(), ...url.pathname.split('/')]) {
    for (const piece of candidate.split('.')) {
      try {
        const claims = JSON.parse(Buffer.from(piece, 'base64url').toString('utf8')) as Record<
          string,
          unknown
        >;
        const e = claims.exp ?? claims.e ?? claims.expires;
        if (typeof e === 'number') return epochMs(e);
      } catch {
        // Not JSON claims.
      }
    }
  }
  return undefined;
}

/**
 * A signed audio URL's lifetime: X-Amz-Date + X-Amz-Expires (S3's form) and X-Amz-Expires from
 * `receivedAtMs` (when the 307 arrived), the tighter; else an expiry epoch it shows (`Expires=`,
 * `exp=`, ...); else `configuredS` (--signed-url-lifetime) from `receivedAtMs`; else unknown.
 */
export function signedUrlLifetime(
  raw: string | URL,
  o: { receivedAtMs?: number; configuredS?: number } = {},
): Lifetime | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const expiresS = Number(url.searchParams.get('X-Amz-Expires') ?? Number.NaN);
  const signedMs = amzDateMs(url.searchParams.get('X-Amz-Date') ?? '');
  let found: Lifetime | undefined;
  if (Number.isFinite(expiresS) && expiresS > 0) {
    const lifetimeMs = expiresS * 1000;
    found = tighterUnlessSkewed(
      signedMs === undefined
        ? undefined
        : { expiresAtMs: signedMs + lifetimeMs, lifetimeMs, source: 'X-Amz-Date + X-Amz-Expires' },
      o.receivedAtMs === undefined
        ? undefined
        : {
            expiresAtMs: o.receivedAtMs + lifetimeMs,
            lifetimeMs,
            source: 'X-Amz-Expires from when the URL was received',
          },
      o.receivedAtMs,
    );
  }
  if (found === undefined) {
    const shown = visibleExpiryMs(url.href);
    if (shown !== undefined)
      found = {
        expiresAtMs: shown,
        ...(o.receivedAtMs !== undefined ? { lifetimeMs: Math.max(0, shown - o.receivedAtMs) } : {}),
        source: 'the expiry the URL shows',
      };
  }
  if (found === undefined && o.configuredS !== undefined && o.receivedAtMs !== undefined)
    found = {
      expiresAtMs: o.receivedAtMs + o.configuredS * 1000,
      lifetimeMs: o.configuredS * 1000,
      source: '--signed-url-lifetime',
    };
  return found;
}

/**
 * A websocket URL's lifetime: the expiry it shows, `configuredS` (--ws-url-lifetime) from when it was
 * issued, the tighter of the two; undefined when neither is known.
 */
export function websocketUrlLifetime(
  raw: string,
  issuedAtMs: number,
  configuredS?: number,
): Lifetime | undefined {
  const shown = visibleExpiryMs(raw);
  return earlier(
    shown === undefined
      ? undefined
      : {
          expiresAtMs: shown,
          lifetimeMs: Math.max(0, shown - issuedAtMs),
          source: 'the expiry the URL shows',
        },
    configuredS === undefined
      ? undefined
      : {
          expiresAtMs: issuedAtMs + configuredS * 1000,
          lifetimeMs: configuredS * 1000,
          source: '--ws-url-lifetime',
        },
  );
}

/**
 * An access token's lifetime: its JWT `exp` (read on our clock), `exp − iat` from `receivedAtMs`, and
 * the `expires_in` of the answer that carried it, the tightest; undefined for an opaque token
 * without expires_in (then only a 401 tells).
 */
export function accessTokenLifetime(
  token: string,
  o: { receivedAtMs?: number; expiresInS?: number } = {},
): Lifetime | undefined {
  let found: Lifetime | undefined;
  try {
    const claims = decodeJwt(token);
    if (typeof claims.exp === 'number') {
      const lifetimeMs = typeof claims.iat === 'number' ? (claims.exp - claims.iat) * 1000 : undefined;
      found = tighterUnlessSkewed(
        {
          expiresAtMs: claims.exp * 1000,
          ...(lifetimeMs !== undefined ? { lifetimeMs } : {}),
          source: 'JWT exp',
        },
        lifetimeMs !== undefined && o.receivedAtMs !== undefined
          ? {
              expiresAtMs: o.receivedAtMs + lifetimeMs,
              lifetimeMs,
              source: 'JWT exp − iat from when it was received',
            }
          : undefined,
        o.receivedAtMs,
      );
    }
  } catch {
    // Opaque: no claims to read.
  }
  if (
    o.expiresInS !== undefined &&
    Number.isFinite(o.expiresInS) &&
    o.expiresInS > 0 &&
    o.receivedAtMs !== undefined
  )
    found = earlier(found, {
      expiresAtMs: o.receivedAtMs + o.expiresInS * 1000,
      lifetimeMs: o.expiresInS * 1000,
      source: 'expires_in',
    });
  return found;
}
