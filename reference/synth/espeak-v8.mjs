// V8's optimizing compiler in a process that runs espeak threads (issue 52), measured with
// `speakcheck bench --against`, alternating pairs on the 2-core machine (docs/benchmarks.md).
//
// espeak-ng is C compiled to JavaScript (wasm2js): a few very large functions (the largest, 27 KB of
// source, is where espeak spends most of its time) that V8's optimizing compiler (TurboFan) compiles
// again after each deoptimization, a dozen times in a conformance run.
// - Inlining only small functions (bytecode up to 30 bytes instead of 460): each compile is cheaper
//   and the code no slower (the run's 84 parts in one process: 1.73 → 1.56 CPU-s, three runs each).
// - On-stack replacement compiled on the thread that asked for it, not in the background: espeak's
//   loop then runs optimized code as soon as it is made instead of running on in slow code while a
//   background thread compiles (~40 ms of its own thread per such compile, a few in a run; the same
//   parts 1.57 → 1.50 CPU-s, six runs each).
// Both, against 812cab9 in one `bench --against` call, 8 alternating pairs: the stack's CPU 4.77 →
// 4.45 s (medians), the whole run ×0.97 (0.87–1.06), wall 1.00, peak tree 0.99; the API thread's own
// CPU unchanged.
// Tried beside them: no inlining at all (a little less gain), a lower cumulative inlining limit, no
// loop peeling, escape analysis, load or store elimination, node splitting, jump threading, and the
// mid-tier register allocator (none, or slower).
//
// Given before any function is hot enough to be compiled: on the command line of the worker
// processes the stack forks (../worker/pool.ts), by bin/speakcheck.js and bin/speakcheck-reference.js
// first thing for the commands whose process runs espeak (src/cli/process-v8.mjs), by Node's first
// --import for the espeak benches (./espeak-v8-preload.mjs). A compile in flight when the inlining
// limit changes fails V8's own check ("inlineability == kHasOptimizationDisabled", SIGTRAP): set as
// the first espeak thread started, the stack died at start in ~1 of 25 starts under load. The
// harness's processes start no espeak thread and get flags of their own (src/cli/process-v8.mjs).
// Node 20's figures (V8 11.3).
// Plain JavaScript: bin/speakcheck.js reads it before any TypeScript loader.

/** Largest function (bytecode bytes) TurboFan inlines into another: V8's default is 460. */
export const ESPEAK_MAX_INLINED_BYTECODE_SIZE = 30;

/** @type {readonly string[]} */
export const ESPEAK_V8_FLAGS = Object.freeze([
  `--max-inlined-bytecode-size=${ESPEAK_MAX_INLINED_BYTECODE_SIZE}`,
  '--no-concurrent-osr',
]);
