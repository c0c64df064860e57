/**
 * The conformance suites' vitest options, given to vitest inline by `speakcheck run` and `run --list`
 * (`config: false`): vitest never bundles a config file, which it would write beside the file
 * (`suites.vitest.config.ts.timestamp-….mjs`), inside a package that may be read-only. Vite's and
 * vitest's caches go to the run's cache directory (src/config/cache-dir.mjs), not node_modules/.vite.
 * suites.vitest.config.ts wraps the same options for running a suite file directly in a clone.
 */
import { join } from 'node:path';
import type { createVitest, InlineConfig } from 'vitest/node';
import { prebuiltSuites } from './prebuilt-suites.ts';
import { SuiteSequencer } from './sequencer.ts';

export const SUITES_TEST_OPTIONS = {
  include: ['suites/**/*.spec.ts'],
  globalSetup: ['src/harness/global-setup.ts'],
  setupFiles: ['allure-vitest/setup'],
  // Worker threads of the run's own process, not forked processes: the suites only talk HTTP and
  // websockets, so they need no process of their own, and each fork cost a Node process (~45 MB of
  // the node binary mapped again, its own heap): the run's tree 731 → ~650 MB summed RSS, and a
  // worker cannot outlive a killed run (`speakcheck bench`; figures in the README).
  pool: 'threads',
  // Two cores shared with the server under test (when embedded): two suite files at a time.
  maxWorkers: 2,
  minWorkers: 1,
  fileParallelism: true,
  isolate: false,
  // Webhook windows open first and are judged last (src/harness/sequencer.ts).
  sequence: { sequencer: SuiteSequencer },
  // A take must become ready inside a test; covers() raises this from --ready-timeout.
  testTimeout: 90_000,
  hookTimeout: 30_000,
  teardownTimeout: 15_000,
  // A conformance run is a measurement: a retried pass would hide a flaky server.
  retry: 0,
  reporters: ['default'],
} satisfies InlineConfig;

/**
 * The suites' options for a run or a listing rooted at `root`, inline: `config: false`, so vitest
 * bundles no config file beside itself in the package. SPEAKCHECK_SUITES points the harness's own
 * tests at fixture suites; users never need it.
 */
export function suitesInlineConfig(root: string) {
  const prebuilt = prebuiltSuites(root);
  return {
    ...SUITES_TEST_OPTIONS,
    ...(prebuilt
      ? {
          server: { deps: { external: prebuilt.external } },
          globalSetup: SUITES_TEST_OPTIONS.globalSetup.map((source) => prebuilt.fileOf(source)),
        }
      : {}),
    root,
    config: false as const,
    watch: false,
    passWithNoTests: true,
    ...(process.env.SPEAKCHECK_SUITES ? { include: [process.env.SPEAKCHECK_SUITES] } : {}),
  };
}

/**
 * Vite's options of a run: its cache (and vitest's results cache under it) in the cache directory;
 * from the bundled CLI, the suites' imports resolved to their prebuilt modules (./prebuilt-suites.ts).
 */
export function suitesViteOverrides(cacheDir: string, root: string): Parameters<typeof createVitest>[2] {
  const prebuilt = prebuiltSuites(root);
  return {
    cacheDir: join(cacheDir, 'vite'),
    // vite's esbuild defaults (TypeScript in, JavaScript out), but for the specs served prebuilt.
    ...(prebuilt ? { plugins: [prebuilt.plugin], esbuild: { exclude: [/\.js$/, prebuilt.specs] } } : {}),
  };
}
