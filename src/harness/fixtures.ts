/**
 * The run's context as vitest fixtures (vitest's `test.extend`): what the bootstrap provided
 * (./run-bootstrap.ts) fills worker-scoped fixtures of the same names (`injected`: vitest takes
 * their value from provide, typed by ProvidedContext, ./meta.ts), and `run`, the run's context
 * (./run-context.ts), is built from them once per suite thread. covers() (./covers.ts) registers
 * every conformance test with this `test` (registerRunTest), and hands the test body `{ run }`.
 *
 * Outside a run (a unit test of the harness registering covers() tests) nothing was provided: `run`
 * is then a context whose every part throws the one sentence that says how to start a run, so a
 * test that does not use it runs as before.
 */
import { test as base, type TaskMeta, type TestContext } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';
import type { ProvidedRun } from './meta.ts';
import { contextOf, NO_RUN_CONTEXT, type RunContext } from './run-context.ts';

/** The worker-scoped fixtures every conformance test can ask for. */
export interface RunFixtures extends Partial<ProvidedRun> {
  /** The run's context: plan, facts, throttle, trusted CA, shared voice, webhook sink. */
  run: RunContext;
}

const noRun = (): never => {
  throw new Error(NO_RUN_CONTEXT);
};

/** A context outside a run: reading any part of it says how to start one. */
const absentRun: RunContext = {
  get plan() {
    return noRun();
  },
  get facts() {
    return noRun();
  },
  get throttle() {
    return noRun();
  },
  get trust() {
    return noRun();
  },
  get sharedVoice() {
    return noRun();
  },
  get webhookSink() {
    return noRun();
  },
};

export const runTest = base.extend<RunFixtures>({
  speakRunPlan: [undefined, { injected: true, scope: 'worker' }],
  speakSharedVoice: [undefined, { injected: true, scope: 'worker' }],
  speakWebhookSink: [undefined, { injected: true, scope: 'worker' }],
  run: [
    async ({ speakRunPlan, speakSharedVoice, speakWebhookSink }, use) => {
      await use(
        speakRunPlan === undefined
          ? absentRun
          : contextOf({
              speakRunPlan,
              ...(speakSharedVoice ? { speakSharedVoice } : {}),
              ...(speakWebhookSink ? { speakWebhookSink } : {}),
            }),
      );
    },
    { scope: 'worker' },
  ],
});

/** What a conformance test's body receives: the run's context, and vitest's task and abort signal. */
export interface RunTestContext {
  /** The run's context (a worker-scoped fixture): plan, facts, throttle, trust, shared voice, sink. */
  run: RunContext;
  task: TestContext['task'];
  signal: AbortSignal;
}

/**
 * Registers a test with the run's fixtures. vitest 3.2's `test.extend` hands only the timeout of a
 * test's options on to the test it registers: `concurrent` is asked for by the chain, and the meta
 * (the requirement ids `run --list` reads at collection) is put on the task just registered.
 */
export function registerRunTest(
  name: string,
  options: { timeout: number; meta: Partial<TaskMeta>; concurrent?: boolean },
  body: (context: RunTestContext) => Promise<void>,
): void {
  const register = options.concurrent ? runTest.concurrent : runTest;
  // Destructured here: vitest sets up the fixtures a test function's first parameter names.
  register(name, async ({ run, task, signal }) => body({ run, task, signal }), options.timeout);
  const registered = getCurrentSuite().tasks.at(-1);
  if (registered?.type === 'test' && registered.name === name) Object.assign(registered.meta, options.meta);
}
