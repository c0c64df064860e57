import { describe, expect, it } from 'vitest';
import { assertClientError, assertErrorBody, assertStatus, errorMessageOf } from '../../src/checks/errors.ts';
import type { ExchangeLike } from '../../src/checks/exchange.ts';

function exchange(status: number, text: string, json: unknown, type = 'application/json'): ExchangeLike {
  return {
    method: 'POST',
    url: 'http://127.0.0.1/v1/speak/takes/generate',
    status,
    headers: { 'content-type': type },
    text,
    json,
  };
}

describe('assertErrorBody', () => {
  it('returns the detail of a proper error', () => {
    expect(
      assertErrorBody(exchange(422, '{"detail":"text is required"}', { detail: 'text is required' })),
    ).toBe('text is required');
    expect(assertErrorBody(exchange(422, '', { detail: [{ loc: ['body', 'text'] }] }))).toEqual([
      { loc: ['body', 'text'] },
    ]);
  });

  it('rejects an error without detail', () => {
    expect(() => assertErrorBody(exchange(400, '{"error":"bad"}', { error: 'bad' }))).toThrow(
      /no "detail" field/,
    );
  });

  it('rejects an empty detail', () => {
    expect(() => assertErrorBody(exchange(400, '{"detail":""}', { detail: '' }))).toThrow(
      /"detail" is empty/,
    );
  });

  it('reports the raw text fallback of a non-JSON error', () => {
    const html = exchange(404, '<html>Not Found</html>', undefined, 'text/html');
    expect(() => assertErrorBody(html)).toThrow(
      /not JSON \(text\/html\); a client falls back to the raw text: "<html>Not Found<\/html>"/,
    );
    expect(errorMessageOf(html)).toEqual({ detail: '<html>Not Found</html>', fallback: true });
  });

  it('rejects a success passed off as an error', () => {
    expect(() => assertErrorBody(exchange(200, '{}', {}))).toThrow(/expected an error status/);
  });
});

describe('assertClientError', () => {
  it('rejects 5xx and 2xx, accepts 4xx', () => {
    expect(() => assertClientError(exchange(500, 'boom', undefined, 'text/plain'), 'missing text')).toThrow(
      /server error 500/,
    );
    expect(() => assertClientError(exchange(200, '{}', {}), 'missing text')).toThrow(/accepted with 200/);
    expect(() => assertClientError(exchange(422, '{}', {}), 'missing text')).not.toThrow();
  });

  it('assertStatus names both codes', () => {
    expect(() => assertStatus(exchange(403, '{}', {}), 401, 'tampered token')).toThrow(
      /expected 401, got 403/,
    );
  });
});
