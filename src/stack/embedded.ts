/**
 * The embedded reference stack: `node bin/speakcheck.js serve --port 0` as a child process. The
 * harness never imports reference/ internals; it reads the `base_url=`, `email=`, `password=` lines
 * the serve command prints when ready (bounded wait), and always stops the child: on stop(), on
 * process exit and on SIGINT/SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { registerSecret } from '../client/redact.ts';
import { SpeakcheckError } from '../errors.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface EmbeddedStack {
  baseUrl: string;
  email: string;
  password: string;
  token?: string;
  pid: number;
  stop(): Promise<void>;
}

export class StackStartError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_STACK_START';
  override name = 'StackStartError';
}

export interface StartOptions {
  readyTimeoutMs?: number;
  extraArgs?: string[];
  /** Where the child's log lines go (after the ready lines); default: dropped. */
  onLog?: (line: string) => void;
}

const live = new Set<ChildProcess>();
let exitHooksInstalled = false;

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

export async function startEmbeddedStack(o: StartOptions = {}): Promise<EmbeddedStack> {
  installExitHooks();
  const readyTimeoutMs = o.readyTimeoutMs ?? 60_000;
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bin', 'speakcheck.js'), 'serve', '--port', '0', ...(o.extraArgs ?? [])],
    // The IPC channel is a lifeline: serve stops when it closes, i.e. when this process dies unstopped.
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env } },
  );
  live.add(child);
  const stderrTail: string[] = [];
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderrTail.push(chunk);
    if (stderrTail.length > 20) stderrTail.shift();
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      live.delete(child);
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
    live.delete(child);
  };

  const values: Record<string, string> = {};
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new StackStartError(`the reference stack printed no base_url within ${readyTimeoutMs} ms`)),
        readyTimeoutMs,
      );
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        const match = /^(base_url|blob_url|email|password|token)=(.*)$/.exec(line.trim());
        if (match) {
          values[match[1]!] = match[2]!;
          if (match[1] === 'password' || match[1] === 'token') registerSecret(match[2]);
          if (values.base_url && values.email && values.password) {
            clearTimeout(timer);
            resolve();
          }
        } else if (values.base_url) {
          o.onLog?.(line);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new StackStartError(`could not start the reference stack: ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const tail = stderrTail.join('').trim().split('\n').slice(-3).join(' | ');
        reject(
          new StackStartError(
            `the reference stack exited before it was ready (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`,
          ),
        );
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }
  const stack: EmbeddedStack = {
    baseUrl: values.base_url!.replace(/\/+$/, ''),
    email: values.email!,
    password: values.password!,
    pid: child.pid ?? -1,
    stop,
  };
  if (values.token) stack.token = values.token;
  return stack;
}
