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
import type { FakeServer } from '../support/fake-server.ts';
import { postHook, startFakeSpeakServer } from '../support/fake-speak-server.ts';
import { type RunResult, readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

const EMAIL = 'hooks@example.test';
const PASSWORD = 'hooks-password-123';

function startFaultyWebhookServer(): Promise<FakeServer> {
  return startFakeSpeakServer({
    email: EMAIL,
    password: PASSWORD,
    hooks: {
      takeAdvanced(take, status, later) {
        postHook(take.body.status_webhook, take.body);
        if (status !== 'ready') return;
        // Faults: the done body's info differs from GET, the done hook is called twice, and a stale
        // status call arrives after ready.
        const doneBody = { ...take.body, info: { ...take.readyInfo, duration: 1 } };
        postHook(take.body.done_webhook, doneBody);
        later(200, () => postHook(take.body.done_webhook, doneBody));
        later(100, () =>
          postHook(take.body.status_webhook, { ...take.body, status: 'progress_50', info: null }),
        );
      },
      voiceMade(voice, later) {
        later(50, () => postHook(voice.done_webhook, voice));
      },
    },
  });
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
