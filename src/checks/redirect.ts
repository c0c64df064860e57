/**
 * Audio rules 1–3: the audio endpoints answer 307 with a signed, absolute Location.
 */
import { AMZ_SIGNATURE_PARAM, signatureParam } from '../client/signed-url.ts';
import { type ExchangeLike, header, judgedAt, requestLine } from './exchange.ts';
import { Finding, show } from './finding.ts';
import { describeRefusal } from './refusal.ts';

export { AMZ_SIGNATURE_PARAM, signatureParam };

export interface SignedRedirect {
  location: URL;
  signatureParam: string;
}

/**
 * 307 (not 301/302/303/308 and not the audio itself), an absolute http(s) Location (a backend
 * hands it to a browser as is: Audio rules 3) carrying a signature-looking query parameter.
 */
export function assertSignedRedirect(exchange: ExchangeLike): SignedRedirect {
  const line = requestLine(exchange);
  if (exchange.status !== 307) {
    const why =
      exchange.status >= 300 && exchange.status < 400
        ? 'a different redirect code (clients may change the method or drop the redirect semantics)'
        : exchange.status >= 200 && exchange.status < 300
          ? 'the audio (or a body) served directly instead of a redirect'
          : 'no redirect';
    throw new Finding(`${line}: expected HTTP 307 with a signed Location, got ${exchange.status}: ${why}`, {
      ...judgedAt(exchange),
      expected: 307,
      actual: exchange.status,
    });
  }
  const raw = header(exchange, 'location');
  if (!raw) {
    throw new Finding(`${line}: 307 without a Location header`, {
      ...judgedAt(exchange),
      expected: 'Location',
    });
  }
  let location: URL;
  try {
    location = new URL(raw);
  } catch {
    throw new Finding(
      `${line}: Location ${show(raw)} is not an absolute URL (a browser given it cannot use it)`,
      {
        ...judgedAt(exchange),
        expected: 'absolute URL',
        actual: raw,
      },
    );
  }
  if (location.protocol !== 'http:' && location.protocol !== 'https:') {
    throw new Finding(`${line}: Location ${show(raw)} is not an http(s) URL`, {
      ...judgedAt(exchange),
      actual: raw,
    });
  }
  const param = signatureParam(location);
  if (!param) {
    throw new Finding(
      `${line}: Location has no signature query parameter (expected ${AMZ_SIGNATURE_PARAM} or another *signature*/sig parameter); query parameters: ${show([...location.searchParams.keys()])}`,
      { ...judgedAt(exchange), expected: AMZ_SIGNATURE_PARAM, actual: [...location.searchParams.keys()] },
    );
  }
  if (!location.searchParams.get(param)) {
    throw new Finding(`${line}: signature parameter ${param} is empty`, {
      ...judgedAt(exchange),
      actual: raw,
    });
  }
  return { location, signatureParam: param };
}

/**
 * The same signed URL with its signature changed in one character (the last one, flipped between
 * two hex/base64-safe letters), so a server that verifies signatures must reject it.
 */
export function tamperSignature(location: URL, param: string): URL {
  const copy = new URL(location.href);
  const value = copy.searchParams.get(param) ?? '';
  const last = value.slice(-1);
  const replacement = last === 'a' ? 'b' : 'a';
  copy.searchParams.set(param, `${value.slice(0, -1)}${replacement}`);
  return copy;
}

/** Where a signed URL may carry its expiry (S3's form first). */
const EXPIRY_PARAMS = ['X-Amz-Expires', 'expires', 'Expires'] as const;

/** The query parameter `location` carries its expiry in, when it shows one. */
export function expiryParam(location: URL): string | undefined {
  return EXPIRY_PARAMS.find((p) => location.searchParams.has(p));
}

/** `location` with its expiry parameter a million seconds later: a copy its signature no longer covers. */
export function stretchExpiry(location: URL, param: string): string {
  const copy = new URL(location.href);
  copy.searchParams.set(param, String(Number(copy.searchParams.get(param)) + 1_000_000));
  return copy.href;
}

/**
 * A signed URL must not be usable after tampering: anything but 2xx/3xx. Which error status is the
 * server's choice (src/checks/refusal.ts); the refusal in words is returned for an observation.
 */
export function assertTamperedRejected(exchange: ExchangeLike): string {
  if (exchange.status < 400) {
    throw new Finding(
      `${requestLine(exchange)}: a signed audio URL with a tampered signature was accepted (expected a refusal: an error status)`,
      { ...judgedAt(exchange), expected: 'an error status', actual: exchange.status },
    );
  }
  return describeRefusal(exchange.status);
}

/** What a tampered URL's refusal shows, next to its untampered copy fetched right after it. */
export type TamperJudgement =
  | { kind: 'refused'; refusal: string }
  | { kind: 'not-observed'; reason: string; wouldJudge: string };

/**
 * The tampered copy of a fresh signed URL (`tampered`), then the URL itself (`untampered`): an
 * accepted tampered copy fails (assertTamperedRejected); its refusal shows the tampering's effect
 * only when the untampered URL was served (2xx) right after. A URL refused as it was issued (used
 * once already, expired, a store that is down) would be refused tampered or not: not observed.
 * `what` names the tampering ("the signature changed").
 */
export function judgeTamperedRefusal(
  tampered: ExchangeLike,
  untampered: ExchangeLike,
  what: string,
): TamperJudgement {
  const refusal = assertTamperedRejected(tampered);
  if (untampered.status >= 200 && untampered.status < 300) return { kind: 'refused', refusal };
  return {
    kind: 'not-observed',
    reason: `${what}: ${refusal}, but the untampered URL, fetched right after, was not served either (it answered ${untampered.status}): the refusal does not show that the tampering made the difference`,
    wouldJudge: 'a run where a freshly issued signed audio URL is served when fetched as issued',
  };
}
