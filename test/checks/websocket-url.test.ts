/**
 * The websocket address checks on hand-made URLs: where the secret is found, the tampered copies
 * (same length, same alphabet, each part removed and altered), the shown expiry and the lifetime.
 */
import { describe, expect, it } from 'vitest';
import { Finding } from '../../src/checks/finding.ts';
import {
  alteredValue,
  assertAddressAnswered,
  assertAddressRefused,
  assertNoTokenInUrl,
  assertSecretVaries,
  assertUrlLifetime,
  changingParts,
  partName,
  partValue,
  tamper,
  visibleExpiryMs,
  withPart,
} from '../../src/checks/websocket-url.ts';

const A = 'ws://127.0.0.1:9000/v1/ws/polyglot/abc123?sig=AAAA1111&model=polyglot';
const B = 'ws://127.0.0.1:9000/v1/ws/polyglot/def456?sig=BBBB2222&model=polyglot';

describe('changingParts', () => {
  it('names the query parameters and path segments that differ between two issued URLs', () => {
    expect(changingParts(A, B)).toEqual([{ query: 'sig' }, { segment: 4 }]);
    expect(changingParts(A, B).map(partName)).toEqual(['query parameter sig', 'path segment 4']);
  });

  it('finds nothing in two identical URLs', () => {
    expect(changingParts(A, A)).toEqual([]);
  });
});

describe('partValue and withPart', () => {
  it('reads, replaces and removes a query parameter', () => {
    expect(partValue(A, { query: 'sig' })).toBe('AAAA1111');
    expect(partValue(A, { query: 'none' })).toBe('');
    expect(new URL(withPart(A, { query: 'sig' }, 'X')).searchParams.get('sig')).toBe('X');
    expect(new URL(withPart(A, { query: 'sig' }, undefined)).searchParams.has('sig')).toBe(false);
  });

  it('reads, replaces and removes a path segment', () => {
    expect(partValue(A, { segment: 4 })).toBe('abc123');
    expect(new URL(withPart(A, { segment: 4 }, 'zzz')).pathname).toBe('/v1/ws/polyglot/zzz');
    expect(new URL(withPart(A, { segment: 4 }, undefined)).pathname).toBe('/v1/ws/polyglot');
  });
});

describe('alteredValue', () => {
  it('changes one character at the position asked, keeping length and alphabet', () => {
    const altered = alteredValue('AAAA1111', 0.25, ['1', 'A', 'B']);
    expect(altered).toHaveLength(8);
    expect([...altered].filter((c, i) => c !== 'AAAA1111'[i])).toHaveLength(1);
    expect(altered[2]).not.toBe('A');
    expect(alteredValue('AAAA1111', 0.75, ['1', 'A', 'B'])[6]).not.toBe('1');
  });

  it('appends a character when there is nothing to replace', () => {
    expect(alteredValue('', 0.5, [])).toBe('A');
    expect(alteredValue('aaa', 0.5, ['a'])).toBe('aaaA');
  });
});

describe('tamper', () => {
  it('removes and alters (early and late) every part that carries the secret', () => {
    const copies = tamper(A, B);
    expect(copies.map((c) => c.why)).toEqual([
      'query parameter sig removed',
      'query parameter sig altered at 25 % of its length',
      'query parameter sig altered at 75 % of its length',
      'path segment 4 removed',
      'path segment 4 altered at 25 % of its length',
      'path segment 4 altered at 75 % of its length',
    ]);
    for (const copy of copies) expect(copy.url).not.toBe(new URL(A).toString());
    const sigs = copies.slice(1, 3).map((c) => new URL(c.url).searchParams.get('sig')!);
    for (const sig of sigs) {
      expect(sig).toHaveLength(8);
      expect([...sig].every((c) => 'AB12'.includes(c))).toBe(true);
    }
  });

  it('has nothing to tamper with when the two URLs are the same', () => {
    expect(tamper(A, A)).toEqual([]);
  });
});

describe('assertSecretVaries', () => {
  it('passes when a part changes and names identical URLs without their query', () => {
    expect(() => assertSecretVaries(changingParts(A, B), A)).not.toThrow();
    const thrown = (() => {
      try {
        assertSecretVaries([], A);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(Finding);
    expect((thrown as Finding).message).toMatch(/identical/);
    expect((thrown as Finding).facts.actual).toBe('ws://127.0.0.1:9000/v1/ws/polyglot/abc123?…');
  });
});

describe('assertNoTokenInUrl', () => {
  it('refuses a URL holding a token, plain or percent-encoded, and passes a distinct secret', () => {
    expect(() => assertNoTokenInUrl(A, ['eyJtoken.x/y'])).not.toThrow();
    expect(() => assertNoTokenInUrl(`${A}&t=eyJtoken.x/y`, ['eyJtoken.x/y'])).toThrow(Finding);
    expect(() => assertNoTokenInUrl(`${A}&t=eyJtoken.x%2Fy`, ['eyJtoken.x/y'])).toThrow(/bearer\/refresh/);
  });
});

describe('visibleExpiryMs', () => {
  it('reads an expiry query parameter in seconds or milliseconds', () => {
    expect(visibleExpiryMs('ws://h/x?exp=1700000000')).toBe(1_700_000_000_000);
    expect(visibleExpiryMs('ws://h/x?expires=1700000000123')).toBe(1_700_000_000_123);
  });

  it('reads exp from base64url JSON claims in a query value or a path segment', () => {
    const claims = Buffer.from(JSON.stringify({ exp: 1_700_000_000 })).toString('base64url');
    expect(visibleExpiryMs(`ws://h/x?token=${claims}.signature`)).toBe(1_700_000_000_000);
    expect(visibleExpiryMs(`ws://h/ws/${claims}.sig`)).toBe(1_700_000_000_000);
  });

  it('answers undefined for a URL that shows no expiry', () => {
    expect(visibleExpiryMs(A)).toBeUndefined();
  });
});

describe('assertUrlLifetime', () => {
  it('accepts one hour within a minute and names any other lifetime', () => {
    expect(() => assertUrlLifetime(0, 3_630_000)).not.toThrow();
    expect(() => assertUrlLifetime(0, 600_000)).toThrow(
      'the websocket URL lives 600 s, the spec says 1 hour',
    );
  });
});

describe('the address endpoint', () => {
  const answer = (status: number, json?: unknown) => ({ status, json, text: JSON.stringify(json ?? '') });

  it('wants 200 for a model it serves', () => {
    expect(() => assertAddressAnswered(answer(200, {}), '/v1/speak/websocket?model=m')).not.toThrow();
    expect(() => assertAddressAnswered(answer(404), '/v1/speak/websocket?model=m')).toThrow(
      'GET /v1/speak/websocket?model=m answered 404, expected 200',
    );
  });

  it('wants a 4xx JSON with detail for a missing or unknown model', () => {
    expect(() =>
      assertAddressRefused(answer(404, { detail: 'no such model' }), 'unknown model'),
    ).not.toThrow();
    for (const wrong of [
      answer(200, { websocket_url: 'ws://x' }),
      answer(500, { detail: 'x' }),
      answer(400, {}),
    ]) {
      expect(() => assertAddressRefused(wrong, 'unknown model')).toThrow(
        /^address endpoint unknown model: .*; a 4xx JSON with detail was expected$/,
      );
    }
  });
});
