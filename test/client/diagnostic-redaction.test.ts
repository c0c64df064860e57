/**
 * A diagnostic's message names the request it is about, and reaches what vitest writes unredacted
 * (junit.xml, allure-results): a signed URL's signature, or a secret the cause quotes, never does.
 */
import { describe, expect, test } from 'vitest';
import { diagnoseNetworkError } from '../../src/client/diagnostics.ts';
import { REDACTED, registerSecret } from '../../src/evidence/redact.ts';

const SIGNED = 'http://127.0.0.1:1/blobs/t.wav?X-Amz-Expires=600&X-Amz-Signature=deadbeefcafe0123';
const undiciError = (code: string, message = 'other side closed') =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });

describe('diagnostic messages are redacted', () => {
  test('a reset connection names the signed URL without its signature', () => {
    const d = diagnoseNetworkError(undiciError('ECONNRESET'), {
      method: 'GET',
      url: SIGNED,
      timeoutMs: 1_000,
    });
    expect(d.kind).toBe('unreachable');
    expect(d.message).toContain(
      `GET http://127.0.0.1:1/blobs/t.wav?X-Amz-Expires=600&X-Amz-Signature=${REDACTED}`,
    );
    expect(d.message).not.toContain('deadbeefcafe0123');
  });

  test('a body that timed out names the signed URL without its signature', () => {
    const d = diagnoseNetworkError(new DOMException('aborted', 'AbortError'), {
      method: 'GET',
      url: SIGNED,
      timeoutMs: 1_000,
      timedOut: true,
      phase: 'body',
    });
    expect(d.kind).toBe('hung');
    expect(d.message).toMatch(/did not complete within 1000 ms/);
    expect(d.message).not.toContain('deadbeefcafe0123');
  });

  test("a secret the cause's own message quotes is replaced too", () => {
    registerSecret('s3cret-in-cause');
    const d = diagnoseNetworkError(undiciError('ESOMETHING', 'failed for s3cret-in-cause'), {
      method: 'GET',
      url: 'http://127.0.0.1:1/v1/speak/version',
      timeoutMs: 1_000,
    });
    expect(d.message).toContain(REDACTED);
    expect(d.message).not.toContain('s3cret-in-cause');
  });
});
