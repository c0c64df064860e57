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
