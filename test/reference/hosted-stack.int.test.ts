/**
 * The reference stack served as a hosted server is (issue 32), as processes: `serve --tls` (https,
 * wss and signed URLs on https under a throwaway CA that verifies with the printed ca_file and fails
 * without it; no plain http on the port), `--latitude hosted-latency` (the delays are real: login
 * 150 ms, a voice ready after 5 s, a take queued then paced per part) and `--latitude rate-limit`
 * with its serve options (429 + Retry-After past the burst, then recovery).
 */
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { HOSTED_FIGURES } from '../../reference/latitude/hosted-latency.ts';
import { EXIT } from '../../src/exit-codes.ts';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../../src/stack/embedded.ts';
import { runToEnd } from '../../src/stack/launcher.ts';
import { type DefectiveStack, startDefectiveStack } from './defects/defective-stack.ts';

const VOICE = { name: 'hosted', gender: 'female', model: 'polyglot' };

interface Client {
  json(
    method: string,
    url: string,
    o?: { token?: string; body?: unknown },
  ): Promise<{
    status: number;
    headers: Headers;
    body: Record<string, unknown>;
  }>;
}

function client(stack: DefectiveStack, dispatcher?: Agent): Client {
  return {
    async json(method, url, o = {}) {
      const response = await fetch(/^https?:/.test(url) ? url : `${stack.baseUrl}${url}`, {
        method,
        redirect: 'manual',
        headers: {
          ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
          ...(o.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(o.body ? { body: JSON.stringify(o.body) } : {}),
        ...(dispatcher ? { dispatcher } : {}),
      });
      const text = await response.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON: the status says enough
      }
      return { status: response.status, headers: response.headers as unknown as Headers, body };
    },
  };
}

async function login(c: Client, stack: DefectiveStack): Promise<string> {
  const reply = await c.json('POST', '/auth/login', {
    body: { email: stack.email, password: stack.password },
  });
  expect(reply.status).toBe(200);
  return String(reply.body.access_token);
}

/** Polls (every 50 ms) until the resource's status is `want`; the statuses seen and when. */
async function pollStatus(c: Client, token: string, path: string, want: string, timeoutMs: number) {
  const seen: Array<{ status: string; atMs: number }> = [];
  const started = Date.now();
  for (;;) {
    const reply = await c.json('GET', path, { token });
    expect(reply.status, `GET ${path}`).toBe(200);
    const status = String(reply.body.status);
    if (seen.at(-1)?.status !== status) seen.push({ status, atMs: Date.now() - started });
    if (status === want) return seen;
    if (Date.now() - started > timeoutMs)
      throw new Error(`${path} not ${want} within ${timeoutMs} ms: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('serve --tls', () => {
  let stack: DefectiveStack;
  let trusted: Agent;
  let ca: Buffer;
  beforeAll(async () => {
    stack = await startDefectiveStack([], ['--workers', '1', '--tls']);
    ca = readFileSync(stack.caFile!);
    trusted = new Agent({ connect: { ca } });
  }, 130_000);
  afterAll(async () => {
    await trusted?.close();
    await stack?.stop();
  });

  test('prints the CA; https verifies against it and fails without it', async () => {
    expect(stack.caFile).toMatch(/ca\.pem$/);
    expect(stack.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const version = await client(stack, trusted).json('GET', '/v1/speak/version');
    expect(version.status).toBe(200);
    const untrusted = new Agent();
    try {
      const refused = await fetch(`${stack.baseUrl}/v1/speak/version`, { dispatcher: untrusted }).catch(
        (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
      );
      expect(refused).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|certificate/i);
    } finally {
      await untrusted.close();
    }
  });

  test('no plain http on the same port', async () => {
    const plain = stack.baseUrl.replace('https:', 'http:');
    const outcome = await new Promise<string>((resolve) => {
      const request = httpGet(`${plain}/v1/speak/version`, (response) => {
        response.resume();
        resolve(`HTTP ${response.statusCode}`);
      });
      request.setTimeout(5000, () => request.destroy(new Error('timeout')));
      request.on('error', (error) => resolve(`error ${error.message}`));
    });
    // Node's TLS server answers a plain request with a 400 and closes, or drops it: never the API.
    expect(outcome).not.toBe('HTTP 200');
  });

  test('wss worker websockets and signed audio URLs on https, under the same CA', async () => {
    const c = client(stack, trusted);
    const token = await login(c, stack);
    const address = await c.json('GET', '/v1/speak/websocket?model=polyglot', { token });
    expect(address.status).toBe(200);
    const wsUrl = String(address.body.websocket_url);
    expect(wsUrl).toMatch(/^wss:\/\//);
    await new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(wsUrl, { ca });
      socket.once('open', () => {
        socket.close();
        resolve();
      });
      socket.once('error', reject);
    });
    const untrustedOpen = await new Promise<string>((resolve) => {
      const socket = new WebSocket(wsUrl);
      socket.once('open', () => {
        socket.close();
        resolve('open');
      });
      socket.once('error', (error) => resolve(error.message));
    });
    expect(untrustedOpen).toMatch(/certificate/i);

    const voice = await c.json('POST', '/v1/speak/voices/generate', { token, body: VOICE });
    expect(voice.status).toBe(200);
    const take = await c.json('POST', '/v1/speak/takes/generate', {
      token,
      body: { voice_id: voice.body.voice_id, text: 'Served over TLS.' },
    });
    await pollStatus(c, token, `/v1/speak/takes/${take.body.take_id}`, 'ready', 30_000);
    const redirect = await c.json('GET', `/v1/speak/takes/${take.body.take_id}/wav`, { token });
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get('location')!;
    // On the blob-store listener (its own origin), on https too.
    expect(new URL(location).protocol).toBe('https:');
    expect(new URL(location).origin).not.toBe(stack.baseUrl);
    const audio = await fetch(location, { dispatcher: trusted });
    expect(audio.status).toBe(200);
    expect(
      Buffer.from(await audio.arrayBuffer())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('RIFF');
  }, 60_000);
});

test('serve refuses a rate limit that is not positive', async () => {
  for (const args of [
    ['--rate-limit-rps', '0'],
    ['--rate-limit-rps', 'fast'],
    ['--rate-limit-burst', '0'],
    ['--latency-seed', '-1'],
  ]) {
    const result = await runToEnd({
      args: [SPEAKCHECK_BIN, 'serve', '--port', '0', '--workers', '0', ...args],
      cwd: REPO_ROOT,
      timeoutMs: 30_000,
    });
    expect(result.code, args.join(' ')).not.toBe(0);
    expect(result.stderr, args.join(' ')).toMatch(/must be/);
  }
});

test('serve --tls without openssl on PATH: one sentence naming openssl, exit 4, nothing listening', async () => {
  const result = await runToEnd({
    args: [SPEAKCHECK_BIN, 'serve', '--port', '0', '--workers', '0', '--tls'],
    cwd: REPO_ROOT,
    timeoutMs: 60_000,
    env: { ...process.env, PATH: '/nonexistent' },
  });
  expect(result.code).toBe(EXIT.toolMissing);
  expect(result.stderr).toMatch(
    /^speakcheck serve: could not start: --tls needs the openssl command-line tool/m,
  );
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).not.toContain('base_url=');
});

describe('serve --latitude hosted-latency', () => {
  let stack: DefectiveStack;
  beforeAll(async () => {
    stack = await startDefectiveStack([], ['--workers', '1', '--latitude', 'hosted-latency']);
  }, 130_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('login takes 150 ms, another request 30–80 ms (generous upper bounds)', async () => {
    const c = client(stack);
    let t0 = performance.now();
    await login(c, stack);
    const loginMs = performance.now() - t0;
    t0 = performance.now();
    expect((await c.json('GET', '/v1/speak/version')).status).toBe(200);
    const versionMs = performance.now() - t0;
    expect(loginMs).toBeGreaterThanOrEqual(HOSTED_FIGURES.authMs - 1);
    expect(loginMs).toBeLessThan(2000);
    expect(versionMs).toBeGreaterThanOrEqual(HOSTED_FIGURES.requestMs[0] - 1);
    expect(versionMs).toBeLessThan(2000);
  });

  test('a voice waits 2–4 s and is ready no sooner than 5 s; a take is queued, then paced per part', async () => {
    const c = client(stack);
    const token = await login(c, stack);
    const created = Date.now();
    const voice = await c.json('POST', '/v1/speak/voices/generate', { token, body: VOICE });
    expect(voice.body.status).toBe('waiting');
    await pollStatus(c, token, `/v1/speak/voices/${voice.body.voice_id}`, 'ready', 30_000);
    expect(Date.now() - created).toBeGreaterThanOrEqual(HOSTED_FIGURES.voiceReadyAfterMs);

    const text = 'One sentence. Another sentence. A third sentence.';
    const take = await c.json('POST', '/v1/speak/takes/generate', {
      token,
      body: { voice_id: voice.body.voice_id, text },
    });
    const seen = await pollStatus(c, token, `/v1/speak/takes/${take.body.take_id}`, 'ready', 30_000);
    const at = (status: string) => seen.find((s) => s.status === status)?.atMs;
    // Queued 0.3–0.8 s (the poll sees `started` a little after), three parts of 0.5–0.7 s each.
    expect(at('started'), JSON.stringify(seen)).toBeGreaterThanOrEqual(HOSTED_FIGURES.takeQueuedMs[0] - 100);
    expect(at('ready')! - at('started')!, JSON.stringify(seen)).toBeGreaterThanOrEqual(
      3 * HOSTED_FIGURES.partMs[0] - 150,
    );
    expect(at('ready'), JSON.stringify(seen)).toBeLessThan(15_000);
  }, 60_000);
});

describe('serve --latitude rate-limit --rate-limit-rps 2 --rate-limit-burst 4', () => {
  let stack: DefectiveStack;
  beforeAll(async () => {
    stack = await startDefectiveStack(
      [],
      ['--workers', '0', '--latitude', 'rate-limit', '--rate-limit-rps', '2', '--rate-limit-burst', '4'],
    );
  }, 130_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('429 + Retry-After + detail past the burst, per token, and recovery after Retry-After', async () => {
    const c = client(stack);
    const token = await login(c, stack);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await c.json('GET', '/v1/speak/models', { token })).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const refused = await c.json('GET', '/v1/speak/models', { token });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'Rate limit exceeded, retry later' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect((await c.json('GET', '/v1/speak/models', { token })).status).toBe(200);
  });
});
