/**
 * The webhooks suite must catch a server that gets webhooks wrong. A small fake Speak server
 * (loopback) serves takes that become ready on a timer and calls their hooks with three faults:
 * the done hook twice, a status call after `ready` going backwards, and a done body whose info
 * differs from GET. `speakcheck run --only webhooks` against it must fail exactly those requirements
 * and pass the ones the fake gets right.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';
import { type RunResult, readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

const EMAIL = 'hooks@example.test';
const PASSWORD = 'hooks-password-123';

interface FakeTake {
  body: Record<string, unknown>;
  /** What GET shows once ready. */
  readyInfo: Record<string, unknown>;
}

function post(url: unknown, body: unknown): void {
  if (typeof url !== 'string' || !url.startsWith('http://127.0.0.1:')) return; // loopback only
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
}

function startFaultyWebhookServer(): Promise<FakeServer> {
  const takes = new Map<string, FakeTake>();
  const voices = new Map<string, Record<string, unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const advance = (take: FakeTake, status: string) => {
    take.body.status = status;
    if (status === 'ready') take.body.info = take.readyInfo;
    post(take.body.status_webhook, take.body);
    if (status === 'ready') {
      // Faults: the done body's info differs from GET, the done hook is called twice, and a stale
      // status call arrives after ready.
      const doneBody = { ...take.body, info: { ...take.readyInfo, duration: 1 } };
      post(take.body.done_webhook, doneBody);
      later(200, () => post(take.body.done_webhook, doneBody));
      later(100, () => post(take.body.status_webhook, { ...take.body, status: 'progress_50', info: null }));
    }
  };
  return startFakeServer((req, res) => {
    const url = new URL(req.url, 'http://fake');
    const path = url.pathname;
    if (path === '/v1/speak/version') return sendJson(res, 200, { version: 1, minor: 0 });
    if (path === '/auth/login') {
      const body = JSON.parse(req.body || '{}') as { email?: string; password?: string };
      if (body.email !== EMAIL || body.password !== PASSWORD) return sendJson(res, 401, { detail: 'no' });
      return sendJson(res, 200, { access_token: 'fake-hooks-access', refresh_token: 'fake-hooks-refresh' });
    }
    if (path.startsWith('/signed/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.alloc(200, 1));
    }
    if (req.headers.authorization !== 'Bearer fake-hooks-access')
      return sendJson(res, 401, { detail: 'token' });
    if (path === '/v1/speak/models') {
      return sendJson(res, 200, [
        {
          name: 'fake-1',
          displayname: 'Fake',
          flags: [],
          languages: ['en-US'],
          genders: ['female'],
          styles: [],
          prosody_types: ['simple'],
        },
      ]);
    }
    if (req.method === 'POST' && path === '/v1/speak/voices/generate') {
      const body = JSON.parse(req.body || '{}') as Record<string, unknown>;
      const voice = {
        voice_id: `voice-${++counter}`,
        name: body.name,
        model: 'fake-1',
        gender: 'female',
        default_style: null,
        default_prosody: null,
        example_take_id: `example-${counter}`,
        example_take: null,
        status_webhook: body.status_webhook ?? null,
        done_webhook: body.done_webhook ?? null,
        status: 'ready',
        timestamp_ms: Date.now(),
      };
      voices.set(voice.voice_id, voice);
      takes.set(voice.example_take_id, {
        body: {
          take_id: voice.example_take_id,
          voice_id: voice.voice_id,
          text: 'Example.',
          override_language: null,
          style: null,
          prosody: null,
          status_webhook: null,
          done_webhook: null,
          status: 'ready',
          timestamp_ms: Date.now(),
          info: { duration: 22050, audio_rate: 22050, normalized_text: ['Example.'] },
        },
        readyInfo: {},
      });
      later(50, () => post(voice.done_webhook, voice));
      return sendJson(res, 200, voice);
    }
    if (req.method === 'POST' && path === '/v1/speak/takes/generate') {
      const body = JSON.parse(req.body || '{}') as Record<string, unknown>;
      const take: FakeTake = {
        body: {
          take_id: `take-${++counter}`,
          voice_id: body.voice_id,
          text: body.text,
          override_language: null,
          style: null,
          prosody: null,
          status_webhook: body.status_webhook ?? null,
          done_webhook: body.done_webhook ?? null,
          status: 'waiting',
          timestamp_ms: Date.now(),
          info: null,
        },
        readyInfo: { duration: 22050, audio_rate: 22050, normalized_text: [String(body.text)] },
      };
      takes.set(String(take.body.take_id), take);
      later(100, () => advance(take, 'started'));
      later(200, () => advance(take, 'progress_50'));
      later(300, () => advance(take, 'ready'));
      return sendJson(res, 200, take.body);
    }
    const item = /^\/v1\/speak\/(takes|voices)\/([^/]+)(?:\/([a-z0-9]+))?$/.exec(path);
    if (item) {
      const [, kind, id, format] = item as unknown as [string, string, string, string | undefined];
      if (req.method === 'DELETE') return sendJson(res, 200, true);
      if (kind === 'voices') {
        const voice = voices.get(id);
        return voice ? sendJson(res, 200, voice) : sendJson(res, 404, { detail: 'no voice' });
      }
      const take = takes.get(id);
      if (!take) return sendJson(res, 404, { detail: 'no take' });
      if (format) {
        res.writeHead(307, {
          location: `http://${req.headers.host}/signed/${id}.${format}?X-Amz-Signature=abc`,
        });
        return res.end();
      }
      return sendJson(res, 200, take.body);
    }
    return sendJson(res, 404, { detail: `no route ${path}` });
  }).then((server) => ({
    ...server,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  }));
}

let server: FakeServer;
let reportDir: string;

beforeAll(async () => {
  server = await startFaultyWebhookServer();
  reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-webhook-faults-'));
});
afterAll(async () => {
  await server.close();
  rmSync(reportDir, { recursive: true, force: true });
});

function runWebhooksSuite(): Promise<RunResult> {
  return speakcheckRun(
    [
      '--base-url',
      server.url,
      '--email',
      EMAIL,
      '--only',
      'webhooks',
      '--ready-timeout',
      '10000',
      '--report-dir',
      reportDir,
    ],
    { env: { SPEAK_PASSWORD: PASSWORD, SPEAKCHECK_SUITES: 'suites/webhooks*.spec.ts' } },
  );
}

it('fails the requirements a faulty server breaks and passes the ones it keeps', async () => {
  const { code, stdout, stderr } = await runWebhooksSuite();
  expect(code, stdout + stderr).toBe(1);
  const verdicts = readVerdicts(reportDir);
  const status = (id: string) => verdicts.get(id)?.status;
  const message = (id: string) => verdicts.get(id)?.message ?? '';
  expect(status('WEBHOOK-DONE-ONCE'), message('WEBHOOK-DONE-ONCE')).toBe('failed');
  expect(message('WEBHOOK-DONE-ONCE')).toMatch(/called 2 times/);
  expect(status('WEBHOOK-STATUS-ORDERED')).toBe('failed');
  expect(message('WEBHOOK-STATUS-ORDERED')).toMatch(/left the done state "ready" for "progress_50"/);
  expect(status('WEBHOOK-DONE-BODY-EQUALS-GET')).toBe('failed');
  expect(message('WEBHOOK-DONE-BODY-EQUALS-GET')).toMatch(/\/info\/duration: webhook 1, GET 22050/);
  for (const kept of [
    'WEBHOOK-DONE-CALLED',
    'WEBHOOK-POST-JSON',
    'WEBHOOK-DONE-BODY-TAKE',
    'WEBHOOK-VOICE-DONE',
  ]) {
    expect(status(kept), `${kept}: ${message(kept)}`).toBe('passed');
  }
}, 160_000);
