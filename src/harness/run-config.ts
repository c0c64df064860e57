/**
 * The run plan (./run-plan.ts) as a suite reads it: the run context's (./run-context.ts), provided
 * by the run's bootstrap (./run-bootstrap.ts). Frozen: a suite reads it, never changes it.
 */
import { runContext } from './run-context.ts';
import type { RunPlan } from './run-plan.ts';

export function loadRunConfig(): RunPlan {
  return runContext().plan;
}
