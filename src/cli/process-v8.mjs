// V8's flags a speakcheck process has from its start, by command, all in one place: bin/speakcheck.js
// (and the reference image's bin/speakcheck-reference.js) sets them first thing, before any function
// is hot enough to be compiled (a flag changed under a compile in flight can fail V8's own checks:
// ../../reference/synth/espeak-v8.mjs). Plain JavaScript, read before any TypeScript loader; the
// composition root, so it may name what the reference stack needs.
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';

/** The commands whose process runs espeak threads: the stack's API (its worker threads), a worker. */
const RUNS_ESPEAK = new Set(['serve', 'worker']);

/**
 * Every other command's process, the run's above all (vitest and its suite threads), measured with
 * `speakcheck bench --against`, alternating pairs on the 2-core machine (docs/benchmarks.md):
 * - TurboFan inlines only small functions (bytecode up to 30 bytes, V8's default 460). The
 *   harness's code is many mid-sized functions run a few times each; what V8 did optimize, it
 *   compiled with everything they call inlined, on background threads, for code often done before
 *   it was ready. Against eddd928, 8 pairs: the run's process 5.33 → 4.82 CPU-s (medians), the whole
 *   run ×0.95 (0.91–0.97, every pair below 1), wall 0.96, peak tree 1.00.
 * - A later tier-up (the interrupt budget ×8, V8's default being 66 KiB of bytecode executed): a
 *   function runs longer in the interpreter and baseline code before it is optimized at all; what
 *   stays hot (a long run against a slow server) is still optimized, later. Against a63fb17, 6
 *   pairs: the run's CPU ×0.92–0.94, its V8 helper threads 1.7 → ~1.0 CPU-s. Tried beside it:
 *   Maglev (off by default in Node 20's V8: not taken into a harness whose verdicts are signed; no
 *   gain on top), Maglev as the top tier (no gain), 4× and 24× budgets.
 * - The old generation grows to 1.5× what survived a full collection (V8 lets it grow up to 4×
 *   when collecting looks cheap; the run's three isolates held that room at the tree's peak):
 *   peak tree 452 → 419 and 447 → 429 MB (medians, 4 and 6 pairs), CPU ×0.99–1.00.
 *   `--optimize-for-size` saved a little more (−25 to −45 MB) for 6–8 % more CPU: not taken.
 * Not for the stack's processes: espeak's thread is one long hot loop that wants TurboFan early
 * (the same budget there cost its thread CPU). Node 20's figures (V8 11.3).
 */
export const HARNESS_V8_FLAGS = Object.freeze([
  '--max-inlined-bytecode-size=30',
  `--interrupt-budget=${8 * 67_584}`,
  '--heap-growing-percent=50',
]);

/**
 * Every command's process: V8's young generation in 1 MB semi-spaces (default: up to 16 MB each), as
 * the stack's processes also get on their command line (reference/entry-points.ts LEAN_HEAP). Set
 * after the process started: for the isolates it creates from then on (the suites' vitest threads,
 * the API's worker and espeak threads: ~20 MB less each) the size limit; for its own heap, whose
 * limit is already set, no growth beyond the semi-space it has. Both are read when a heap is created
 * or grows, so setting them at start takes effect. Lower peak RSS at no CPU cost measured (4 and
 * 16 MB: no difference beyond the noise; docs/benchmarks.md).
 */
export const YOUNG_GENERATION_V8_FLAGS = Object.freeze([
  '--max-semi-space-size=1',
  '--semi-space-growth-factor=1',
]);

/** @param {readonly string[]} argv process.argv @returns {readonly string[]} */
export function processV8Flags(argv) {
  const byCommand = RUNS_ESPEAK.has(argv[2] ?? '') ? ESPEAK_V8_FLAGS : HARNESS_V8_FLAGS;
  return [...byCommand, ...YOUNG_GENERATION_V8_FLAGS];
}
