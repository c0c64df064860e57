/**
 * The API side of the synthesis workers: N child processes (child_process.fork; with tsx when run
 * from the sources, plain Node from the compiled CLI: ../entry-points.ts), woken over
 * IPC when a job is queued; or, with `threads` (serve --worker-threads: the stack a run starts
 * itself), N worker threads of this process running the same module, woken over their port: one
 * Node process fewer (its ~40 MB of runtime and its own module loading), while `serve` keeps
 * processes, which a test or an operator can kill one by one. A worker that dies is restarted (with a growing delay if it keeps dying)
 * and the jobs it held go back to the queue at once. Every message a worker sends whose type the pool
 * does not handle is re-emitted as a 'message' event (the websocket owner's hook uses it).
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { LEAN_HEAP, PROFILER_ARGS, WORKER_MAIN } from '../entry-points.ts';
import { failJoblessTakesOf, releaseOwnerJobs } from '../jobs/job-queue.ts';
import { ESPEAK_V8_FLAGS } from '../synth/espeak-v8.mjs';
import { espeakData } from '../synth/index.ts';

const READY_TIMEOUT_MS = 60_000;

export interface WorkerInfo {
  id: string;
  pid: number | null;
  alive: boolean;
  restarts: number;
}

/** A started worker, process or thread: what the pool needs of it. */
interface WorkerHandle {
  pid: number | undefined;
  /** Running and reachable. */
  connected(): boolean;
  send(message: { type: string } & Record<string, unknown>): void;
  onMessage(listener: (message: WorkerMessage) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  exited(): boolean;
  kill(): void;
}

type WorkerMessage = { type?: string; line?: string; startup?: Record<string, number> } | undefined;

interface Slot {
  id: string;
  child: WorkerHandle | null;
  restarts: number;
  ready: boolean;
}

export interface WorkerPoolOptions {
  db: Database;
  dataDir: string;
  count: number;
  workerOptions: Record<string, unknown>;
  /** Worker threads of this process instead of child processes. */
  threads?: boolean;
  onEvents(): void;
  log(line: string): void;
}

export class WorkerPool extends EventEmitter {
  private readonly slots: Slot[];
  private closing = false;

  constructor(private readonly o: WorkerPoolOptions) {
    super();
    this.slots = Array.from({ length: o.count }, (_, i) => ({
      id: `worker-${i + 1}`,
      child: null,
      restarts: 0,
      ready: false,
    }));
  }

  /** Starts every worker; resolves when all are ready (bounded). */
  async start(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.spawn(slot)));
  }

  private spawn(slot: Slot): Promise<void> {
    const forkedAt = performance.now();
    const env = {
      ...process.env,
      SPEAK_WORKER_ID: slot.id,
      SPEAK_DATA_DIR: this.o.dataDir,
      SPEAK_WORKER_OPTIONS: JSON.stringify(this.o.workerOptions),
      // A thread's start, for its start-up line (a process counts from its own start).
      SPEAK_WORKER_STARTED_AT: String(Date.now()),
    };
    const child = this.o.threads ? startThread(env, this.o.log) : startProcess(env);
    slot.child = child;
    slot.ready = false;
    const pid = child.pid;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${slot.id} not ready within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      child.onMessage((message) => {
        if (message?.type === 'ready') {
          this.o.log(`${slot.id} ready ${startupLine(performance.now() - forkedAt, message.startup)}`);
          slot.ready = true;
          clearTimeout(timer);
          resolve();
          this.wake();
        } else if (message?.type === 'events') this.o.onEvents();
        else if (message?.type === 'log') this.o.log(String(message.line));
        else this.emit('message', slot.id, message);
      });
      child.onExit((code, signal) => {
        clearTimeout(timer);
        slot.ready = false;
        if (slot.child === child) slot.child = null;
        if (this.closing) return resolve();
        const released = releaseOwnerJobs(this.o.db, `${slot.id}:${pid}`);
        // Websocket takes live only in the dead process (no job another worker could take over).
        const failed = failJoblessTakesOf(this.o.db, slot.id);
        this.o.log(
          `${slot.id} (pid ${pid}) exited (${code ?? signal}); ${released} job(s) re-queued, ${failed} websocket take(s) ended in error; restarting`,
        );
        slot.restarts += 1;
        const delay = Math.min(5000, 200 * 2 ** Math.min(slot.restarts - 1, 5));
        setTimeout(() => {
          if (!this.closing)
            this.spawn(slot).catch((error) => this.o.log(`${slot.id}: ${(error as Error).message}`));
        }, delay).unref();
        reject(new Error(`${slot.id} exited before it was ready`));
      });
    });
  }

  /** A job was queued: every idle worker looks (the first to claim it gets it). */
  wake(): void {
    for (const slot of this.slots) {
      if (slot.ready && slot.child?.connected()) slot.child.send({ type: 'wake' });
    }
  }

  /** Sends a message to every worker (for hooks). */
  broadcast(message: { type: string } & Record<string, unknown>): void {
    for (const slot of this.slots) if (slot.child?.connected()) slot.child.send(message);
  }

  info(): WorkerInfo[] {
    return this.slots.map((s) => ({
      id: s.id,
      pid: s.child?.pid ?? null,
      alive: s.child !== null && !s.child.exited(),
      restarts: s.restarts,
    }));
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const child = slot.child;
        if (!child || child.exited()) return;
        const exited = new Promise<void>((resolve) => child.onExit(() => resolve()));
        if (child.connected()) child.send({ type: 'shutdown' });
        const kill = setTimeout(() => child.kill(), 5000);
        await exited;
        clearTimeout(kill);
      }),
    );
  }
}

/** `in 1.42 s (modules 0.31 s, synthesizer 0.86 s, websocket 0.04 s)`: where a worker's start went. */
function startupLine(totalMs: number, startup: Record<string, number> | undefined): string {
  const total = `in ${(totalMs / 1000).toFixed(2)} s`;
  if (!startup) return total;
  let previous = 0;
  const steps = Object.entries(startup).map(([step, at]) => {
    const took = at - previous;
    previous = at;
    return `${step} ${took.toFixed(2)} s`;
  });
  return `${total} (${steps.join(', ')})`;
}

function startProcess(env: NodeJS.ProcessEnv): WorkerHandle {
  const child = fork(WORKER_MAIN.path, [], {
    execArgv: [
      ...LEAN_HEAP,
      ...ESPEAK_V8_FLAGS,
      ...PROFILER_ARGS,
      ...(WORKER_MAIN.needsTsx ? ['--import', 'tsx'] : []),
    ],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    pid: child.pid,
    connected: () => child.connected,
    send: (message) => child.send(message),
    onMessage: (listener) => child.on('message', listener as (message: unknown) => void),
    onExit: (listener) => child.once('exit', listener),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

const require = createRequire(import.meta.url);

/**
 * worker/main as a thread of this process. From the compiled CLI its bundled JavaScript; from the
 * sources it is TypeScript, so the thread registers tsx itself (a worker thread does not inherit the
 * loader of its process), as espeak-synthesizer.ts does for its espeak threads. The process's V8
 * flags (1 MB semi-spaces: ../entry-points.ts LEAN_HEAP, given to `serve` by the embedded stack)
 * hold for its threads too.
 */
function startThread(env: NodeJS.ProcessEnv, log: (line: string) => void): WorkerHandle {
  // The process's espeak-ng.data share: every worker thread's espeak threads read through its one descriptor.
  const options = {
    env,
    execArgv: PROFILER_ARGS,
    stdout: false,
    stderr: false,
    workerData: { espeakData: espeakData() },
  };
  let worker: Worker;
  if (WORKER_MAIN.needsTsx) {
    const mainUrl = JSON.stringify(pathToFileURL(WORKER_MAIN.path).href);
    const tsxApi = JSON.stringify(
      pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href,
    );
    const bootstrap = `import(${tsxApi}).then((tsx) => { tsx.register(); return import(${mainUrl}); });`;
    worker = new Worker(bootstrap, { ...options, eval: true });
  } else {
    worker = new Worker(WORKER_MAIN.path, options);
  }
  let done = false;
  let exitCode: number | null = null;
  const exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];
  // An uncaught error ends the thread (its 'exit' follows, and the pool restarts it); unheard, it would end the API.
  worker.on('error', (error) => log(`${env.SPEAK_WORKER_ID}: ${error.message}`));
  worker.once('exit', (code) => {
    done = true;
    exitCode = code;
    for (const listener of exitListeners) listener(code, null);
  });
  return {
    pid: process.pid,
    connected: () => !done,
    send: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.on('message', listener),
    onExit: (listener) => {
      if (done) listener(exitCode, null);
      else exitListeners.push(listener);
    },
    exited: () => done,
    kill: () => void worker.terminate(),
  };
}
