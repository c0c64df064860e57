/**
 * V8's tiering for the run's own process (issue 52): the harness's code is short-lived (a suite's
 * checks run a few times each, a run lasts seconds), and V8's optimizing compiler (TurboFan) spent
 * its background threads' time on functions that had finished by the time their code was ready.
 * A larger interrupt budget lets a function run longer in the interpreter and baseline code before
 * it is optimized at all; what stays hot (a long run against a slow server) is still optimized,
 * later. Measured with `speakcheck bench --against`, alternating pairs on the 2-core machine
 * (docs/benchmarks.md): the run's CPU ×0.92–0.94, the V8 helper threads of its process 1.7 → ~1.0
 * CPU-s. Tried beside it: Maglev (off by default in Node 20's V8, so not taken into a harness whose
 * verdicts are signed; no gain on top), Maglev as the top tier (no gain), 4× and 24× budgets.
 *
 * Only this process: the reference stack's espeak thread is one long hot loop that wants TurboFan
 * early (the same flag there cost its thread CPU), and the stack's processes have their own command
 * lines. Set before vitest starts the suites' threads: V8's flags are per process, read whenever an
 * isolate decides to tier up, so the threads started after this get it too.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default interrupt budget (Node 20, V8 11.3: 66 KiB of bytecode executed) times eight. */
export const HARNESS_INTERRUPT_BUDGET = 8 * 67_584;

export function tuneJitForTheHarness(): void {
  setFlagsFromString(`--interrupt-budget=${HARNESS_INTERRUPT_BUDGET}`);
}
