/**
 * The one launcher of child processes (`speakcheck serve`, `speakcheck run`, …) for every command,
 * test helper and bench: start, wait for the ready lines, stop with one grace policy, kill the
 * process tree. Everything that starts a stack or a run goes through here, so a stack is found
 * (its `key=value` lines) and stopped the same way everywhere.
 *
 * Stop policy (STOP_GRACE_MS): the signal (SIGTERM) goes to the child alone, so it shuts down in
 * order (serve closes its listeners and stops its own workers); a child still alive after the grace
 * is killed with its whole process tree (SIGKILL to it and every descendant, from /proc), so no
 * worker or encoder it started outlives it. A child left running when this process exits is killed
 * the same way. Children stay in this process's group (not detached): a Ctrl-C at the terminal
 * still reaches them as before.
 *
 * Lives in src/stack/ (harness side): commands, the benches under src/bench/ and the test helpers
 * import it; reference/ may not (architecture rule), so a bench that needs a running stack lives
 * under src/bench/ (or takes --base-url).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpeakcheckError } from '../errors.ts';
import { readProcs, tree } from './process-tree.ts';

/** How long a stopped child may take to exit before it is killed with its process tree. */
export const STOP_GRACE_MS = 10_000;

export class LaunchError extends SpeakcheckError {
  override name = 'LaunchError';
  readonly code = 'SPEAKCHECK_LAUNCH';
  /** What the child printed (stdout and stderr) before it failed to get ready. */
  output = '';
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchOptions {
  /** Default: this Node binary (process.execPath). */
  command?: string;
  args: string[];
  cwd?: string;
  /** The child's whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /**
   * Ready when this holds for the `key=value` lines seen on stdout so far (default: at once, no
   * wait). Lines before ready are collected into `fields`; later lines go to onLine.
   */
  ready?: (fields: ReadonlyMap<string, string>) => boolean;
  /** Bound of the wait for the ready lines (default 60 s: the embedded stack with its synthesis workers can take 20 s on a loaded 2-core machine). */
  readyTimeoutMs?: number;
  /** What is starting, for the error messages ("the reference stack"). */
  what?: string;
  /** An IPC channel as a lifeline: `serve` stops when it closes (this process died unstopped). */
  ipc?: boolean;
  /** The child's stderr: collected (default) or this process's own. */
  stderr?: 'pipe' | 'inherit';
  /** Each stdout line after ready. */
  onLine?: (line: string) => void;
  /** The grace before the tree is killed (default STOP_GRACE_MS; only tests shorten it). */
  graceMs?: number;
  /** Keep only the last this many characters of each collected output (a long-lived, chatty child); default all. */
  outputLimit?: number;
  /** Each `key=value` line before ready (e.g. to register a secret at once). */
  onField?: (key: string, value: string) => void;
}

export interface Launched {
  child: ChildProcess;
  pid: number;
  /** The `key=value` lines printed before ready. */
  fields: ReadonlyMap<string, string>;
  /** stdout and stderr (when piped) so far, interleaved as they came. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** `signal` (SIGTERM) to the child, then after STOP_GRACE_MS SIGKILL to its tree; resolves at its exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** `signal` to the child and every descendant (found before any dies, so none escapes to init). */
function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  const members = tree(child.pid, readProcs()).map((p) => p.pid);
  for (const pid of members.length > 0 ? members : [child.pid]) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) killTree(child, 'SIGKILL');
  });
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

export async function launch(o: LaunchOptions): Promise<Launched> {
  installExitHook();
  const what = o.what ?? 'the child process';
  const child = spawn(o.command ?? process.execPath, o.args, {
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: ['ignore', 'pipe', o.stderr ?? 'pipe', ...(o.ipc ? (['ipc'] as const) : [])],
  });
  live.add(child);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  let out = '';
  let err = '';
  let both = '';
  const limit = o.outputLimit ?? Number.POSITIVE_INFINITY;
  const keep = (text: string) => (text.length > limit ? text.slice(-limit) : text);
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out = keep(out + chunk);
    both = keep(both + chunk);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err = keep(err + chunk);
    both = keep(both + chunk);
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> => {
    if (!running(child)) return exited;
    if (signal === 'SIGKILL') {
      killTree(child, 'SIGKILL');
      return exited;
    }
    child.kill(signal);
    const grace = setTimeout(() => killTree(child, 'SIGKILL'), o.graceMs ?? STOP_GRACE_MS);
    const exit = await exited;
    clearTimeout(grace);
    return exit;
  };

  const fields = new Map<string, string>();
  let isReady = o.ready === undefined;
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    if (isReady) {
      o.onLine?.(line);
      return;
    }
    const match = /^([a-z_]+)=(.*)$/.exec(line.trim());
    if (match) {
      fields.set(match[1]!, match[2]!);
      o.onField?.(match[1]!, match[2]!);
    }
  });

  if (o.ready) {
    const ready = o.ready;
    const readyTimeoutMs = o.readyTimeoutMs ?? 60_000;
    const tail = () => err.trim().split('\n').slice(-3).join(' | ');
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new LaunchError(`${what} printed no ready lines within ${readyTimeoutMs} ms`)),
          readyTimeoutMs,
        );
        const settle = (fn: () => void) => {
          clearTimeout(timer);
          fn();
        };
        lines.on('line', () => {
          if (!isReady && ready(fields)) {
            isReady = true;
            settle(resolve);
          }
        });
        child.once('error', (e) =>
          settle(() => reject(new LaunchError(`could not start ${what}: ${e.message}`))),
        );
        child.once('exit', (code, signal) =>
          settle(() =>
            reject(
              new LaunchError(
                `${what} exited before it was ready (${signal ?? `code ${code}`})${tail() ? `: ${tail()}` : ''}`,
              ),
            ),
          ),
        );
      });
    } catch (error) {
      await stop('SIGKILL');
      if (error instanceof LaunchError) error.output = both;
      throw error;
    }
  }
  return {
    child,
    pid: child.pid ?? -1,
    fields,
    output: () => both,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop,
  };
}

export interface Finished extends Exit {
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came. */
  output: string;
  ms: number;
  /** The child outlived `timeoutMs` and was stopped (SIGTERM, then the grace). */
  timedOut: boolean;
}

/**
 * Runs a child to its end without blocking this process (a synchronous child starves vitest's RPC
 * during a minute-long run). Bounded: at `timeoutMs` it is stopped as above.
 */
export async function runToEnd(
  o: Omit<LaunchOptions, 'ready' | 'readyTimeoutMs' | 'onLine' | 'onField'> & { timeoutMs: number },
): Promise<Finished> {
  const started = performance.now();
  const launched = await launch(o);
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    void launched.stop();
  }, o.timeoutMs);
  const exit = await launched.exited;
  clearTimeout(deadline);
  // 'exit' can come before the last piped output: wait for the streams to end (bounded: a
  // grandchild may hold them open).
  const ended = Promise.all(
    [launched.child.stdout, launched.child.stderr].map((s) =>
      s && !s.readableEnded ? once(s, 'end') : undefined,
    ),
  ).catch(() => undefined);
  await Promise.race([ended, sleep(1_000, undefined, { ref: false })]);
  return {
    ...exit,
    stdout: launched.stdout(),
    stderr: launched.stderr(),
    output: launched.output(),
    ms: performance.now() - started,
    timedOut,
  };
}

/** `key=value` fields of the serve command: ready once base_url, email and password (and token when asked) came. */
export function serveReady(o: { token?: boolean; also?: readonly string[] } = {}) {
  const needed = ['base_url', 'email', 'password', ...(o.token ? ['token'] : []), ...(o.also ?? [])];
  return (fields: ReadonlyMap<string, string>) => needed.every((key) => fields.has(key));
}
