/** What the suites read off a websocket URL (shared by suites/websocket.spec.ts and suites/expiry.spec.ts). */

/** Reads an expiry time from the URL where it shows one (a query parameter or signed claims). */
export function visibleExpiryMs(raw: string): number | undefined {
  const url = new URL(raw);
  const asMs = (n: number) => (n < 1e11 ? n * 1000 : n);
  for (const [name, value] of url.searchParams) {
    if (/^(exp|expires|expiry|e)$/i.test(name) && /^\d+$/.test(value)) return asMs(Number(value));
  }
  for (const candidate of [...url.searchParams.values(), ...url.pathname.split('/')]) {
    for (const piece of candidate.split('.')) {
      try {
        const claims = JSON.parse(Buffer.from(piece, 'base64url').toString('utf8')) as Record<
          string,
          unknown
        >;
        const e = claims.exp ?? claims.e ?? claims.expires;
        if (typeof e === 'number') return asMs(e);
      } catch {
        // Not JSON claims.
      }
    }
  }
  return undefined;
}
