/**
 * One way for run, load, bench and serve to get a reference stack to point at: `startTarget(kind)`
 * starts the embedded stack (`speakcheck serve --port 0` through the launcher) or the container
 * stack (API + worker containers, src/stack/container.ts, loaded only then), and every started target
 * is known here, so one signal handler (`stopTargetsOnSignal`) can stop them all, including a
 * container stack still starting. A start that fails is a StackStartError with one sentence.
 */
import { EXIT } from '../exit-codes.ts';
import { StackStartError, startEmbeddedStack } from './embedded.ts';
import { loadContainerLauncher } from './load-container-launcher.ts';
import { lifetimeServeArgs, type StackLifetimes } from './run-lifetimes.ts';

export type StackKind = 'embedded' | 'container';

/**
 * Synthesis worker processes of the embedded stack a conformance run starts (`serve` and `load`
 * keep serve's two). The suites check the API, not throughput, and on 2 cores the run is CPU-bound
 * on espeak, whose (wasm2js) code V8 optimizes only after enough audio: one worker's two espeak
 * threads warm up on all of the run's audio instead of four threads on a quarter each (6.4 instead
 * of 9.1 worker CPU-seconds a run, one process of ~160 MB less; `speakcheck bench`).
 */
export const EMBEDDED_RUN_WORKERS = 1;

/**
 * The `serve` flags of the embedded stack a conformance run starts: one worker (above) whose
 * websocket endpoint speaks with its REST synthesizer (reference/options.ts wsSharesSynthesizer):
 * one espeak-ng thread instead of two, whose JIT compile and heap the run no longer pays for; the
 * worker a thread of the API process (reference/options.ts workerThreads): one Node process fewer;
 * parts spoken before replayed, not computed (reference/options.ts replaySpokenParts).
 */
export const EMBEDDED_RUN_SERVE_ARGS: readonly string[] = [
  '--workers',
  String(EMBEDDED_RUN_WORKERS),
  '--ws-shares-synthesizer',
  '--replay-spoken-parts',
  '--worker-threads',
];

export interface StartedTarget {
  kind: StackKind;
  baseUrl: string;
  email: string;
  password: string;
  /** The stack's second seeded user (another customer): the security area's customer B. */
  second?: { email: string; password: string };
  /** Stops it (once; later calls wait for the same stop). */
  stop(): Promise<void>;
}

export interface TargetOptions {
  /** The stack's log lines (the container stack's start-up; the embedded stack's after ready). */
  onLog?: (line: string) => void;
  /** Bound of the embedded stack's start (default: the launcher's, 60 s). */
  readyTimeoutMs?: number;
  /** The embedded stack's `serve` flags besides the lifetimes (default: none, serve's own: 2 workers). */
  serveArgs?: readonly string[];
  /** Lifetimes of tokens and URLs the stack serves (default: serve's; a run's: ./run-lifetimes.ts). */
  lifetimes?: StackLifetimes;
}

const started = new Set<StartedTarget>();
let containersStarting = false;

export async function startTarget(kind: StackKind, o: TargetOptions = {}): Promise<StartedTarget> {
  const lifetimeArgs = o.lifetimes ? lifetimeServeArgs(o.lifetimes) : [];
  const stack =
    kind === 'container'
      ? await startContainers(o, lifetimeArgs)
      : await startEmbeddedStack({
          readyTimeoutMs: o.readyTimeoutMs,
          extraArgs: [...(o.serveArgs ?? []), ...lifetimeArgs],
        });
  let stopping: Promise<void> | undefined;
  const target: StartedTarget = {
    kind,
    baseUrl: stack.baseUrl,
    email: stack.email,
    password: stack.password,
    ...(stack.second ? { second: stack.second } : {}),
    stop: () => {
      stopping ??= stack.stop().finally(() => started.delete(target));
      return stopping;
    },
  };
  started.add(target);
  return target;
}

async function startContainers(o: TargetOptions, serveArgs: string[]) {
  const launcher = await loadContainerLauncher();
  containersStarting = true;
  try {
    return await launcher.startContainerStack({ ...(o.onLog ? { onLog: o.onLog } : {}), serveArgs });
  } catch (error) {
    if (error instanceof StackStartError) throw error;
    throw new StackStartError(`the container stack did not start: ${(error as Error).message}`);
  } finally {
    containersStarting = false;
  }
}

/** Stops every target started here, and the containers of one still starting. */
export async function stopAllTargets(): Promise<void> {
  const containers = containersStarting
    ? loadContainerLauncher().then((m) => m.stopAllContainers())
    : undefined;
  await Promise.allSettled([...[...started].map((t) => t.stop()), containers]);
}

/**
 * At SIGINT/SIGTERM: stop every target, then exit with `code` (default EXIT.interrupted). Returns
 * the function that removes the handlers (a command that ends normally stops its target itself).
 *
 * The handlers stay registered (`on`, not `once`) until the stop is done: testcontainers loads
 * signal-exit (through proper-lockfile), whose own handler re-raises the signal, killing the
 * process, as soon as it sees itself alone among the signal's listeners, which a `once` handler
 * left it during the same signal; the containers then outlived the command. A second signal while
 * stopping is ignored: the stop is bounded (container.ts stops each container within seconds).
 */
export function stopTargetsOnSignal(
  code: number = EXIT.interrupted,
  log?: (line: string) => void,
): () => void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log?.(`${signal}: stopping`);
    void stopAllTargets().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
