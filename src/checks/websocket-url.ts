/**
 * Checks on the websocket address (speak-v1.md Endpoints → Websocket address): where its secret
 * lives, the tampered copies a worker must refuse at the upgrade, and the lifetime the URL shows.
 * Pure functions of URLs; the suite connects.
 */
import { Finding } from './finding.ts';

/** A query value or a path segment of a URL: where a websocket secret can live. */
export type UrlPart = { query: string } | { segment: number };

/** `query parameter sig` / `path segment 3`: the part as a finding or an observation names it. */
export function partName(part: UrlPart): string {
  return 'query' in part ? `query parameter ${part.query}` : `path segment ${part.segment}`;
}

/** The parts of two freshly issued URLs that differ: the secret (and what it signs) lives there. */
export function changingParts(a: string, b: string): UrlPart[] {
  const ua = new URL(a);
  const ub = new URL(b);
  const parts: UrlPart[] = [];
  for (const [key, value] of ua.searchParams)
    if (ub.searchParams.get(key) !== value) parts.push({ query: key });
  const sa = ua.pathname.split('/');
  const sb = ub.pathname.split('/');
  sa.forEach((segment, index) => {
    if (sb[index] !== segment) parts.push({ segment: index });
  });
  return parts;
}

/** The value of `part` in `raw` ('' when absent). */
export function partValue(raw: string, part: UrlPart): string {
  const url = new URL(raw);
  return 'query' in part
    ? (url.searchParams.get(part.query) ?? '')
    : (url.pathname.split('/')[part.segment] ?? '');
}

/** `raw` with `part` set to `value`, or removed (undefined). */
export function withPart(raw: string, part: UrlPart, value: string | undefined): string {
  const url = new URL(raw);
  if ('query' in part) {
    if (value === undefined) url.searchParams.delete(part.query);
    else url.searchParams.set(part.query, value);
  } else {
    const segments = url.pathname.split('/');
    if (value === undefined) segments.splice(part.segment, 1);
    else segments[part.segment] = value;
    url.pathname = segments.join('/');
  }
  return url.toString();
}

/**
 * `value` with the character at about `at` (0..1) of its length replaced by another one of
 * `alphabet` (the characters the part is written in): same length, same alphabet, so only the
 * secret's check (not its syntax) can tell.
 */
export function alteredValue(value: string, at: number, alphabet: readonly string[]): string {
  const chars = [...value];
  const i = Math.min(chars.length - 1, Math.floor(chars.length * at));
  const other =
    alphabet.find((c) => c !== chars[i] && /[A-Za-z0-9]/.test(c)) ?? alphabet.find((c) => c !== chars[i]);
  if (i < 0 || other === undefined) return `${value}A`;
  chars[i] = other;
  return chars.join('');
}

/** A copy of an issued URL the worker must refuse, and why it must (for the finding). */
export interface TamperedUrl {
  url: string;
  why: string;
}

/** Where in a secret part it is altered: early and late, as a secret may be claims and a signature side by side. */
export const TAMPER_POSITIONS = [0.25, 0.75] as const;

/**
 * The copies of `url` (issued just before `second`) a worker must refuse at the upgrade: per part
 * that differs between the two, the part removed, then altered at each of TAMPER_POSITIONS in the
 * part's own alphabet (both URLs' values), so an altered secret still looks like one.
 */
export function tamper(url: string, second: string): TamperedUrl[] {
  return changingParts(url, second).flatMap((part) => {
    const alphabet = [...new Set([...partValue(url, part), ...partValue(second, part)])].sort();
    return [
      { url: withPart(url, part, undefined), why: `${partName(part)} removed` },
      ...TAMPER_POSITIONS.map((at) => ({
        url: withPart(url, part, alteredValue(partValue(url, part), at, alphabet)),
        why: `${partName(part)} altered at ${at * 100} % of its length`,
      })),
    ];
  });
}

/** WS-URL-SECRET-VARIES: two URLs issued one after the other differ somewhere (`parts` from changingParts). */
export function assertSecretVaries(parts: readonly UrlPart[], url: string): void {
  if (parts.length > 0) return;
  throw new Finding(
    'two websocket URLs issued one after the other are identical: no part of them is a secret with a limited lifetime',
    { expected: 'URLs that differ in their secret', actual: url.replace(/[?#].*$/, '?…') },
  );
}

/** WS-URL-SECRET-NOT-TOKEN: the URL holds none of `secrets` (bearer, refresh, configured token), plain or encoded. */
export function assertNoTokenInUrl(url: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    if (url.includes(secret) || decodeURIComponent(url).includes(secret)) {
      throw new Finding(
        'the websocket URL contains the bearer/refresh token itself; the spec wants a distinct secret',
        {
          where: 'websocket_url',
          expected: 'a secret distinct from the access token',
        },
      );
    }
  }
}

/** The expiry a URL shows (epoch ms): one reading for the checks and the client (src/client/lifetime.ts). */
export { visibleExpiryMs } from '../client/lifetime.ts';

/** The contract's websocket URL lifetime ("valid for 1 hour"), and how far a shown expiry may be from it. */
export const WS_URL_LIFETIME_S = 3600;
const LIFETIME_SLACK_S = 60;

/** WS-URL-LIFETIME: a URL issued at `issuedMs` that shows expiry `expiryMs` lives about one hour. */
export function assertUrlLifetime(issuedMs: number, expiryMs: number): void {
  const lifetimeS = (expiryMs - issuedMs) / 1000;
  if (Math.abs(lifetimeS - WS_URL_LIFETIME_S) > LIFETIME_SLACK_S) {
    throw new Finding(`the websocket URL lives ${lifetimeS.toFixed(0)} s, the spec says 1 hour`, {
      expected: WS_URL_LIFETIME_S,
      actual: lifetimeS,
    });
  }
}

/** What the address checks read of an HTTP answer. */
interface AddressAnswer {
  status: number;
  text: string;
  json?: unknown;
}

/** WS-URL-ENDPOINT / WS-URL-SDK-FORM: `GET {request}` answered 200 (its body is judged by schema). */
export function assertAddressAnswered(answer: AddressAnswer, request: string): void {
  if (answer.status !== 200) {
    throw new Finding(`GET ${request} answered ${answer.status}, expected 200`, {
      expected: 200,
      actual: answer.status,
    });
  }
}

/** WS-URL-UNKNOWN-MODEL: the address endpoint refused a bad model (`what`) with a 4xx JSON with detail. */
export function assertAddressRefused(answer: AddressAnswer, what: string): void {
  const json = answer.json;
  const detail =
    json !== null && typeof json === 'object' ? (json as { detail?: unknown }).detail : undefined;
  if (answer.status < 400 || answer.status >= 500 || detail === undefined) {
    throw new Finding(
      `address endpoint ${what}: ${answer.status} ${answer.text.slice(0, 120)}; a 4xx JSON with detail was expected`,
      {
        expected: '4xx + detail',
        actual: answer.status,
      },
    );
  }
}
