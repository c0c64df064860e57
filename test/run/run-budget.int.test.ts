/**
 * The run budget (`speakcheck run --max-time S`) and Ctrl-C against a server that answers the
 * preflight and then hangs every request the suites make (each request's own bound is set far
 * beyond the budget): the run stops waiting when the budget runs out (or at SIGINT), marks what
 * has not finished "not concluded", still writes every report and exits 1, within the budget plus
 * the time to conclude. Spawns real suites (vitest workers): run it under the heavy lock.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';

const BUDGET_S = 20;
/** After the budget: concluding, writing the reports, closing vitest (bounded at 5 s), exiting. */
const CONCLUDE_SLACK_MS = 12_000;

let server: FakeServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  reportDir: string;
}

/** `speakcheck run` against the hanging server; `interruptAfterMs`: send SIGINT then. */
async function runAgainstHangingServer(args: string[], interruptAfterMs?: number): Promise<Run> {
  server = await startFakeSpeak({ hangAfterPreflight: true });
  const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-budget-'));
  dirs.push(reportDir);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [
        join(REPO_ROOT, 'bin', 'speakcheck.js'),
        'run',
        '--base-url',
        server!.url,
        '--email',
        FAKE_EMAIL,
        '--report-dir',
        reportDir,
        '--only',
        'voices,takes,audio,websocket',
        // Every single wait far beyond the budget: only the budget can end the run in time.
        '--request-timeout',
        '300000',
        '--ready-timeout',
        '300000',
        ...args,
      ],
      {
        cwd: REPO_ROOT,
        timeout: 120_000,
        env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '', SPEAK_PASSWORD: FAKE_PASSWORD },
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({
          code: typeof code === 'number' ? code : null,
          stdout,
          stderr,
          ms: Date.now() - started,
          reportDir,
        });
      },
    );
    if (interruptAfterMs !== undefined) {
      // Once the suites run (their start is announced), wait, then Ctrl-C.
      let sent = false;
      child.stdout?.on('data', (text: string) => {
        if (sent || !String(text).includes('speakcheck: testing')) return;
        sent = true;
        setTimeout(() => child.kill('SIGINT'), interruptAfterMs);
      });
    }
  });
}

function expectStoppedRun(run: Run, reason: RegExp): void {
  const output = `${run.stderr}\n${run.stdout}`.slice(-4000);
  expect(run.code, output).toBe(1);
  expect(run.stderr, output).toMatch(reason);
  for (const file of ['conformance.json', 'conformance.md', 'conformance.html', 'junit.xml'])
    expect(existsSync(join(run.reportDir, file)), `${file}\n${output}`).toBe(true);
  const report = JSON.parse(readFileSync(join(run.reportDir, 'conformance.json'), 'utf8')) as {
    summary: { notConcluded: number; passed: number };
    run: { exitCode: number; errors: string[] };
    requirements: Array<{ id: string; status: string; message: string }>;
  };
  expect(report.run.exitCode).toBe(1);
  expect(report.run.errors.join(' ')).toMatch(/The run was stopped/);
  const notConcluded = report.requirements.filter((r) => r.status === 'not-concluded');
  expect(notConcluded.length, output).toBeGreaterThan(0);
  expect(report.summary.notConcluded).toBe(notConcluded.length);
  expect(notConcluded[0]!.message).toMatch(/^Not concluded \(timeout\)/);
  // Nothing was concluded from requests that never got an answer.
  expect(report.requirements.filter((r) => r.status === 'passed').map((r) => r.id)).toEqual([]);
}

describe('run budget against a server that hangs everything after the preflight', () => {
  test(`--max-time ${BUDGET_S}: stops, writes every report, exits 1 within the budget`, async () => {
    const run = await runAgainstHangingServer(['--max-time', String(BUDGET_S)]);
    process.stdout.write(
      `run budget ${BUDGET_S} s: exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s\n`,
    );
    expectStoppedRun(run, /run budget of 20 s \(--max-time\) ran out/);
    expect(run.ms).toBeLessThan(BUDGET_S * 1000 + CONCLUDE_SLACK_MS);
  }, 150_000);

  test('Ctrl-C (SIGINT) while the suites run does the same', async () => {
    const run = await runAgainstHangingServer(['--max-time', '600'], 5_000);
    process.stdout.write(`SIGINT: exit ${run.code} after ${(run.ms / 1000).toFixed(1)} s\n`);
    expectStoppedRun(run, /SIGINT \(interrupted\)/);
    expect(run.ms).toBeLessThan(60_000);
  }, 150_000);
});
