import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const EXIT_WITH_RUNNER = fileURLToPath(new URL('./src/harness/exit-with-runner.mjs', import.meta.url));

// speakcheck's own tests: the harness library, the reference stack driven over HTTP, and the
// conformance suites run end to end against the reference stack. The conformance suites themselves
// (suites/) have their own config, used by `speakcheck run`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
