import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SuiteSequencer } from './src/harness/sequencer.ts';

const EXIT_WITH_RUNNER = fileURLToPath(new URL('./src/harness/exit-with-runner.mjs', import.meta.url));

// The conformance suites, run by `speakcheck run` (which adds its reporters and hands the run config
// over in SPEAKCHECK_RUN_CONFIG). Usable directly while writing a suite:
//   npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts
// (starts the embedded reference stack unless SPEAK_BASE_URL etc. are set).
export default defineConfig({
  test: {
    include: ['suites/**/*.spec.ts'],
    globalSetup: ['src/harness/global-setup.ts'],
    setupFiles: ['allure-vitest/setup'],
    pool: 'forks',
    // A worker whose parent died exits instead of spinning (src/harness/exit-with-runner.mjs). 1 MB
    // semi-spaces (V8's young generation, default up to 16 MB): a lower peak RSS of the run's tree at
    // no CPU cost (`speakcheck bench`, as the reference stack's processes: reference/entry-points.ts).
    poolOptions: { forks: { execArgv: ['--max-semi-space-size=1', '--import', EXIT_WITH_RUNNER] } },
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
  },
});
