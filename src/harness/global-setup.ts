/**
 * Global setup of the conformance suites. `speakcheck run` has already bootstrapped the run
 * (./run-bootstrap.ts: throttle, CA, facts, stack, plan) and provided its plan. Run directly
 * (`npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts`, while writing a suite), no
 * plan was provided: the config comes from SPEAK_* variables and the same bootstrap runs here (the
 * embedded stack when no base url is set; the plan without a preflight: the suites' default threads).
 * Either way the run's shared voice is asked for here (./shared-voice.ts) and deleted at the end,
 * the run's webhook sink (./run-sink.ts) lives here, from the first suite file to the last, and both
 * are provided to the suites' threads (./run-context.ts).
 */
import type { TestProject } from 'vitest/node';
import { resolveRunConfig } from '../config/resolve.ts';
import type { StartedTarget } from '../stack/target.ts';
import { type OpenRun, openRun, providePlan, provideRunParts, startRunStack } from './run-bootstrap.ts';
import { type RunPlan, resolveRunPlan } from './run-plan.ts';
import { type RunSink, startRunSink } from './run-sink.ts';
import { generateSharedVoice, type SharedVoice } from './shared-voice.ts';
import './meta.ts';

let stack: StartedTarget | undefined;
let sharedVoice: SharedVoice | undefined;
let sink: RunSink | undefined;
/** The run the global setup opened (run directly; `speakcheck run` opens its own). */
let opened: OpenRun | undefined;

export async function setup(project: TestProject): Promise<void> {
  let plan: RunPlan | undefined = project.getProvidedContext().speakRunPlan;
  if (plan === undefined) {
    const config = resolveRunConfig({});
    opened = openRun(config);
    stack = await startRunStack(config);
    plan = resolveRunPlan(config, stack, undefined);
    providePlan(project, plan);
  }
  // The run's files (collected before the global setup runs): which use the sink, which file entries.
  const files = project.vitest.state.getPaths();
  [sharedVoice, sink] = await Promise.all([generateSharedVoice(plan), startRunSink(plan, files)]);
  provideRunParts(project, { speakSharedVoice: sharedVoice.provided, speakWebhookSink: sink.provided });
}

export async function teardown(): Promise<void> {
  const handedOver = sink?.handedOver() ?? [];
  await sink?.stop();
  sink = undefined;
  // After every suite file: their takes of the shared voice are deleted by then, but for those
  // handed to the run's end (webhook windows, judged by the last file), deleted here first.
  await sharedVoice?.remove(handedOver);
  sharedVoice = undefined;
  await stack?.stop();
  stack = undefined;
  // Not removed here: the reporter still reads the run's outages after the teardown; at exit.
  const made = opened;
  opened = undefined;
  if (made) process.once('exit', () => made.close());
}
