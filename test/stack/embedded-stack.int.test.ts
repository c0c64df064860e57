/**
 * The embedded reference stack is a child process that is always stopped: by stop(), when a run is
 * interrupted with SIGINT, and when the run is killed outright (nothing it started outlives it).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** The direct children of a process (Linux /proc), with their command lines. */
function childrenOf(pid: number): { pid: number; command: string }[] {
  const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return listed
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .map((child) => {
      let command = '';
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {}
      return { pid: child, command };
    });
}

/** Resolves when `probe` holds; polls (a process's end is no event here), bounded. */
async function eventually(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `speakcheck run --only <areas>` as a user starts it, reports in a temporary directory. */
function spawnRun(areas: string, reportDirName: string, output: 'pipe' | 'ignore') {
  return spawn(process.execPath, [join(REPO_ROOT, 'bin', 'speakcheck.js'), 'run', '--only', areas], {
    cwd: REPO_ROOT,
    stdio: ['ignore', output, output],
    env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '', SPEAK_REPORT_DIR: join(tmpdir(), reportDirName) },
  });
}

/** The base URL the run tests: it prints it once its stack is up and preflighted, as the suites start. */
function testingStarted(run: ReturnType<typeof spawnRun>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the run did not start testing within 150 s')), 150_000);
    createInterface({ input: run.stdout! }).on('line', (line) => {
      const match = /testing (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/,$/, ''));
      }
    });
  });
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

  test('SIGINT during a run stops the stack (exit 130 before the suites start, 1 after)', {
    timeout: 200_000,
  }, async () => {
    const run = spawnRun('version', 'speakcheck-sigint-test', 'pipe');
    const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    const baseUrl = await testingStarted(run);
    run.kill('SIGINT');
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000)),
    ]);
    if (code === 'hung') run.kill('SIGKILL');
    // 130 when the signal lands before the suites start (vitest still loading), 1 once they run
    // (the run stops waiting, concludes and writes its reports: test/run/run-budget.int.test.ts).
    // Either way the stack must be gone, which is what this test is about.
    expect([1, 130]).toContain(code);
    const after = await send({ method: 'GET', url: `${baseUrl}/v1/speak/version`, timeoutMs: 2_000 }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await closeHttp();
    expect(after).toMatch(/connection refused/);
  });

  test('a run killed with SIGKILL leaves nothing behind: the stack and its workers exit', {
    timeout: 200_000,
  }, async () => {
    const run = spawnRun('websocket,takes', 'speakcheck-sigkill-test', 'pipe');
    const exited = new Promise<void>((resolve) => run.once('exit', () => resolve()));
    // Mid-run: the stack is up and preflighted, the suites (threads of the run itself) start.
    await testingStarted(run);
    const stack = childrenOf(run.pid!).filter((c) => c.command.includes(' serve '));
    expect(stack, 'the run started its stack as a child process').toHaveLength(1);
    const children = [...stack, ...childrenOf(stack[0]!.pid)];
    expect(
      children.some((c) => c.command.includes('worker-main')),
      "the run's stack runs its synthesis worker as a thread of its own process (serve --worker-threads)",
    ).toBe(false);
    run.kill('SIGKILL');
    await exited;
    await eventually(
      `everything the run started to exit (${children.map((c) => c.command).join('; ')})`,
      () => children.every((c) => !alive(c.pid)),
      10_000,
    ).finally(() => {
      for (const c of children) if (alive(c.pid)) process.kill(c.pid, 'SIGKILL');
    });
  });
});
