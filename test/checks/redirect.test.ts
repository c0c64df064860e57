import { describe, expect, it } from 'vitest';
import type { ExchangeLike } from '../../src/checks/exchange.ts';
import { Finding } from '../../src/checks/finding.ts';
import {
  assertSignedRedirect,
  assertTamperedRejected,
  expiryParam,
  judgeTamperedRefusal,
  signatureParam,
  stretchExpiry,
  tamperSignature,
} from '../../src/checks/redirect.ts';

const SIGNED = 'http://127.0.0.1:9000/audio/t1.wav?X-Amz-Expires=600&X-Amz-Signature=abc123';

function exchange(status: number, location?: string): ExchangeLike {
  return {
    method: 'GET',
    url: 'http://127.0.0.1:8080/v1/speak/takes/t1/wav',
    status,
    headers: location ? { location } : {},
    text: '',
    json: undefined,
  };
}

describe('assertSignedRedirect', () => {
  it('accepts a 307 with an absolute signed Location', () => {
    const { location, signatureParam: param } = assertSignedRedirect(exchange(307, SIGNED));
    expect(location.href).toBe(SIGNED);
    expect(param).toBe('X-Amz-Signature');
  });

  it.each([302, 303, 301, 308])('rejects a %i redirect and says which code came back', (status) => {
    expect(() => assertSignedRedirect(exchange(status, SIGNED))).toThrow(
      new RegExp(`expected HTTP 307.*got ${status}`),
    );
  });

  it('rejects audio served directly with 200', () => {
    expect(() => assertSignedRedirect(exchange(200))).toThrow(/served directly/);
  });

  it('rejects a relative Location', () => {
    expect(() => assertSignedRedirect(exchange(307, '/audio/t1.wav?X-Amz-Signature=abc'))).toThrow(
      /not an absolute URL/,
    );
  });

  it('rejects a Location without any signature parameter, naming the parameters found', () => {
    expect(() => assertSignedRedirect(exchange(307, 'http://127.0.0.1:9000/a.wav?expires=1&user=2'))).toThrow(
      /no signature query parameter.*expires.*user/,
    );
  });

  it('rejects a 307 without Location', () => {
    expect(() => assertSignedRedirect(exchange(307))).toThrow(Finding);
  });

  it('rejects an empty signature', () => {
    expect(() => assertSignedRedirect(exchange(307, 'http://h/a?X-Amz-Signature='))).toThrow(/empty/);
  });

  it('recognises other signature-looking parameters', () => {
    expect(signatureParam(new URL('http://h/a?sig=1'))).toBe('sig');
    expect(signatureParam(new URL('http://h/a?Signature=1'))).toBe('Signature');
    expect(signatureParam(new URL('http://h/a?expires=1'))).toBeUndefined();
  });
});

describe('tampering', () => {
  it('changes exactly the signature', () => {
    const original = new URL(SIGNED);
    const tampered = tamperSignature(original, 'X-Amz-Signature');
    expect(tampered.searchParams.get('X-Amz-Signature')).not.toBe(
      original.searchParams.get('X-Amz-Signature'),
    );
    expect(tampered.searchParams.get('X-Amz-Expires')).toBe('600');
  });

  it('fails when a tampered URL still delivers audio', () => {
    expect(() => assertTamperedRejected({ ...exchange(200), url: SIGNED })).toThrow(
      /tampered signature was accepted/,
    );
    expect(assertTamperedRejected({ ...exchange(403), url: SIGNED })).toBe('refused with 403');
    // Which error status is not shown: a gateway's 502 refuses as well, named as a server error.
    expect(assertTamperedRejected({ ...exchange(502), url: SIGNED })).toMatch(
      /^refused with 502, a server error/,
    );
  });
});

describe('judgeTamperedRefusal', () => {
  const tampered = (status: number) => ({ ...exchange(status), url: SIGNED });

  it('holds only when the untampered URL, fetched right after, is served', () => {
    expect(judgeTamperedRefusal(tampered(403), tampered(200), 'the signature changed')).toEqual({
      kind: 'refused',
      refusal: 'refused with 403',
    });
  });

  it('judges nothing when the untampered URL is refused as well (one-shot, expired, store down)', () => {
    const judged = judgeTamperedRefusal(tampered(403), tampered(403), 'the signature changed');
    expect(judged.kind).toBe('not-observed');
    if (judged.kind !== 'not-observed') return;
    expect(judged.reason).toMatch(
      /the signature changed: refused with 403, but the untampered URL.*answered 403/,
    );
    expect(judged.wouldJudge).toMatch(/freshly issued signed audio URL is served/);
  });

  it('fails an accepted tampered copy whatever the control says', () => {
    expect(() => judgeTamperedRefusal(tampered(200), tampered(403), 'the signature changed')).toThrow(
      /tampered signature was accepted/,
    );
  });
});

describe('stretchExpiry', () => {
  it('finds the expiry parameter and moves only it', () => {
    const original = new URL(SIGNED);
    expect(expiryParam(original)).toBe('X-Amz-Expires');
    expect(expiryParam(new URL('http://h/a?sig=1'))).toBeUndefined();
    const stretched = new URL(stretchExpiry(original, 'X-Amz-Expires'));
    expect(stretched.searchParams.get('X-Amz-Expires')).toBe('1000600');
    expect(stretched.searchParams.get('X-Amz-Signature')).toBe('abc123');
  });
});
