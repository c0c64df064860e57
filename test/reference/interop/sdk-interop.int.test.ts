/**
 * The vendor's public Python SDK (`daisys`, pinned) against the reference stack, unchanged:
 * scripts/sdk-interop.sh makes the venv (.cache/), starts `serve`, and runs
 * test/reference/interop/daisys_sdk_interop.py. Skipped, saying why, only where Python 3.10+ or PyPI is missing
 * (the script's exit code 3) and the sdk is not required (test/support/required-tools.ts): then it fails.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { type Finished, runToEnd } from '../../../src/stack/launcher.ts';
import { toolReady } from '../../support/required-tools.ts';

const SCRIPT = fileURLToPath(new URL('../../../scripts/sdk-interop.sh', import.meta.url));
const SKIPPED = 3;

/** The script to its end (bounded below the test's own timeout), output interleaved. */
function runScript(): Promise<Finished> {
  return runToEnd({ command: 'bash', args: [SCRIPT], timeoutMs: 170_000, what: 'scripts/sdk-interop.sh' });
}

it('the daisys Python SDK drives the reference stack: REST, audio, websocket (iter_request) and refresh', async (ctx) => {
  const { code, output } = await runScript();
  if (code === SKIPPED && !toolReady('sdk', output.trim())) ctx.skip();
  expect(code, output).toBe(0);
  expect(output).toContain('ok websocket iter_request, chunks mode');
  expect(output).toContain('daisys SDK interop: all steps passed');
}, 180_000);
