/**
 * Refused is not served (src/checks/refusal.ts): any error status holds, a 5xx named as a server
 * error in the observation; a success or a redirect fails.
 */
import { describe, expect, it } from 'vitest';
import { assertNotServed, describeRefusal } from '../../src/checks/refusal.ts';

const exchange = (status: number, text = '') => ({
  method: 'GET',
  url: 'http://127.0.0.1:1/blob/take.wav?sig=x',
  status,
  headers: {},
  text,
  json: undefined,
});

describe('assertNotServed', () => {
  it.each([400, 401, 403, 404, 410, 500, 502, 504])('%i is a refusal', (status) => {
    expect(assertNotServed(exchange(status), 'expired')).toBe(describeRefusal(status));
  });

  it('names a 5xx as a server error, a 4xx plainly', () => {
    expect(describeRefusal(403)).toBe('refused with 403');
    expect(describeRefusal(502)).toMatch(/^refused with 502, a server error/);
  });

  it.each([200, 204, 302, 307])('%i is served: a finding naming why', (status) => {
    expect(() => assertNotServed(exchange(status, 'RIFF'), 'a signed URL past its lifetime')).toThrow(
      new RegExp(`a signed URL past its lifetime: served with ${status}; it must be refused`),
    );
  });
});
