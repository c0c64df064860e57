import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';
import { HARNESS_V8_FLAGS, YOUNG_GENERATION_V8_FLAGS } from '../../src/cli/process-v8.mjs';

it.each([
  ['espeak', ESPEAK_V8_FLAGS],
  ['harness', HARNESS_V8_FLAGS],
  ['young generation', YOUNG_GENERATION_V8_FLAGS],
])("the %s's V8 flags are flags this Node accepts on a command line", (_name, flags) => {
  expect(flags.length).toBeGreaterThan(0);
  // Node refuses an option it does not know ("bad option", exit 9): these start a process.
  const out = execFileSync(process.execPath, [...flags, '-p', '6 * 7'], { encoding: 'utf8' });
  expect(out.trim()).toBe('42');
});
