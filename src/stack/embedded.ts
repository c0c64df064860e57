/**
 * The embedded reference stack: `node bin/speakcheck.js serve --port 0` as a child process. The
 * harness never imports reference/ internals; it reads the `base_url=`, `email=`, `password=` lines
 * the serve command prints when ready (bounded wait), and always stops the child: on stop(), on
 * process exit and on SIGINT/SIGTERM.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpeakcheckError } from '../errors.ts';
import { registerSecret } from '../evidence/redact.ts';
import { LaunchError, launch, serveReady } from './launcher.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEAKCHECK_BIN = join(REPO_ROOT, 'bin', 'speakcheck.js');

export interface EmbeddedStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The stack's second seeded user (another customer), for the security area's isolation checks. */
  second?: { email: string; password: string };
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

export async function startEmbeddedStack(o: StartOptions = {}): Promise<EmbeddedStack> {
  let launched: Awaited<ReturnType<typeof launch>>;
  try {
    launched = await launch({
      // 1 MB semi-spaces (V8's young generation): a lower peak RSS at no CPU cost, as the stack's
      // worker processes (reference/entry-points.ts LEAN_HEAP has the figures).
      // V8's profiler options of this process (`bench --profile`) are handed on, as vitest does to its threads.
      args: [
        '--max-semi-space-size=1',
        ...process.execArgv.filter((a) => a.startsWith('--cpu-prof')),
        SPEAKCHECK_BIN,
        'serve',
        '--port',
        '0',
        ...(o.extraArgs ?? []),
      ],
      cwd: REPO_ROOT,
      what: 'the reference stack',
      // The second user's lines come in the same write as the first's.
      ready: serveReady({ also: ['second_email', 'second_password'] }),
      readyTimeoutMs: o.readyTimeoutMs,
      // The IPC channel is a lifeline: serve stops when it closes, i.e. when this process dies unstopped.
      ipc: true,
      outputLimit: 64 * 1024,
      onField: (key, value) => {
        if (key === 'password' || key === 'second_password' || key === 'token') registerSecret(value);
      },
      ...(o.onLog ? { onLine: o.onLog } : {}),
    });
  } catch (err) {
    if (err instanceof LaunchError) throw new StackStartError(err.message);
    throw err;
  }
  const values = launched.fields;
  const stack: EmbeddedStack = {
    baseUrl: values.get('base_url')!.replace(/\/+$/, ''),
    email: values.get('email')!,
    password: values.get('password')!,
    pid: launched.pid,
    stop: async () => {
      await launched.stop();
    },
  };
  const token = values.get('token');
  if (token) stack.token = token;
  const secondEmail = values.get('second_email');
  const secondPassword = values.get('second_password');
  if (secondEmail && secondPassword) stack.second = { email: secondEmail, password: secondPassword };
  return stack;
}
