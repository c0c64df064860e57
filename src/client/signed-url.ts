/**
 * What makes a URL a signed one: a query parameter whose name says signature. Known here, below
 * the checks, because the client needs it too: it never sends the run's token to such a URL
 * (./speak-client.ts), and the audio checks judge the 307's Location by it (src/checks/redirect.ts).
 */

/** The parameter the vendor SDK looks for (wire-facts: Signed audio URLs). */
export const AMZ_SIGNATURE_PARAM = 'X-Amz-Signature';

/** Query parameters whose name says "signature" (sig, signature, X-Amz-Signature, Signature, token-ish hmac...). */
const SIGNATURE_NAME = /(^|[-_.])(sig|signature|hmac|hash)$|signature/i;

/** The signature-looking query parameter of a URL, or undefined. X-Amz-Signature wins when present. */
export function signatureParam(url: URL): string | undefined {
  if (url.searchParams.has(AMZ_SIGNATURE_PARAM)) return AMZ_SIGNATURE_PARAM;
  for (const name of url.searchParams.keys()) if (SIGNATURE_NAME.test(name)) return name;
  return undefined;
}
