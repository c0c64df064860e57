import { describe, expect, test } from 'vitest';
import { planWebhookSink } from '../../src/client/webhook-sink.ts';
import { ConfigError, resolveRunConfig } from '../../src/config/resolve.ts';

const now = new Date('2026-11-21T10:20:30.456Z');

describe('run config', () => {
  test('no base url: the embedded target with defaults', () => {
    const c = resolveRunConfig({}, {}, now);
    expect(c).toMatchObject({
      target: 'embedded',
      baseUrl: '',
      profile: 'strict',
      only: [],
      concurrency: 8,
      keep: false,
      reportDir: 'reports/2026-11-21T10-20-30Z',
      timeouts: { requestMs: 15_000, readyMs: 60_000 },
    });
    expect(c.namePrefix).toBe(`speakcheck-${c.runId}-`);
  });

  test('flags override the environment; auth url defaults to the base url', () => {
    const c = resolveRunConfig(
      {
        baseUrl: 'http://127.0.0.1:8080/',
        email: 'f@x.y',
        password: 'flagpw',
        only: 'auth, takes',
        profile: 'lenient',
      },
      {
        SPEAK_BASE_URL: 'http://127.0.0.1:1',
        SPEAK_EMAIL: 'env@x.y',
        SPEAK_PASSWORD: 'envpw',
        SPEAK_CONCURRENCY: '3',
      },
      now,
    );
    expect(c).toMatchObject({
      target: 'remote',
      baseUrl: 'http://127.0.0.1:8080',
      authUrl: 'http://127.0.0.1:8080',
      email: 'f@x.y',
      password: 'flagpw',
      only: ['auth', 'takes'],
      profile: 'lenient',
      concurrency: 3,
    });
  });

  test('--webhook-listen: HOST:PORT or PORT, the flag over SPEAK_WEBHOOK_LISTEN, absent by default', () => {
    expect(resolveRunConfig({}, {}, now).webhookListen).toBeUndefined();
    const env = { SPEAK_WEBHOOK_LISTEN: '127.0.0.1:9100' };
    expect(resolveRunConfig({}, env, now).webhookListen).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(resolveRunConfig({ webhookListen: '8900' }, env, now).webhookListen).toEqual({ port: 8900 });
    expect(resolveRunConfig({ webhookListen: '[::1]:0' }, env, now).webhookListen).toEqual({
      host: '::1',
      port: 0,
    });
    // The sink plan follows the resolved address, not the environment it was resolved from.
    const config = resolveRunConfig({ webhookListen: '127.0.0.2:8901' }, env, now);
    expect(planWebhookSink({ ...config, baseUrl: 'http://127.0.0.1:8080' }, env)).toEqual({
      reachable: true,
      options: { host: '127.0.0.2', port: 8901 },
    });
  });

  test.each([
    [{ baseUrl: 'ftp://x' }, /--base-url "ftp:\/\/x" must be an http/],
    [{ baseUrl: 'http://127.0.0.1:1', email: 'a@b.c' }, /--password is missing/],
    [{ baseUrl: 'http://127.0.0.1:1' }, /needs credentials/],
    [{ baseUrl: 'http://127.0.0.1:1', token: 't', email: 'a', password: 'b' }, /either --token or --email/],
    [{ baseUrl: 'http://127.0.0.1:1', token: 't', only: 'auth,voicez' }, /unknown area voicez/],
    [
      { baseUrl: 'http://127.0.0.1:1', token: 't', concurrency: '0' },
      /--concurrency "0" must be a positive whole number/,
    ],
    [
      { baseUrl: 'http://127.0.0.1:1', token: 't', profile: 'picky' },
      /--profile "picky" must be strict or lenient/,
    ],
    [{ target: 'remote' }, /--target remote needs --base-url/],
    [{ baseUrl: 'http://u:p@127.0.0.1:1', token: 't' }, /must not carry credentials/],
    [{ webhookListen: '127.0.0.1:' }, /--webhook-listen "127.0.0.1:" must be HOST:PORT or PORT/],
    [{ webhookListen: 'localhost:70000' }, /port from 0 to 65535/],
  ])('rejects %j with a clear message', (flags, message) => {
    expect(() => resolveRunConfig(flags, {}, now)).toThrow(ConfigError);
    expect(() => resolveRunConfig(flags, {}, now)).toThrow(message);
  });
});
