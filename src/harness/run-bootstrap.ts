/**
 * The one bootstrap of a conformance run's context (./run-context.ts), in the main thread, before
 * vitest starts the suites' threads. `speakcheck run` (src/run/run-conformance.ts) calls it with its
 * budget, stack and preflight; a suite run directly (`npx vitest run --config suites.vitest.config.ts`)
 * gets it from the suites' global setup (./global-setup.ts) when no run provided a plan. Either way:
 *   1. openRun: the throttle (`--max-rps`, the budget's deadline), the trusted CA (`--ca-file`) and the
 *      run's facts, published in environment data for the threads (what provide cannot carry);
 *   2. startRunStack: the embedded or container stack when the run has no remote server;
 *   3. providePlan: the plan, through vitest's provide (the global setup adds the shared voice and sink).
 */
import type { Vitest } from 'vitest/node';
import { runThrottle, type SharedThrottle } from '../client/back-pressure.ts';
import { trustCaFile } from '../client/tls-trust.ts';
import type { DeepReadonly } from '../config/deep-freeze.ts';
import type { RunConfig } from '../config/types.ts';
import { startRunFacts } from '../facts/run-facts.ts';
import { runStackLifetimes } from '../stack/run-lifetimes.ts';
import { EMBEDDED_RUN_SERVE_ARGS, type StartedTarget, startTarget } from '../stack/target.ts';
import type { ProvidedRun } from './meta.ts';
import type { RunPlan } from './run-plan.ts';

/** The parts of a run's context its main thread owns until the run ends. */
export interface OpenRun {
  readonly throttle: SharedThrottle;
  /** The run's facts file (src/facts). */
  readonly factsPath: string;
  /** Removes the run's facts file (after the reporter has read the run's outages). */
  close(): void;
}

/**
 * The throttle, the trusted CA and the run's facts, set before anything sends a request or vitest
 * starts its worker threads: they copy all three from this thread's environment data.
 */
export function openRun(config: DeepReadonly<RunConfig>, o: { deadlineMs?: number } = {}): OpenRun {
  const throttle = runThrottle();
  throttle.reset({
    ...(config.maxRps !== undefined ? { maxRps: config.maxRps } : {}),
    ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
  });
  trustCaFile(config.caFile);
  const facts = startRunFacts();
  return { throttle, factsPath: facts.path, close: () => facts.remove() };
}

/**
 * The embedded or container stack when the run starts its own server (the plan takes its address
 * and customers); undefined against a remote server. One synthesis worker with one espeak thread (why: src/stack/target.ts)
 * and, in a quick run, short lifetimes so that it judges the expiry MUSTs (src/stack/run-lifetimes.ts).
 */
export async function startRunStack(
  config: DeepReadonly<RunConfig>,
  onLog?: (line: string) => void,
): Promise<StartedTarget | undefined> {
  if (config.target !== 'embedded' && config.target !== 'container') return undefined;
  const lifetimes = runStackLifetimes(config.expiry.mode);
  return startTarget(config.target, {
    ...(onLog ? { onLog } : {}),
    serveArgs: EMBEDDED_RUN_SERVE_ARGS,
    ...(lifetimes ? { lifetimes } : {}),
  });
}

/** Whatever can provide to the suites' threads: the Vitest instance or the global setup's project. */
type Provider = Pick<Vitest, 'provide'>;

/** Hands the plan to the suites' threads (read by ./run-context.ts; the global setup reads it too). */
export function providePlan(to: Provider, plan: RunPlan): void {
  to.provide('speakRunPlan', plan);
}

/** The rest of the run's provided context, from the global setup. */
export function provideRunParts(to: Provider, parts: Omit<ProvidedRun, 'speakRunPlan'>): void {
  to.provide('speakSharedVoice', parts.speakSharedVoice);
  to.provide('speakWebhookSink', parts.speakWebhookSink);
}
