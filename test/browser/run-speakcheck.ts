/**
 * Runs `node bin/speakcheck.js ...` as a child process, as a person would, without blocking the
 * test worker (a synchronous child starves vitest's RPC during a minute-long run). Bounded: the
 * child is sent SIGTERM at the deadline, SIGKILL 5 s later, and always awaited.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

export interface CliResult {
  /** Exit code, or the signal's name when the child was killed. */
  code: number | string;
  output: string;
}

export async function runSpeakcheck(args: string[], timeoutMs: number): Promise<CliResult> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'speakcheck.js'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  let killTimer: NodeJS.Timeout | undefined;
  const deadline = setTimeout(() => {
    output += `\n[speakcheck ${args[0]} did not finish within ${timeoutMs} ms: stopped]`;
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  }, timeoutMs);
  try {
    const [code, signal] = await exited;
    return { code: code ?? signal ?? 'unknown', output };
  } finally {
    clearTimeout(deadline);
    clearTimeout(killTimer);
  }
}
