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
import type { FakeServer } from '../support/fake-server.ts';
import { type Later, postHook, startFakeSpeakServer } from '../support/fake-speak-server.ts';
import { readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

const EMAIL = 'late-hooks@example.test';
const PASSWORD = 'late-hooks-password-123';
/** Past the webhooks file's wait (ARRIVAL_BOUND_MS, 10 s), within the end of the run's (30 s). */
const DONE_DELAY_MS = 12_000;
const IDS = ['WEBHOOK-DONE-CALLED', 'WEBHOOK-VOICE-DONE'];

/** A right server whose done calls come `doneDelayMs` after ready (null: never). */
function startServer(doneDelayMs: number | null): Promise<FakeServer> {
  const done = (item: Record<string, unknown>, later: Later) => {
    if (doneDelayMs !== null) later(doneDelayMs, () => postHook(item.done_webhook, item));
  };
  return startFakeSpeakServer({
    email: EMAIL,
    password: PASSWORD,
    hooks: {
      takeAdvanced(take, status, later) {
        postHook(take.body.status_webhook, take.body);
        if (status === 'ready') done(take.body, later);
      },
      voiceMade: done,
    },
  });
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
