/**
 * testcontainers is an optional peer dependency: an installed speakcheck may lack it. Then every
 * `--target container` command (run, serve, load) says so in one sentence and exits non-zero, with
 * no stack trace and no container started. The child resolves as if the package were not installed
 * (fixtures/no-testcontainers: a resolve hook failing exactly as Node does for a missing package).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const HIDE = join(REPO_ROOT, 'test', 'harness', 'fixtures', 'no-testcontainers', 'register.mjs');
const SENTENCE =
  '--target container needs the testcontainers package, which is not installed: npm install testcontainers@^11';

function speakcheckWithoutTestcontainers(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', HIDE, join(REPO_ROOT, 'bin', 'speakcheck.js'), ...args],
      { cwd: REPO_ROOT, timeout: 60_000, env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '' } },
      (error, _stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ code: typeof code === 'number' ? code : null, stderr });
      },
    );
  });
}

describe('--target container without testcontainers installed', { timeout: 70_000 }, () => {
  test.each([
    ['run', ['run', '--target', 'container'], 3],
    ['serve', ['serve', '--target', 'container'], 3],
    ['load', ['load', 'ttfb-wav', '--target', 'container'], 3],
  ])('%s says what to install in one sentence', async (_name, args, exitCode) => {
    const result = await speakcheckWithoutTestcontainers(args as string[]);
    expect(result.code, result.stderr).toBe(exitCode);
    const lines = result.stderr.split('\n').filter((line) => line.includes(SENTENCE));
    expect(lines, result.stderr).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
