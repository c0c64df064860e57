/**
 * How a worker learns the run's plan (./run-plan.ts): `speakcheck run` puts it (JSON) in one
 * environment variable; a plain `vitest --config suites.vitest.config.ts` gets it from the suites'
 * global setup through vitest's provide/inject. Frozen: a suite reads it, never changes it.
 */
import { inject } from 'vitest';
import { RUN_CONFIG_ENV } from '../config/types.ts';
import { decodeRunPlan, type RunPlan } from './run-plan.ts';
import './meta.ts';

let cached: RunPlan | undefined;

export function loadRunConfig(): RunPlan {
  if (cached) return cached;
  const json = process.env[RUN_CONFIG_ENV] ?? safeInject();
  if (!json) {
    throw new Error(
      `no run configuration: start the suites with \`speakcheck run\` (or vitest --config suites.vitest.config.ts), which sets ${RUN_CONFIG_ENV}.`,
    );
  }
  cached = decodeRunPlan(json);
  return cached;
}

function safeInject(): string | undefined {
  try {
    return inject('speakRunConfig');
  } catch {
    return undefined;
  }
}
