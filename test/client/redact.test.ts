import { describe, expect, test } from 'vitest';
import { ClientDiagnostic } from '../../src/client/diagnostics.ts';
import {
  REDACTED,
  redactError,
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

  test('an error copied for vitest: message, stack, properties and causes redacted, class and code kept', () => {
    const signed = 'http://127.0.0.1:1/t.wav?X-Amz-Signature=deadbeefcafe';
    const cause = new Error(`reset on ${signed}`);
    const err = new ClientDiagnostic('unreachable', `the connection was reset (GET ${signed})`, signed);
    Object.assign(err, { cause, facts: { where: signed, requirement: 'AUDIO-WAV' } });
    const copy = redactError(err) as ClientDiagnostic & { cause: Error; facts: Record<string, string> };
    expect(copy).toBeInstanceOf(ClientDiagnostic);
    expect(copy).not.toBe(err);
    expect([copy.name, copy.code, copy.kind]).toEqual([
      'ClientDiagnostic',
      'SPEAKCHECK_UNREACHABLE',
      'unreachable',
    ]);
    expect(copy.facts.requirement).toBe('AUDIO-WAV');
    // What vitest prints of an error: message, stack, own properties, the cause chain.
    const printed = [
      copy.message,
      copy.stack,
      copy.url,
      JSON.stringify(copy.facts),
      copy.cause.message,
      copy.cause.stack,
    ];
    for (const text of printed) expect(text).not.toContain('deadbeefcafe');
    expect(copy.message).toContain(`X-Amz-Signature=${REDACTED}`);
    // The original is left as it was: the conclusions were drawn from it.
    expect(err.message).toContain('deadbeefcafe');
  });

  test('an error that is its own cause is copied without recursing forever', () => {
    const err = new Error('loop');
    Object.assign(err, { cause: err });
    expect((redactError(err) as Error).message).toBe('loop');
  });
});
