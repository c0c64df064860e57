/**
 * The embedded reference stack is a child process that is always stopped: by stop(), and when a
 * run is interrupted with SIGINT.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, test } from 'vitest';
import { closeHttp, send } from '../../src/client/http.ts';
import { REPO_ROOT, startEmbeddedStack } from '../../src/stack/embedded.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('embedded stack', () => {
  test('starts, answers on loopback, and is gone after stop()', { timeout: 90_000 }, async () => {
    const stack = await startEmbeddedStack({ readyTimeoutMs: 60_000 });
    try {
      expect(stack.baseUrl).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+$/);
      expect(stack.email).toMatch(/@/);
      expect(stack.password.length).toBeGreaterThan(0);
      const version = await send({
        method: 'GET',
        url: `${stack.baseUrl}/v1/speak/version`,
        timeoutMs: 5_000,
      });
      expect(version.status).toBe(200);
    } finally {
      await stack.stop();
      await closeHttp();
    }
    expect(alive(stack.pid)).toBe(false);
  });

  test('SIGINT during a run stops the stack and exits 130', { timeout: 200_000 }, async () => {
    const run = spawn(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'speakcheck.js'), 'run', '--only', 'version'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          SPEAKCHECK_RUN_CONFIG: '',
          SPEAK_REPORT_DIR: join(tmpdir(), 'speakcheck-sigint-test'),
        },
      },
    );
    const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    // The run prints the stack's address once it is up and preflighted.
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the run did not start testing within 150 s')),
        150_000,
      );
      createInterface({ input: run.stdout }).on('line', (line) => {
        const match = /testing (http:\/\/\S+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!.replace(/,$/, ''));
        }
      });
    });
    run.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000)),
    ]);
    if (code === 'hung') run.kill('SIGKILL');
    expect(code).toBe(130);
    const after = await send({ method: 'GET', url: `${baseUrl}/v1/speak/version`, timeoutMs: 2_000 }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await closeHttp();
    expect(after).toMatch(/connection refused/);
  });
});
