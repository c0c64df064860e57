/**
 * V8's inlining in a process that runs espeak threads (issue 52), measured with `speakcheck bench
 * --against`, alternating pairs on the 2-core machine (docs/benchmarks.md).
 *
 * espeak-ng is C compiled to JavaScript (wasm2js): a few very large functions (the largest, 27 KB of
 * source, is where espeak spends most of its time) that V8's optimizing compiler (TurboFan) compiles
 * again after each deoptimization, a dozen times in a conformance run, and that grow by whatever it
 * inlines into them. Inlining only small functions (bytecode up to 30 bytes instead of 460) makes
 * each compile cheaper and the code no slower: the same run's parts 1.73 → 1.56 CPU-s in one process
 * (three runs each), and the run's stack 4.78 → 4.37 CPU-s, the whole run ×0.97 (6 pairs), its API
 * thread's own CPU unchanged and the peak tree too. Tried beside it: no inlining at all (a little
 * less gain), a lower cumulative limit (none), no loop peeling, escape analysis or load elimination
 * (none or slower).
 *
 * V8's flags are per process and read whenever a function is compiled, so setting it when the first
 * espeak thread starts holds for that thread's compiles and the process's later ones; the harness's
 * process starts no espeak thread and keeps V8's defaults (src/run/harness-v8.ts has its own).
 * The figures are Node 20's (V8 11.3); another V8 inlines by other rules.
 */
import { setFlagsFromString } from 'node:v8';

/** Largest function (bytecode bytes) TurboFan inlines into another: V8's default is 460. */
export const ESPEAK_MAX_INLINED_BYTECODE_SIZE = 30;

let tuned = false;

export function tuneV8ForEspeak(): void {
  if (tuned) return;
  tuned = true;
  setFlagsFromString(`--max-inlined-bytecode-size=${ESPEAK_MAX_INLINED_BYTECODE_SIZE}`);
}
