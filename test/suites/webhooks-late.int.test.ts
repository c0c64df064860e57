/**
 * A webhook call is judged on whether it comes, not how soon: the contract says "When the result is
 * ready, the service sends an HTTP POST to that URL" and that the status_webhook "is called ... each
 * time the take's progress changes", and gives neither a time ("Delivery details of webhooks (...
 * timeouts): not shown"). A small fake Speak server (loopback) whose takes and voices are right in
 * every way but one: every hook call is sent DELAY_MS after it was due (a hosted server's queue),
 * past the webhooks file's wait, or the done calls and the status call for ready are never sent.
 * `speakcheck run --requirement` WEBHOOK-DONE-CALLED, WEBHOOK-VOICE-DONE, WEBHOOK-STATUS-AGREES-POLLING,
 * WEBHOOK-STATUS-CALLED
 * against it: late, all pass (judged at the end of the run, suites/webhooks-settled.spec.ts); never,
 * all fail there, as never called or never reported. The done call's body (WEBHOOK-DONE-BODY-TAKE,
 * -EQUALS-GET) is judged only on a call that came within the file's wait: late, not observed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeSpeakHooks, postHook, startFakeSpeakServer } from '../support/fake-speak-server.ts';
import { readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

const EMAIL = 'late-hooks@example.test';
const PASSWORD = 'late-hooks-password-123';
/** Past the webhooks file's wait (ARRIVAL_BOUND_MS, 10 s), within the end of the run's (30 s). */
const DELAY_MS = 12_000;
/** Each status of a take lasts longer than the run's longest poll interval (300 ms): polled in progress. */
const STEP_MS = 400;
const DONE_IDS = ['WEBHOOK-DONE-CALLED', 'WEBHOOK-VOICE-DONE'];
/** A status polled, and the done status the take ended with, each reported by a status call. */
const STATUS_IDS = ['WEBHOOK-STATUS-AGREES-POLLING', 'WEBHOOK-STATUS-CALLED'];
/**
 * Judged on a done call's body: with none come while the webhooks file waited, nothing was seen, so
 * not a pass (a check looping over no call once passed them) and no failure either.
 */
const BODY_IDS = ['WEBHOOK-DONE-BODY-TAKE', 'WEBHOOK-DONE-BODY-EQUALS-GET'];

/** Every call DELAY_MS after it was due, carrying the item as it was then. */
const late: FakeSpeakHooks = {
  takeAdvanced(take, status, later) {
    const body = { ...take.body };
    later(DELAY_MS, () => postHook(body.status_webhook, body));
    if (status === 'ready') later(DELAY_MS, () => postHook(body.done_webhook, body));
  },
  voiceMade(voice, later) {
    later(DELAY_MS, () => postHook(voice.done_webhook, voice));
  },
};

/** No done call, and no status call for ready; the status calls for started and progress_50 on time. */
const never: FakeSpeakHooks = {
  takeAdvanced(take, status) {
    if (status !== 'ready') postHook(take.body.status_webhook, take.body);
  },
  voiceMade() {},
};

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function judged(hooks: FakeSpeakHooks) {
  const server = await startFakeSpeakServer({ email: EMAIL, password: PASSWORD, hooks, stepMs: STEP_MS });
  const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-webhooks-late-'));
  cleanups.push(
    () => server.close(),
    () => rmSync(reportDir, { recursive: true, force: true }),
  );
  const ids = [...DONE_IDS, ...STATUS_IDS, ...BODY_IDS];
  const run = await speakcheckRun(
    [
      ...['--base-url', server.url, '--email', EMAIL, '--requirement', ids.join(',')],
      ...['--ready-timeout', '10000', '--report-dir', reportDir],
    ],
    { env: { SPEAK_PASSWORD: PASSWORD, SPEAKCHECK_SUITES: 'suites/webhooks*.spec.ts' } },
  );
  return { run, verdicts: readVerdicts(reportDir) };
}

describe('a webhook call is judged on whether it comes, not how soon', () => {
  it(`sent ${DELAY_MS / 1000} s after it was due: passed at the end of the run`, async () => {
    const { run, verdicts } = await judged(late);
    for (const id of [...DONE_IDS, ...STATUS_IDS])
      expect(verdicts.get(id)?.status, `${id}: ${verdicts.get(id)?.message}\n${run.stdout}`).toBe('passed');
    for (const id of BODY_IDS) {
      expect(verdicts.get(id)?.status, `${id}: ${verdicts.get(id)?.message}`).toBe('not-observed');
      expect(verdicts.get(id)?.message).toMatch(/no done call within 10 s of it being seen done/);
    }
    expect(run.code, run.stdout + run.stderr).toBe(0);
  }, 120_000);

  it('never sent: failed at the end of the run, as never called or never reported', async () => {
    const { run, verdicts } = await judged(never);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    for (const id of DONE_IDS) {
      expect(verdicts.get(id)?.status, `${id}: ${verdicts.get(id)?.message}`).toBe('failed');
      expect(verdicts.get(id)?.message).toMatch(/done_webhook was never called: none arrived in the \d+ s/);
    }
    const seenBy = {
      'WEBHOOK-STATUS-AGREES-POLLING': 'polling saw',
      'WEBHOOK-STATUS-CALLED': 'the take ended',
    };
    for (const [id, seen] of Object.entries(seenBy)) {
      expect(verdicts.get(id)?.status, verdicts.get(id)?.message).toBe('failed');
      expect(verdicts.get(id)?.message).toMatch(
        new RegExp(
          `${seen} \\["ready"\\] but no status call reported it \\(called: \\["started","progress_50"\\]\\) in the \\d+ s from when the take was seen done`,
        ),
      );
    }
  }, 120_000);
});
