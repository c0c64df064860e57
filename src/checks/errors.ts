/**
 * Errors: "Error responses are JSON with a detail field. A client falls back to the raw response
 * text when the body is not JSON." A non-JSON error is a finding (the contract says JSON), and its
 * message quotes the raw text the fallback would show.
 */
import { type ExchangeLike, header, judgedAt, requestLine } from './exchange.ts';
import { Finding, show } from './finding.ts';

/** What a client would show for this error: the detail, or the raw text as the fallback. */
export function errorMessageOf(exchange: ExchangeLike): { detail: unknown; fallback: boolean } {
  const json = exchange.json;
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'detail' in json) {
    return { detail: (json as { detail: unknown }).detail, fallback: false };
  }
  return { detail: exchange.text, fallback: true };
}

function detailIsUseful(detail: unknown): boolean {
  if (typeof detail === 'string') return detail.trim().length > 0;
  if (Array.isArray(detail)) return detail.length > 0;
  return detail !== null && typeof detail === 'object';
}

/** A 4xx/5xx whose body is a JSON object with a non-empty `detail`. Returns the detail. */
export function assertErrorBody(exchange: ExchangeLike): unknown {
  const line = requestLine(exchange);
  if (exchange.status < 400) {
    throw new Finding(`${line}: expected an error status (4xx) with a JSON detail, got ${exchange.status}`, {
      ...judgedAt(exchange),
      expected: '4xx',
      actual: exchange.status,
    });
  }
  const json = exchange.json;
  if (json === undefined) {
    const type = header(exchange, 'content-type') ?? 'no content-type';
    throw new Finding(
      `${line}: error body is not JSON (${type}); a client falls back to the raw text: ${show(exchange.text)}`,
      { ...judgedAt(exchange), expected: '{"detail": ...}', actual: exchange.text },
    );
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json) || !('detail' in json)) {
    throw new Finding(`${line}: error JSON has no "detail" field: ${show(json)}`, {
      where: `${line} /detail`,
      expected: 'detail',
      actual: json,
    });
  }
  const detail = (json as { detail: unknown }).detail;
  if (!detailIsUseful(detail)) {
    throw new Finding(`${line}: error "detail" is empty: ${show(detail)}`, {
      where: `${line} /detail`,
      expected: 'a non-empty detail',
      actual: detail,
    });
  }
  return detail;
}

/** A client error, never a server error, never success. */
export function assertClientError(exchange: ExchangeLike, why: string): void {
  const line = requestLine(exchange);
  if (exchange.status >= 500) {
    throw new Finding(
      `${line}: ${why}: server error ${exchange.status} instead of a 4xx: ${show(exchange.text)}`,
      {
        ...judgedAt(exchange),
        expected: '4xx',
        actual: exchange.status,
      },
    );
  }
  if (exchange.status < 400) {
    throw new Finding(`${line}: ${why}: accepted with ${exchange.status} instead of a 4xx`, {
      ...judgedAt(exchange),
      expected: '4xx',
      actual: exchange.status,
    });
  }
}

/** Exactly this status (used for 401 on auth and, as INFO, 404 on unknown ids). */
export function assertStatus(exchange: ExchangeLike, expected: number, why: string): void {
  if (exchange.status !== expected) {
    const line = requestLine(exchange);
    throw new Finding(
      `${line}: ${why}: expected ${expected}, got ${exchange.status}: ${show(exchange.text)}`,
      {
        ...judgedAt(exchange),
        expected,
        actual: exchange.status,
      },
    );
  }
}
