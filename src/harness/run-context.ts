/**
 * The run's context: everything a suite thread knows of the run it is part of, as one typed value
 * (the role of Schemathesis's CheckContext). It is handed to tests as vitest fixtures
 * (./fixtures.ts) and read by the harness's own collection-time code (covers, the suites' helpers) through
 * `currentRun()`.
 *
 * Where each part comes from (one bootstrap, ./run-bootstrap.ts, sets them up in the main thread
 * before vitest starts the suites' threads):
 *   - plan, shared voice, webhook sink: vitest's provide/inject, typed by ProvidedContext (./meta.ts);
 *   - facts, throttle, trusted CA: node:worker_threads environment data (a file path, a
 *     SharedArrayBuffer, a PEM), which a thread copies when it starts: what provide cannot carry.
 */
import { inject } from 'vitest';
import { runThrottle, type SharedThrottle } from '../client/back-pressure.ts';
import { trustedCa } from '../client/tls-trust.ts';
import type { ProvidedWebhookSink } from '../client/webhook-sink-control.ts';
import { type FactStore, runFacts } from '../facts/run-facts.ts';
import type { ProvidedRun } from './meta.ts';
import type { RunPlan } from './run-plan.ts';
import type { ProvidedSharedVoice } from './shared-voice.ts';

export type { ProvidedRun };

export interface RunContext {
  /** The run plan (./run-plan.ts): the run's config with its server, threads and budget; frozen. */
  readonly plan: RunPlan;
  /** What the run learned once (src/facts), shared by every thread of the run. */
  readonly facts: FactStore;
  /** The run-wide request pacing (`--max-rps`) and back-pressure tally (src/client/back-pressure.ts). */
  readonly throttle: SharedThrottle;
  /** The CA list of `--ca-file` (system roots plus the private CA), undefined without one. */
  readonly trust: readonly string[] | undefined;
  /** The run's shared voice, or why there is none (./shared-voice.ts). */
  readonly sharedVoice: ProvidedSharedVoice;
  /** The run's webhook sink, or why the server cannot call one (./run-sink.ts). */
  readonly webhookSink: ProvidedWebhookSink;
}

/** The shared voice and sink when the global setup provided none (`run --list` collects without it). */
const NOT_STARTED = 'the suites’ global setup did not run (a listing, not a run)';

let last: { provided: readonly unknown[]; context: RunContext } | undefined;

/**
 * The context of the provided parts (the same object while they are the same), with this thread's
 * facts, throttle and CA, read when asked for: they live in the thread's environment data.
 */
export function contextOf(provided: Partial<ProvidedRun> & Pick<ProvidedRun, 'speakRunPlan'>): RunContext {
  const parts = [provided.speakRunPlan, provided.speakSharedVoice, provided.speakWebhookSink];
  if (last && parts.every((part, i) => part === last?.provided[i])) return last.context;
  const context: RunContext = {
    plan: provided.speakRunPlan,
    get facts() {
      return runFacts();
    },
    get throttle() {
      return runThrottle();
    },
    get trust() {
      return trustedCa();
    },
    sharedVoice: provided.speakSharedVoice ?? { ok: false, problem: NOT_STARTED },
    webhookSink: provided.speakWebhookSink ?? { ok: false, reason: NOT_STARTED },
  };
  last = { provided: parts, context };
  return context;
}

/**
 * The run's context in this thread, or undefined outside a run (a unit test, a suite module loaded
 * by something other than the suites' vitest): the one place that tells the two apart.
 */
export function currentRun(): RunContext | undefined {
  const plan = injected('speakRunPlan');
  if (plan === undefined) return undefined;
  return contextOf({
    speakRunPlan: plan,
    speakSharedVoice: injected('speakSharedVoice'),
    speakWebhookSink: injected('speakWebhookSink'),
  });
}

/** What asking for the run's context outside a run says. */
export const NO_RUN_CONTEXT =
  'no run context: start the suites with `speakcheck run` (or `npx vitest run --config suites.vitest.config.ts`), whose bootstrap provides the run plan.';

/** The run's context; throws the one sentence that says how to start a run when there is none. */
export function runContext(): RunContext {
  const run = currentRun();
  if (run === undefined) throw new Error(NO_RUN_CONTEXT);
  return run;
}

/** A provided value, or undefined outside vitest's worker (where `inject` has no state to read). */
function injected<K extends keyof ProvidedRun>(key: K): ProvidedRun[K] | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}
