/**
 * AUTH-EXPIRED-TOKEN-401 is skipped against a server whose access tokens live long (the default
 * 900 s); this proves the auth suite really verifies it when they are short: the reference stack
 * started with --access-token-ttl 5, the auth area run against it as a remote server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RunResult, readVerdicts, speakcheckRun, type Verdict } from '../harness/speakcheck-run.ts';
import { type Stack, startStack } from '../reference/stack.ts';

let stack: Stack | undefined;
let reportDir: string;
let run: RunResult;
let verdicts: Map<string, Verdict>;

beforeAll(async () => {
  stack = await startStack(['--access-token-ttl', '5']);
  reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-expiry-'));
  const { baseUrl, email, password } = stack;
  run = await speakcheckRun(
    ['--base-url', baseUrl, '--email', email, '--only', 'auth', '--report-dir', reportDir],
    { env: { SPEAK_PASSWORD: password } },
  );
  verdicts = readVerdicts(reportDir);
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
