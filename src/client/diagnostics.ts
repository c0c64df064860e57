/**
 * Precise, one-sentence explanations of what went wrong on the wire: the harness must say
 * "connection refused at http://127.0.0.1:9/v1/speak/version", never "fetch failed".
 */

import { SpeakcheckError, type SpeakcheckErrorCode } from '../errors.ts';
import { redactText, redactUrl } from '../evidence/redact.ts';
import type { HttpMethod } from './route.ts';

export type DiagnosticKind =
  | 'unreachable' // refused, reset, DNS, TLS: no HTTP conversation happened
  | 'timeout' // the whole exchange did not finish in time
  | 'hung' // connected, but the server stopped talking (no headers / body stalled)
  | 'garbage' // bytes came back, but they are not HTTP
  | 'too-large' // body exceeded the cap
  | 'not-json' // HTTP came back, but not the JSON that was expected
  | 'throttled' // the server kept answering 429/503 beyond the request's bound or the run's budget
  | 'certificate'; // TLS: the server's certificate is not trusted (unknown CA, self-signed, wrong name)

const DIAGNOSTIC_CODES = {
  unreachable: 'SPEAKCHECK_UNREACHABLE',
  timeout: 'SPEAKCHECK_TIMEOUT',
  hung: 'SPEAKCHECK_HUNG',
  garbage: 'SPEAKCHECK_GARBAGE',
  'too-large': 'SPEAKCHECK_TOO_LARGE',
  'not-json': 'SPEAKCHECK_NOT_JSON',
  throttled: 'SPEAKCHECK_THROTTLED',
  certificate: 'SPEAKCHECK_CERTIFICATE',
} as const satisfies Record<DiagnosticKind, SpeakcheckErrorCode>;

export class ClientDiagnostic extends SpeakcheckError {
  override name = 'ClientDiagnostic';
  readonly code: (typeof DIAGNOSTIC_CODES)[DiagnosticKind];
  /**
   * For 'hung': the route (./route.ts) that gave no answer, or that the run learned does not answer
   * (./route-silence.ts); what needed it is judged by the requirement the route's answer is for.
   */
  route?: string;
  /**
   * For 'hung': the run learned that `route` does not answer (./route-silence.ts), a run-wide fact;
   * unset, the no-answer is this request's own (one POST that got none: it is not sent again).
   */
  routeLearned?: boolean;
  /**
   * For 'hung': the whole server answered nothing, not even at its root (./server-silence.ts): an
   * outage that leaves what needed it not concluded, never a finding against `route`.
   */
  serverSilent?: boolean;
  /** For 'hung': the request's method, which says whether it could be sent again (RFC 9110 §9.2.2). */
  method?: HttpMethod;
  constructor(
    readonly kind: DiagnosticKind,
    message: string,
    readonly url: string,
  ) {
    super(message);
    this.code = DIAGNOSTIC_CODES[kind];
  }
}

interface ErrorLike {
  code?: string;
  name?: string;
  message?: string;
  cause?: unknown;
  hostname?: string;
}

/** The innermost error with a code: undici wraps socket errors in TypeError('fetch failed') etc. */
function rootCause(err: unknown): ErrorLike {
  let current = err as ErrorLike;
  for (let depth = 0; depth < 5 && current?.cause && !current.code; depth++)
    current = current.cause as ErrorLike;
  return current ?? {};
}

export function diagnoseNetworkError(
  err: unknown,
  o: { method: string; url: string; timeoutMs: number; timedOut?: boolean; phase?: 'headers' | 'body' },
): ClientDiagnostic {
  if (err instanceof ClientDiagnostic) return err;
  const cause = rootCause(err);
  const code = cause.code ?? '';
  // The message reaches what vitest writes (junit.xml, allure-results): a signed URL's signature
  // must not, nor a secret the cause's own message may quote.
  const where = `${o.method} ${redactUrl(o.url)}`;
  const make = (kind: DiagnosticKind, text: string) =>
    new ClientDiagnostic(kind, `${redactText(text)} (${where})`, o.url);
  if (o.timedOut || cause.name === 'TimeoutError' || cause.name === 'AbortError') {
    // Which phase ran out tells a hung server (silent after connecting) from a slow body.
    if (o.phase === 'headers') return make('hung', `got no response headers within ${o.timeoutMs} ms`);
    if (o.phase === 'body')
      return make('hung', `the response body did not complete within ${o.timeoutMs} ms`);
    return make('timeout', `no complete answer within ${o.timeoutMs} ms`);
  }
  const certificate = certificateProblem(code, cause.message);
  if (certificate !== undefined) return make('certificate', certificate);
  switch (code) {
    case 'ECONNREFUSED':
      return make('unreachable', 'connection refused: nothing listens at that address');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return make(
        'unreachable',
        `host name ${cause.hostname ?? new URL(o.url).hostname} could not be resolved (DNS)`,
      );
    case 'ECONNRESET':
    case 'EPIPE':
      return make('unreachable', 'the connection was reset by the server');
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return make('unreachable', 'host or network unreachable');
    case 'UND_ERR_CONNECT_TIMEOUT':
      return make('unreachable', `could not connect within the connect timeout`);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return make(
        'hung',
        `the server accepted the connection but sent no response headers within ${o.timeoutMs} ms`,
      );
    case 'UND_ERR_BODY_TIMEOUT':
      return make('hung', `the response body stalled for more than ${o.timeoutMs} ms`);
    case 'UND_ERR_SOCKET':
      return make('hung', 'the server closed the connection before the answer was complete');
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_STATUS':
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return make('garbage', `the server answered with bytes that are not HTTP (${code})`);
    default:
      if (cause.name === 'HTTPParserError' || /parse|HPE_/i.test(`${code} ${cause.message ?? ''}`)) {
        return make('garbage', `the server answered with bytes that are not HTTP (${cause.message ?? code})`);
      }
      return make('unreachable', `request failed: ${code ? `${code} ` : ''}${cause.message ?? String(err)}`);
  }
}

/** Node's (OpenSSL's) codes of an untrusted certificate. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * The one sentence of a certificate the client does not trust, naming --ca-file; undefined when the
 * error is not about the certificate. No option turns verification off: a private CA is trusted by
 * giving it, a wrong name or an expired certificate is the server's to fix.
 */
export function certificateProblem(code: string, message: string | undefined): string | undefined {
  const detail = `${code}${message ? `: ${message}` : ''}`;
  if (UNTRUSTED_CERTIFICATE.has(code))
    return `the server's TLS certificate is not signed by a trusted CA (${detail}); give the private CA that signed it with --ca-file FILE (PEM, env SPEAK_CA_FILE)`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the server's TLS certificate does not name this host (${detail}); use the host name the certificate names (--ca-file only adds a trusted CA, it does not skip the name check)`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return `the server's TLS certificate is outside its validity period (${detail}); --ca-file cannot change that, the server needs a valid certificate`;
  return undefined;
}

/** `text/html, 1532 bytes: "<!DOCTYPE html><html><head>..."` — what came back instead of JSON. */
export function describeBody(contentType: string | undefined, body: Buffer, max = 80): string {
  const type = contentType?.split(';')[0]?.trim() || 'no content-type';
  if (body.length === 0) return `${type}, empty body`;
  const head = body.subarray(0, max);
  const printable = head.toString('utf8').replace(/[^\x20-\x7e]/g, '.');
  return `${type}, ${body.length} bytes: "${printable}${body.length > max ? '...' : ''}"`;
}
