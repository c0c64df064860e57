/**
 * CI with a required tool removed fails, naming it: the real test files that need k6 and curl, run
 * by vitest with SPEAKCHECK_REQUIRE set and the tool made unavailable (a K6_BIN that does not exist;
 * a PATH holding node alone), fail before they start anything, in the sentence of
 * test/support/required-tools.ts. Without SPEAKCHECK_REQUIRE the same files skip instead.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import { type Finished, runToEnd } from '../../src/stack/launcher.ts';
import { HOW_TO_INSTALL, REQUIRE_ENV } from './required-tools.ts';

const VITEST = join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const K6_FILE = 'test/load/k6-smoke.int.test.ts';
const CURL_FILE = 'test/reference/signing/blob-store.int.test.ts';

/** A PATH with node and nothing else: no curl. */
const nodeOnly = mkdtempSync(join(tmpdir(), 'node-only-'));
symlinkSync(process.execPath, join(nodeOnly, 'node'));
afterAll(() => rmSync(nodeOnly, { recursive: true, force: true }));

/** The environment of a fresh vitest: this worker's own VITEST_* variables left out. */
function freshEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  delete env[REQUIRE_ENV];
  return { ...env, CI: '', ...extra };
}

function vitestRun(file: string, env: NodeJS.ProcessEnv): Promise<Finished> {
  return runToEnd({
    args: [VITEST, 'run', '--config', 'vitest.config.ts', file],
    cwd: REPO_ROOT,
    env,
    timeoutMs: 55_000,
  });
}

describe('a required tool that is missing fails the run', { timeout: 60_000 }, () => {
  test('k6 (K6_BIN points nowhere): the k6 smoke fails, naming k6 and load/install-k6.sh', async () => {
    const { code, output } = await vitestRun(
      K6_FILE,
      freshEnv({ [REQUIRE_ENV]: 'k6', K6_BIN: '/nonexistent/k6' }),
    );
    expect(code, output).toBe(1);
    expect(output).toContain(
      `k6 is required here (${REQUIRE_ENV}) but missing: k6 v2.2.0 is not installed at /nonexistent/k6; to install it, ${HOW_TO_INSTALL.k6}.`,
    );
  });

  test('curl (PATH without it): the blob-store tests fail, naming curl', async () => {
    const { code, output } = await vitestRun(
      CURL_FILE,
      freshEnv({ [REQUIRE_ENV]: 'k6,curl', PATH: nodeOnly }),
    );
    expect(code, output).toBe(1);
    expect(output).toContain(
      `curl is required here (${REQUIRE_ENV}) but missing: curl is not on PATH; to install it, ${HOW_TO_INSTALL.curl}.`,
    );
  });

  test('not required: the same k6 file skips, saying why, and the run passes', async () => {
    const { code, output } = await vitestRun(K6_FILE, freshEnv({ K6_BIN: '/nonexistent/k6' }));
    expect(code, output).toBe(0);
    expect(output).toMatch(
      /k6 missing, its tests are skipped: k6 v2\.2\.0 is not installed at \/nonexistent\/k6/,
    );
    expect(output).toMatch(/skipped/);
  });
});
