// V8's flags a speakcheck process needs from its start, by command: bin/speakcheck.js sets them first
// thing, before any function is hot enough to be compiled (a flag changed under a compile in flight
// can fail V8's own checks: ../../reference/synth/espeak-v8.mjs). Plain JavaScript, read before any
// TypeScript loader; the composition root, so it may name what the reference stack needs.
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';

/** The commands whose process runs espeak threads: the stack's API (its worker threads), a worker. */
const RUNS_ESPEAK = new Set(['serve', 'worker']);

/** @param {readonly string[]} argv process.argv @returns {readonly string[]} */
export function processV8Flags(argv) {
  return RUNS_ESPEAK.has(argv[2] ?? '') ? ESPEAK_V8_FLAGS : [];
}
