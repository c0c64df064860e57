import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ESPEAK_V8_FLAGS } from '../../reference/synth/espeak-v8.mjs';

it("espeak's V8 flags are flags this Node accepts on a command line (a worker process gets them there)", () => {
  expect(ESPEAK_V8_FLAGS.length).toBeGreaterThan(0);
  // Node refuses an option it does not know ("bad option", exit 9): these start a process.
  const out = execFileSync(process.execPath, [...ESPEAK_V8_FLAGS, '-p', '6 * 7'], { encoding: 'utf8' });
  expect(out.trim()).toBe('42');
});
