/**
 * Global setup of suites.vitest.config.ts. `speakcheck run` has already resolved the config (and
 * started the stack) and passes it in SPEAKCHECK_RUN_CONFIG: then nothing happens here. Run directly
 * (`npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts`, while writing a suite), the
 * config comes from SPEAK_* variables and the embedded stack is started when no base url is set.
 */
import type { TestProject } from 'vitest/node';
import { encodeRunConfig, resolveRunConfig } from '../config/resolve.ts';
import { RUN_CONFIG_ENV } from '../config/types.ts';
import { type EmbeddedStack, startEmbeddedStack } from '../stack/embedded.ts';
import './meta.ts';

let stack: EmbeddedStack | undefined;

export async function setup(project: TestProject): Promise<void> {
  const given = process.env[RUN_CONFIG_ENV];
  if (given) {
    project.provide('speakRunConfig', given);
    return;
  }
  const config = resolveRunConfig({});
  if (config.target === 'embedded') {
    stack = await startEmbeddedStack();
    config.baseUrl = stack.baseUrl;
    config.authUrl = stack.baseUrl;
    config.email = stack.email;
    config.password = stack.password;
  }
  project.provide('speakRunConfig', encodeRunConfig(config));
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  stack = undefined;
}
