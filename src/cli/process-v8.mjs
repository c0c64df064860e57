// V8's flags a speakcheck process needs from its start, by command: bin/speakcheck.js (and the
// reference image's bin/speakcheck-reference.js) sets them first thing, before any function is hot enough to be compiled (a flag changed under a compile in flight
// can fail V8's own checks: ../../reference/synth/espeak-v8.mjs). Plain JavaScript, read before any
// TypeScript loader; the composition root, so it may name what the reference stack needs.
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';

/** The commands whose process runs espeak threads: the stack's API (its worker threads), a worker. */
const RUNS_ESPEAK = new Set(['serve', 'worker']);

/**
 * Every other command's process, the run's above all (vitest and its suite threads): TurboFan
 * inlines only small functions (bytecode up to 30 bytes, V8's default 460). The harness's code is
 * many mid-sized functions run a few times each; what V8 does optimize, it compiled with everything
 * they call inlined, on background threads, for code that was often done before it was ready.
 * Against eddd928, 8 alternating pairs: the run's process 5.33 → 4.82 CPU-s (medians), the whole
 * run ×0.95 (0.91–0.97, every pair below 1), wall 0.96, peak tree 1.00. The run's other V8 tuning,
 * which may change at run time, is src/run/harness-v8.ts.
 */
export const HARNESS_V8_FLAGS = Object.freeze(['--max-inlined-bytecode-size=30']);

/** @param {readonly string[]} argv process.argv @returns {readonly string[]} */
export function processV8Flags(argv) {
  return RUNS_ESPEAK.has(argv[2] ?? '') ? ESPEAK_V8_FLAGS : HARNESS_V8_FLAGS;
}
