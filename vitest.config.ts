import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const EXIT_WITH_RUNNER = fileURLToPath(new URL('./src/harness/exit-with-runner.mjs', import.meta.url));

/**
 * The test files that start processes or stacks (the reference stack, `speakcheck run|serve|load`,
 * k6, ffmpeg, python, containers, browsers) or synthesize speech (espeak engine threads, seconds
 * each) are named `*.int.test.ts`: the `integration` project. Every other file is a pure
 * `unit` test, the inner loop (`npm run test:unit`); its setup file fails any child-process call
 * with a sentence naming the suffix, so a slow file cannot slip into it unnoticed.
 */
export const INTEGRATION = ['test/**/*.int.test.ts'];

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
