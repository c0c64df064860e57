import { defineConfig } from 'vitest/config';
import { SuiteSequencer } from './src/harness/sequencer.ts';

// The conformance suites, run by `speakcheck run` (which adds its reporters and hands the run config
// over in SPEAKCHECK_RUN_CONFIG). Usable directly while writing a suite:
//   npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts
// (starts the embedded reference stack unless SPEAK_BASE_URL etc. are set).
export default defineConfig({
  test: {
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
  },
});
