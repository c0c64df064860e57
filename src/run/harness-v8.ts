/**
 * V8's tiering and heap growth for the run's own process (issue 52), measured with `speakcheck bench
 * --against`, alternating pairs on the 2-core machine (docs/benchmarks.md).
 *
 * - A later tier-up: the harness's code is short-lived (a suite's checks run a few times each, a run
 *   lasts seconds), and V8's optimizing compiler (TurboFan) spent its background threads' time on
 *   functions that had finished by the time their code was ready. A larger interrupt budget lets a
 *   function run longer in the interpreter and baseline code before it is optimized at all; what
 *   stays hot (a long run against a slow server) is still optimized, later. The run's CPU ×0.92–0.94
 *   (6 pairs), the V8 helper threads of its process 1.7 → ~1.0 CPU-s. Tried beside it: Maglev (off
 *   by default in Node 20's V8, so not taken into a harness whose verdicts are signed; no gain on
 *   top), Maglev as the top tier (no gain), 4× and 24× budgets.
 * - A smaller heap growth: after each full collection V8 lets an isolate's old generation grow to
 *   a multiple of what survived, up to 4× when collecting looks cheap; the run's three isolates (vitest
 *   and the two suite threads) held that room at the tree's peak. 1.5×: peak tree 452 → 419 and
 *   447 → 429 MB (medians, 4 and 6 pairs), CPU ×0.99–1.00. `--optimize-for-size` saved a little more
 *   (−25 to −45 MB) for 6–8 % more CPU: not taken.
 *
 * Only this process: the reference stack's espeak thread is one long hot loop that wants TurboFan
 * early (the budget there cost its thread CPU), and the stack's processes have their own command
 * lines. Set before vitest starts the suites' threads: V8's flags are per process, read whenever an
 * isolate decides to tier up or sizes its heap, so the threads started after this get them too.
 * TurboFan's inlining limit is set at the process's start instead (src/cli/process-v8.mjs): changed
 * under a compile in flight, it fails one of V8's checks. The figures are Node 20's (V8 11.3);
 * another V8 tiers and grows by other rules.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default interrupt budget (Node 20, V8 11.3: 66 KiB of bytecode executed) times eight. */
export const HARNESS_INTERRUPT_BUDGET = 8 * 67_584;
/** The old generation may grow to 1.5× what survived a full collection. */
export const HARNESS_HEAP_GROWING_PERCENT = 50;

export function tuneV8ForTheHarness(): void {
  setFlagsFromString(`--interrupt-budget=${HARNESS_INTERRUPT_BUDGET}`);
  setFlagsFromString(`--heap-growing-percent=${HARNESS_HEAP_GROWING_PERCENT}`);
}
