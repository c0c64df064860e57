import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  assertDeclaresOperations,
  assertValidOpenApi,
  CONTRACT_OPERATIONS,
} from '../../src/checks/openapi.ts';
import { assertTokenPair, jwtLifetimeSeconds, tamperToken } from '../../src/checks/tokens.ts';

describe('tokens', () => {
  it('checks the pair shape without printing tokens', () => {
    expect(() =>
      assertTokenPair({ access_token: 'secret-a', refresh_token: 'secret-r' }, 'login'),
    ).not.toThrow();
    expect(() => assertTokenPair({ access_token: 'secret-a' }, 'login')).toThrow(
      /refresh_token is undefined/,
    );
    expect(() => assertTokenPair({ access_token: '', refresh_token: 'x' }, 'login')).toThrow(/empty string/);
    try {
      assertTokenPair({ access_token: 'secret-a', refresh_token: 5 }, 'login');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret-a');
    }
  });

  it('reads a JWT lifetime and tampers a token in place', async () => {
    const token = await new SignJWT({ sub: 'u' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(1000)
      .setExpirationTime(1900)
      .sign(new TextEncoder().encode('k'.repeat(32)));
    expect(jwtLifetimeSeconds(token)).toBe(900);
    expect(jwtLifetimeSeconds('opaque-token')).toBeUndefined();
    const tampered = tamperToken(token);
    expect(tampered).not.toBe(token);
    expect(tampered).toHaveLength(token.length);
  });
});

const minimal = (paths: Record<string, Record<string, unknown>>) => ({
  openapi: '3.1.0',
  info: { title: 'Speak', version: '1.0' },
  paths,
});
const op = { responses: { '200': { description: 'ok' } } };

describe('openapi', () => {
  it('accepts a valid document declaring every operation, whatever the parameter names', async () => {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const o of CONTRACT_OPERATIONS) {
      const path = o.path.replace('{take_id}', '{id}');
      paths[path] = { ...(paths[path] ?? {}), [o.method]: op };
    }
    const doc = minimal(paths);
    await expect(assertValidOpenApi(doc, 'openapi.json')).resolves.toMatch(/^3\.1/);
    expect(() => assertDeclaresOperations(doc, CONTRACT_OPERATIONS, 'openapi.json')).not.toThrow();
  });

  it('names the operations a document leaves out', () => {
    const doc = minimal({ '/v1/speak/models': { get: op }, '/v1/speak/takes/{take_id}/wav': { post: op } });
    expect(() => assertDeclaresOperations(doc, CONTRACT_OPERATIONS, 'openapi.json')).toThrow(
      /does not declare GET \/v1\/speak\/models\/\{name\}.*GET \/v1\/speak\/takes\/\{take_id\}\/wav/,
    );
  });

  it('matches operations: a templated {format} counts for the formats its enum lists, and only those', () => {
    const FORMATS = ['wav', 'mp3', 'm4a', 'flac', 'webm'];
    const withAudio = (schema: Record<string, unknown>) => {
      const paths: Record<string, Record<string, unknown>> = {};
      for (const o of CONTRACT_OPERATIONS.filter((x) => !/\/(wav|mp3|m4a|flac|webm)$/.test(x.path)))
        paths[o.path] = { ...(paths[o.path] ?? {}), [o.method]: op };
      paths['/v1/speak/takes/{take_id}/{format}'] = {
        parameters: [{ $ref: '#/components/parameters/take' }],
        get: { ...op, parameters: [{ name: 'format', in: 'path', required: true, schema }] },
      };
      return {
        ...minimal(paths),
        components: {
          parameters: { take: { name: 'take_id', in: 'path', required: true, schema: { type: 'string' } } },
        },
      };
    };
    expect(() =>
      assertDeclaresOperations(
        withAudio({ type: 'string', enum: FORMATS }),
        CONTRACT_OPERATIONS,
        'openapi.json',
      ),
    ).not.toThrow();
    expect(() =>
      assertDeclaresOperations(
        withAudio({ type: 'string', enum: FORMATS.slice(0, 4) }),
        CONTRACT_OPERATIONS,
        'openapi.json',
      ),
    ).toThrow(/does not declare GET \/v1\/speak\/takes\/\{take_id\}\/webm$/);
    // A parameter that could be anything declares no literal operation.
    expect(() =>
      assertDeclaresOperations(withAudio({ type: 'string' }), CONTRACT_OPERATIONS, 'openapi.json'),
    ).toThrow(/does not declare GET \/v1\/speak\/takes\/\{take_id\}\/wav/);
  });

  it('rejects an invalid document', async () => {
    await expect(assertValidOpenApi({ openapi: '3.1.0', paths: 5 }, 'openapi.json')).rejects.toThrow(
      /not a valid OpenAPI document/,
    );
    await expect(assertValidOpenApi('<html>', 'openapi.json')).rejects.toThrow(/not a JSON object/);
  });
});
