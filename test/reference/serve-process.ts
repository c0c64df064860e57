/**
 * Starts the reference stack as `speakcheck serve` in a child process (as a stranger would) and
 * reads the `base_url=`, `email=`, `password=` lines it prints when ready. Every start is bounded
 * and every process is stopped by the test that started it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/speakcheck.js', import.meta.url));

export interface ServedStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The process's output so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export async function startServe(args: string[], timeoutMs = 60_000): Promise<ServedStack> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  const fields = new Map<string, string>();
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `speakcheck serve did not print base_url/email/password within ${timeoutMs} ms:\n${output}`,
          ),
        ),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const line of output.split('\n')) {
        const match = /^(base_url|email|password)=(.+)$/.exec(line.trim());
        if (match) fields.set(match[1]!, match[2]!);
      }
      if (fields.has('base_url') && fields.has('email') && fields.has('password')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`speakcheck serve exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    baseUrl: fields.get('base_url')!.replace(/\/+$/, ''),
    email: fields.get('email')!,
    password: fields.get('password')!,
    output: () => output,
    stop: () => stopChild(child),
  };
}

/** SIGTERM, then SIGKILL if it has not exited within 10 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
