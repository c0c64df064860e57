import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ProcessInUnitTestError } from './no-processes.setup.ts';

// Runs in the unit project: its setup file (no-processes.setup.ts) must refuse every process start,
// named imports included, so a slow file cannot join the inner loop unnoticed.
describe('unit project guard', () => {
  it('refuses child processes with a sentence naming where the file belongs', () => {
    expect(() => spawn('true')).toThrow(ProcessInUnitTestError);
    expect(() => execFileSync('true')).toThrow(
      /name the file \*\.int\.test\.ts \(the integration project, vitest\.config\.ts\)/,
    );
  });
});
