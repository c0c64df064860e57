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
    poolOptions: {
      forks: { execArgv: ['--import', EXIT_WITH_RUNNER] },
      // The unit project's pool, the inner loop (issue 52), measured on the 2-core machine: forks
      // with a fresh process per file spent 66 s (prepare 14.5 s, collect 27 s: 89 processes, each
      // importing its modules anew); threads sharing one module graph per thread, 18 s. A unit file
      // starts no process and changes no process-wide state it does not restore, so files can share
      // a thread. Four threads: the slowest files wait on real timers (URL and token lifetimes of
      // 1-2 s), so more threads overlap their waits (four against three, alternating: 17.2 / 18.1 s,
      // and 27.0 / 30.9 s at load 9-10). Min = max: with fewer threads kept than allowed, tinypool
      // ended a thread that still ran a file ("Terminating worker thread").
      threads: { isolate: false, maxThreads: 4, minThreads: 4 },
    },
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
          // Threads sharing their module graph (poolOptions.threads above: vitest reads the pool's
          // options from the root config).
          pool: 'threads',
          isolate: false,
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
