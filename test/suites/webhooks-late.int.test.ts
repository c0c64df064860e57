/**
 * A done call is judged on whether it comes, not how soon: the contract says "When the result is
 * ready, the service sends an HTTP POST to that URL" and gives no time. A small fake Speak server
 * (loopback) whose takes and voices are right in every way but one: their done webhook is sent
 * DONE_DELAY_MS after ready (a hosted server's queue), past the webhooks file's 10 s wait, or never.
 * `speakcheck run --requirement WEBHOOK-DONE-CALLED,WEBHOOK-VOICE-DONE` against it: late, both pass
 * (judged at the end of the run, suites/webhooks-settled.spec.ts); never, both fail there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';
import { readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

const EMAIL = 'late-hooks@example.test';
const PASSWORD = 'late-hooks-password-123';
/** Past the webhooks file's wait (ARRIVAL_BOUND_MS, 10 s), within the end of the run's (30 s). */
const DONE_DELAY_MS = 12_000;
const IDS = ['WEBHOOK-DONE-CALLED', 'WEBHOOK-VOICE-DONE'];

function post(url: unknown, body: unknown): void {
  if (typeof url !== 'string' || !url.startsWith('http://127.0.0.1:')) return; // loopback only
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
}

/** A right server whose done calls come `doneDelayMs` after ready (null: never). */
async function startServer(doneDelayMs: number | null): Promise<FakeServer> {
  const items = new Map<string, Record<string, unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  let counter = 0;
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const done = (item: Record<string, unknown>) => {
    if (doneDelayMs !== null) later(doneDelayMs, () => post(item.done_webhook, item));
  };
  const take = (body: Record<string, unknown>, id: string, status: string) => ({
    take_id: id,
    voice_id: body.voice_id ?? null,
    text: body.text ?? 'Example.',
    override_language: null,
    style: null,
    prosody: null,
    status_webhook: body.status_webhook ?? null,
    done_webhook: body.done_webhook ?? null,
    status,
    timestamp_ms: Date.now(),
    info:
      status === 'ready'
        ? { duration: 22050, audio_rate: 22050, normalized_text: [String(body.text ?? 'Example.')] }
        : null,
  });
  const server = await startFakeServer((req, res) => {
    const path = new URL(req.url, 'http://fake').pathname;
    if (path === '/v1/speak/version') return sendJson(res, 200, { version: 1, minor: 0 });
    if (path === '/auth/login') {
      const body = JSON.parse(req.body || '{}') as { email?: string; password?: string };
      if (body.email !== EMAIL || body.password !== PASSWORD) return sendJson(res, 401, { detail: 'no' });
      return sendJson(res, 200, { access_token: 'fake-late-access', refresh_token: 'fake-late-refresh' });
    }
    if (path.startsWith('/signed/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.alloc(200, 1));
    }
    if (req.headers.authorization !== 'Bearer fake-late-access')
      return sendJson(res, 401, { detail: 'token' });
    if (path === '/v1/speak/models')
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
    const body = JSON.parse(req.body || '{}') as Record<string, unknown>;
    if (req.method === 'POST' && path === '/v1/speak/voices/generate') {
      const id = `voice-${++counter}`;
      const exampleId = `example-${counter}`;
      items.set(exampleId, take({ voice_id: id }, exampleId, 'ready'));
      const voice = {
        voice_id: id,
        name: body.name,
        model: 'fake-1',
        gender: 'female',
        default_style: null,
        default_prosody: null,
        example_take_id: exampleId,
        example_take: null,
        status_webhook: body.status_webhook ?? null,
        done_webhook: body.done_webhook ?? null,
        status: 'ready',
        timestamp_ms: Date.now(),
      };
      items.set(id, voice);
      done(voice);
      return sendJson(res, 200, voice);
    }
    if (req.method === 'POST' && path === '/v1/speak/takes/generate') {
      const id = `take-${++counter}`;
      items.set(id, take(body, id, 'waiting'));
      for (const [ms, status] of [
        [100, 'started'],
        [200, 'progress_50'],
        [300, 'ready'],
      ] as const)
        later(ms, () => {
          const now = take(body, id, status);
          items.set(id, now);
          post(now.status_webhook, now);
          if (status === 'ready') done(now);
        });
      return sendJson(res, 200, items.get(id));
    }
    const item = /^\/v1\/speak\/(?:takes|voices)\/([^/]+)(?:\/([a-z0-9]+))?$/.exec(path);
    if (item) {
      const [, id, format] = item as unknown as [string, string, string | undefined];
      if (req.method === 'DELETE') return sendJson(res, 200, true);
      const found = items.get(id);
      if (!found) return sendJson(res, 404, { detail: 'not found' });
      if (format) {
        res.writeHead(307, {
          location: `http://${req.headers.host}/signed/${id}.${format}?X-Amz-Signature=abc`,
        });
        return res.end();
      }
      return sendJson(res, 200, found);
    }
    return sendJson(res, 404, { detail: `no route ${path}` });
  });
  return {
    ...server,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function judged(doneDelayMs: number | null) {
  const server = await startServer(doneDelayMs);
  const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-webhooks-late-'));
  cleanups.push(
    () => server.close(),
    () => rmSync(reportDir, { recursive: true, force: true }),
  );
  const run = await speakcheckRun(
    [
      ...['--base-url', server.url, '--email', EMAIL, '--requirement', IDS.join(',')],
      ...['--ready-timeout', '10000', '--report-dir', reportDir],
    ],
    { env: { SPEAK_PASSWORD: PASSWORD, SPEAKCHECK_SUITES: 'suites/webhooks*.spec.ts' } },
  );
  return { run, verdicts: readVerdicts(reportDir) };
}

describe('a done webhook is judged on whether it comes, not how soon', () => {
  it(`sent ${DONE_DELAY_MS / 1000} s after ready: passed at the end of the run`, async () => {
    const { run, verdicts } = await judged(DONE_DELAY_MS);
    for (const id of IDS)
      expect(verdicts.get(id)?.status, `${id}: ${verdicts.get(id)?.message}\n${run.stdout}`).toBe('passed');
    expect(run.code, run.stdout + run.stderr).toBe(0);
  }, 120_000);

  it('never sent: failed at the end of the run, as never called', async () => {
    const { run, verdicts } = await judged(null);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    for (const id of IDS) {
      expect(verdicts.get(id)?.status, `${id}: ${verdicts.get(id)?.message}`).toBe('failed');
      expect(verdicts.get(id)?.message).toMatch(/done_webhook was never called: none arrived in the \d+ s/);
    }
  }, 120_000);
});
