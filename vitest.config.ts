import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const EXIT_WITH_RUNNER = fileURLToPath(new URL('./src/harness/exit-with-runner.mjs', import.meta.url));

/**
 * The test files that start processes or stacks (the reference stack, `speakcheck run|serve|load`,
 * k6, ffmpeg, python, containers, browsers) or synthesize speech (espeak engine threads, seconds
 * each): the `integration` project. Every other file is a pure
 * `unit` test, the inner loop (`npm run test:unit`); its setup file fails any child-process call
 * with a sentence pointing here, so a slow file cannot slip into it unnoticed.
 */
export const INTEGRATION = [
  'test/browser/api-docs.test.ts',
  'test/browser/browser-helper.test.ts',
  'test/browser/conformance-report-page.test.ts',
  'test/browser/perf-compare-page.test.ts',
  'test/browser/perf-compare-real-runs.test.ts',
  'test/container/**/*.test.ts',
  'test/defects/**/*.test.ts',
  'test/harness/action-run.test.ts',
  'test/harness/container-launcher-missing.test.ts',
  'test/harness/diagnostics.test.ts',
  'test/harness/embedded-stack.test.ts',
  'test/harness/hostile-server.test.ts',
  'test/harness/import-boundaries.test.ts',
  'test/harness/launcher.test.ts',
  'test/harness/layers.test.ts',
  'test/harness/per-requirement.test.ts',
  'test/harness/reproduction-defect.test.ts',
  'test/harness/reproduction.test.ts',
  'test/harness/rerun.test.ts',
  'test/harness/run-*.test.ts',
  'test/interop/**/*.test.ts',
  'test/latitude/**/*.test.ts',
  'test/load/capacity-slowdown.test.ts',
  'test/load/framing.test.ts',
  'test/load/install-k6.test.ts',
  'test/load/k6-smoke.test.ts',
  'test/load/load-config.test.ts',
  'test/load/merge.test.ts',
  'test/load/run-k6.test.ts',
  'test/reference/audio.test.ts',
  'test/reference/blob-store.test.ts',
  'test/reference/list-query-fuzz.test.ts',
  'test/reference/hosted-stack.test.ts',
  'test/reference/rest-*.test.ts',
  'test/reference/serve-cli.test.ts',
  'test/reference/synth.test.ts',
  'test/reference/webhooks.test.ts',
  'test/reference/websocket.test.ts',
  'test/reference/websocket-store-contention.test.ts',
  'test/reference/websocket-worker.test.ts',
  'test/reference/worker-cli.test.ts',
  'test/suites/broken-server.test.ts',
  'test/suites/checks-audio.test.ts',
  'test/suites/expiry.test.ts',
  'test/suites/webhooks-faults.test.ts',
  'test/support/required-tools-probe.test.ts',
];

// speakcheck's own tests: the harness library, the reference stack driven over HTTP, and the
// conformance suites run end to end against the reference stack. The conformance suites themselves
// (suites/) have their own config, used by `speakcheck run`.
// `npm test` runs both projects; `npm run test:unit` only `unit`; a file path selects its project.
export default defineConfig({
  test: {
    pool: 'forks',
    // A worker whose parent died exits instead of spinning (src/harness/exit-with-runner.mjs).
    poolOptions: { forks: { execArgv: ['--import', EXIT_WITH_RUNNER] } },
    // Two cores: more than two files at once only makes each one slower.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 10_000,
    reporters: process.env.CI ? ['default', 'junit'] : ['default'],
    outputFile: { junit: 'reports/self-test/junit.xml' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: INTEGRATION,
          setupFiles: ['test/support/no-processes.setup.ts'],
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
