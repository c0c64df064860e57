/**
 * The run's context as vitest fixtures (vitest's `test.extend`): what the bootstrap provided
 * (./run-bootstrap.ts) fills worker-scoped fixtures of the same names (`injected`: vitest takes
 * their value from provide, typed by ProvidedContext, ./meta.ts), and `run`, the run's context
 * (./run-context.ts), is built from them once per suite thread. `speak`, the suite file's context
 * (./context.ts: logged in, the models listed, what the file creates deleted after it), is a
 * file-scoped fixture: opened before the file's first test that names it, closed after the file's
 * last test and its afterAll hooks. covers() (./covers.ts) registers every conformance test with this
 * `test` (registerRunTest), and hands the test body `{ run, speak }`.
 *
 * vitest sets up only the fixtures a test names in its first parameter (it reads the function's
 * source); covers() asks for `speak` when the body names it (namedFixtures), so a file that never
 * names it never logs in.
 *
 * Outside a run (a unit test of the harness registering covers() tests) nothing was provided: `run`
 * and `speak` are then contexts whose every part throws the one sentence that says how to start a
 * run, so a test that does not use them runs as before.
 */
import { test as base, type TaskMeta, type TestContext } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';
import { type SpeakContext, speakFile } from './context.ts';
import type { ProvidedRun } from './meta.ts';
import { contextOf, NO_RUN_CONTEXT, type RunContext } from './run-context.ts';

/** The fixtures every conformance test can ask for. */
export interface RunFixtures extends Partial<ProvidedRun> {
  /** The run's context (worker-scoped): plan, facts, throttle, trusted CA, shared voice, webhook sink. */
  run: RunContext;
  /** The suite file's context (file-scoped): logged in, the models, tracking what the file creates. */
  speak: SpeakContext;
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

/** A file context outside a run: reading any part of it says how to start one. */
const absentSpeak: SpeakContext = {
  get config() {
    return noRun();
  },
  get api() {
    return noRun();
  },
  get anon() {
    return noRun();
  },
  get model() {
    return noRun();
  },
  get models() {
    return noRun();
  },
  track: noRun,
  untrack: noRun,
  prefix: noRun,
  login: noRun,
  loginSecond: noRun,
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
  speak: [
    // From the provided plan, not from `run`: vitest 3.2 hands a file fixture the values of the
    // provided (non-function) fixtures, not those of worker fixtures that are functions.
    async ({ speakRunPlan }, use) => {
      if (speakRunPlan === undefined) return use(absentSpeak);
      const file = speakFile();
      // Never throws (vitest would keep a file fixture's failed setup for the worker's later files):
      // a login that failed is thrown by the parts of the context each test reads.
      await file.open(speakRunPlan);
      try {
        await use(file.context);
      } finally {
        await file.close();
      }
    },
    { scope: 'file' },
  ],
});

/** The fixtures a test body names in its first parameter (`async ({ speak }) => …`), as vitest reads them. */
export function namedFixtures(body: (...args: never[]) => unknown): string[] {
  const first = /^[^(]*\(\s*\{([^}]*)\}/.exec(body.toString())?.[1];
  if (first === undefined) return [];
  return first
    .split(',')
    .map((part) => part.replace(/[:=][\s\S]*/, '').trim())
    .filter((name) => name !== '');
}

/** `speak` in a body that did not name it: vitest did not set it up. */
const unnamedSpeak: SpeakContext = new Proxy(absentSpeak, {
  get() {
    throw new Error(
      'this test did not name `speak` in its first parameter (`async ({ speak }) => …`): vitest sets up only the fixtures a test names.',
    );
  },
});

/** What a conformance test's body receives: the run's context, and vitest's task and abort signal. */
export interface RunTestContext {
  /** The run's context (a worker-scoped fixture): plan, facts, throttle, trust, shared voice, sink. */
  run: RunContext;
  /**
   * The suite file's context (a file-scoped fixture). Set up only for a body that names it in its
   * parameters; in any other body, reading it says so.
   */
  speak: SpeakContext;
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
  options: { timeout: number; meta: Partial<TaskMeta>; concurrent?: boolean; speak?: boolean },
  body: (context: RunTestContext) => Promise<void>,
): void {
  const register = options.concurrent ? runTest.concurrent : runTest;
  // Destructured here: vitest sets up the fixtures a test function's first parameter names.
  if (options.speak)
    register(
      name,
      async ({ run, speak, task, signal }) => body({ run, speak, task, signal }),
      options.timeout,
    );
  else
    register(
      name,
      async ({ run, task, signal }) => body({ run, speak: unnamedSpeak, task, signal }),
      options.timeout,
    );
  const registered = getCurrentSuite().tasks.at(-1);
  if (registered?.type === 'test' && registered.name === name) Object.assign(registered.meta, options.meta);
}
