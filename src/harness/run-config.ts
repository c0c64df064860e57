/**
 * How a worker learns the run's configuration: `speakcheck run` puts it (JSON) in one environment
 * variable; a plain `vitest --config suites.vitest.config.ts` gets it from the suites' global setup
 * through vitest's provide/inject.
 */
import { inject } from 'vitest';
import { decodeRunConfig } from '../config/resolve.ts';
import { RUN_CONFIG_ENV, type RunConfig } from '../config/types.ts';
import './meta.ts';

let cached: RunConfig | undefined;

export function loadRunConfig(): RunConfig {
  if (cached) return cached;
  const json = process.env[RUN_CONFIG_ENV] ?? safeInject();
  if (!json) {
    throw new Error(
      `no run configuration: start the suites with \`speakcheck run\` (or vitest --config suites.vitest.config.ts), which sets ${RUN_CONFIG_ENV}.`,
    );
  }
  cached = decodeRunConfig(json);
  return cached;
}

function safeInject(): string | undefined {
  try {
    return inject('speakRunConfig');
  } catch {
    return undefined;
  }
}
