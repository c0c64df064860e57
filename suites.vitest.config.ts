import { defineConfig } from 'vitest/config';
import { SUITES_TEST_OPTIONS } from './src/harness/suites-vitest-options.ts';

// The conformance suites, as `speakcheck run` runs them (it passes the same options inline, adds
// its reporters and provides the run plan to the threads: src/harness/run-bootstrap.ts). Usable directly in a clone
// while writing a suite:
//   npx vitest run --config suites.vitest.config.ts suites/auth.spec.ts
// (starts the embedded reference stack unless SPEAK_BASE_URL etc. are set).
export default defineConfig({ test: SUITES_TEST_OPTIONS });
