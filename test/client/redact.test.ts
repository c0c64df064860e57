import { describe, expect, test } from 'vitest';
import {
  REDACTED,
  redactHeaders,
  redactJson,
  redactText,
  registerSecret,
} from '../../src/evidence/redact.ts';

describe('redaction', () => {
  test('authorization and cookies keep their scheme but lose the secret', () => {
    expect(
      redactHeaders({ Authorization: 'Bearer abc.def.ghi', cookie: 'sid=1', accept: 'application/json' }),
    ).toEqual({
      Authorization: `Bearer ${REDACTED}`,
      cookie: REDACTED,
      accept: 'application/json',
    });
  });

  test('secret-named JSON keys are replaced at any depth, other values kept', () => {
    const body = {
      access_token: 'a1',
      refresh_token: 'r1',
      nested: [{ password: 'p', name: 'voice' }],
      websocket_url: 'wss://worker.example:8443/ws/abc-secret-123?secret=s3cr3t',
    };
    expect(redactJson(body)).toEqual({
      access_token: REDACTED,
      refresh_token: REDACTED,
      nested: [{ password: REDACTED, name: 'voice' }],
      websocket_url: `wss://worker.example:8443/${REDACTED}`,
    });
  });

  test('URL signatures and token query parameters are replaced, the rest of the URL kept', () => {
    const url =
      'http://127.0.0.1:1/blobs/t.wav?X-Amz-Expires=600&X-Amz-Signature=0123abcd&token=zzz&format=wav';
    expect(redactText(url)).toBe(
      `http://127.0.0.1:1/blobs/t.wav?X-Amz-Expires=600&X-Amz-Signature=${REDACTED}&token=${REDACTED}&format=wav`,
    );
  });

  test('JWTs and registered secrets are replaced wherever they appear in text', () => {
    registerSecret('my-very-own-password');
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl';
    const text = `login with my-very-own-password gave ${jwt}; "refresh_token": "opaque-1"`;
    const out = redactText(text);
    expect(out).not.toContain('my-very-own-password');
    expect(out).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    expect(out).not.toContain('opaque-1');
    expect(out).toContain('login with');
  });

  test('short registered values are not used (they would redact ordinary words)', () => {
    registerSecret('the');
    expect(redactText('the take')).toBe('the take');
  });
});
