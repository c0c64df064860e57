/**
 * Global setup of suites.vitest.config.ts. `speakcheck run` has already resolved the run plan (and
 * started the stack) and passes it in SPEAKCHECK_RUN_CONFIG. Run directly
 * (`npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts`, while writing a suite), the
 * config comes from SPEAK_* variables, the embedded stack is started when no base url is set, and
 * the plan is resolved here (./run-plan.ts, without a preflight: the suites' default threads).
 * Either way the run's shared voice is asked for here (./shared-voice.ts) and deleted at the end,
 * and the run's webhook sink (./run-sink.ts) lives here, from the first suite file to the last, as
 * does the ledger of stuck waits (./wait-ledger.ts).
 */
import type { TestProject } from 'vitest/node';
import { runThrottle } from '../client/back-pressure.ts';
import { trustCaFile } from '../client/tls-trust.ts';
import { resolveRunConfig } from '../config/resolve.ts';
import { RUN_CONFIG_ENV } from '../config/types.ts';
import { publishedFactsPath, startRunFacts } from '../facts/run-facts.ts';
import { runStackLifetimes } from '../stack/run-lifetimes.ts';
import { EMBEDDED_RUN_WORKERS, type StartedTarget, startTarget } from '../stack/target.ts';
import { decodeRunPlan, encodeRunPlan, type RunPlan, resolveRunPlan } from './run-plan.ts';
import { type RunSink, startRunSink } from './run-sink.ts';
import { generateSharedVoice, type SharedVoice } from './shared-voice.ts';
import './meta.ts';

let stack: StartedTarget | undefined;
let sharedVoice: SharedVoice | undefined;
let sink: RunSink | undefined;
/** The run's facts when the global setup made them (run directly; `speakcheck run` makes its own). */
let facts: ReturnType<typeof startRunFacts> | undefined;

export async function setup(project: TestProject): Promise<void> {
  const given = process.env[RUN_CONFIG_ENV];
  // The run's facts (src/facts), published before vitest starts the worker threads, which copy it.
  if (publishedFactsPath() === undefined) facts = startRunFacts();
  let plan: RunPlan;
  if (given) {
    plan = decodeRunPlan(given);
  } else {
    const config = resolveRunConfig({});
    // `speakcheck run` set these up before the suites; run directly, the global setup does (before
    // vitest starts the worker threads, which copy them: src/client/back-pressure.ts).
    runThrottle().reset(config.maxRps !== undefined ? { maxRps: config.maxRps } : {});
    trustCaFile(config.caFile);
    if (config.target === 'embedded') {
      // The same stack `speakcheck run` starts (one synthesis worker: src/stack/target.ts; its
      // lifetimes: src/stack/run-lifetimes.ts).
      const lifetimes = runStackLifetimes(config.expiry.mode);
      stack = await startTarget('embedded', {
        workers: EMBEDDED_RUN_WORKERS,
        ...(lifetimes ? { lifetimes } : {}),
      });
    }
    plan = resolveRunPlan(config, stack, undefined);
  }
  project.provide('speakRunConfig', given ?? encodeRunPlan(plan));
  // The run's files (collected before the global setup runs): which use the sink, which file entries.
  const files = project.vitest.state.getPaths();
  [sharedVoice, sink] = await Promise.all([generateSharedVoice(plan), startRunSink(plan, files)]);
  project.provide('speakSharedVoice', JSON.stringify(sharedVoice.provided));
  project.provide('speakWebhookSink', JSON.stringify(sink.provided));
}

export async function teardown(): Promise<void> {
  await sink?.stop();
  sink = undefined;
  // After every suite file: their takes of the shared voice are deleted by then.
  await sharedVoice?.remove();
  sharedVoice = undefined;
  await stack?.stop();
  stack = undefined;
  // Not removed here: the reporter still reads the run's outages after the teardown; at exit.
  const made = facts;
  facts = undefined;
  if (made) process.once('exit', () => made.remove());
}
