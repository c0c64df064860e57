/**
 * AUTH-EXPIRED-TOKEN-401 is skipped against a server whose access tokens live long (the default
 * 900 s); this proves the auth suite really verifies it when they are short: the reference stack
 * started with --access-token-ttl 5, the auth area run against it as a remote server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import { type Stack, startStack } from '../reference/stack.ts';

let stack: Stack | undefined;
let reportDir: string;
let run: { code: number | null; stdout: string; stderr: string };
let verdicts: Map<string, { status: string; message?: string }>;

beforeAll(async () => {
  stack = await startStack(['--access-token-ttl', '5']);
  reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-expiry-'));
  const { baseUrl, email, password } = stack;
  run = await new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(REPO_ROOT, 'bin', 'speakcheck.js'),
        'run',
        '--base-url',
        baseUrl,
        '--email',
        email,
        '--only',
        'auth',
        '--report-dir',
        reportDir,
      ],
      {
        cwd: REPO_ROOT,
        timeout: 150_000,
        env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '', SPEAK_PASSWORD: password },
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
      },
    );
  });
  const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
    requirements: Array<{ id: string; status: string; message?: string }>;
  };
  verdicts = new Map(report.requirements.map((r) => [r.id, r]));
}, 200_000);

afterAll(async () => {
  await stack?.stop();
  if (reportDir) rmSync(reportDir, { recursive: true, force: true });
});

test('with 5 s access tokens the expired-token requirement is verified and passes', () => {
  expect(run.code, run.stderr + run.stdout).toBe(0);
  expect(verdicts.get('AUTH-EXPIRED-TOKEN-401')?.status).toBe('passed');
  expect(verdicts.get('AUTH-ACCESS-LIFETIME')?.message).toMatch(/living 5 s/);
});
