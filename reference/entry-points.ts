/**
 * Where the stack's worker processes and espeak threads start. From the sources (tests, tsx): the
 * TypeScript file, through tsx. From the compiled CLI (src/cli/bundle.mjs: bin/speakcheck.js runs an
 * esbuild bundle in dist/<hash>/): the bundled entry beside this module, by plain Node, with no
 * TypeScript loader to start in each process and thread. The bundle leaves this module's
 * import.meta.url alone (and only this one's), so it tells the two apart.
 */
import { fileURLToPath } from 'node:url';

const BUNDLED = import.meta.url.endsWith('.js');

export interface EntryPoint {
  /** Absolute path of the module to run. */
  path: string;
  /** The module is TypeScript: the process or thread must register tsx first. */
  needsTsx: boolean;
}

/**
 * Node options of the stack's worker processes: a young generation of 1 MB semi-spaces instead of
 * up to 16 MB. Measured over a full conformance run: the tree's peak RSS 1123 → 988 MB, no CPU
 * time lost (the processes mostly hold little and short-lived data; espeak's heap is outside V8's).
 */
export const LEAN_HEAP = ['--max-semi-space-size=1'];

/**
 * V8's CPU profiler options this process was started with (`speakcheck bench --profile` starts the
 * run with `--cpu-prof`), handed on to the worker processes and espeak threads, as vitest hands them
 * to its threads: NODE_OPTIONS may not carry them, and a thread given execArgv [] would lose them.
 */
export const PROFILER_ARGS = process.execArgv.filter((a) => a.startsWith('--cpu-prof'));

/** The worker process (reference/worker/main.ts). */
export const WORKER_MAIN = entryPoint('worker-main', './worker/main.ts');
/** The espeak-ng thread (reference/synth/espeak-thread.ts). */
export const ESPEAK_THREAD = entryPoint('espeak-thread', './synth/espeak-thread.ts');

function entryPoint(bundledName: string, source: string): EntryPoint {
  return BUNDLED
    ? { path: fileURLToPath(new URL(`./${bundledName}.js`, import.meta.url)), needsTsx: false }
    : { path: fileURLToPath(new URL(source, import.meta.url)), needsTsx: true };
}
