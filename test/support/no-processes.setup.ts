/**
 * Setup file of the `unit` project (vitest.config.ts): unit tests start no processes, so the inner
 * loop stays fast. Any child-process call fails with a sentence saying where such a test belongs.
 * node:child_process's exports are replaced and synced into its ESM bindings, so named imports see
 * the guard too.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const GUARDED = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

export class ProcessInUnitTestError extends Error {
  constructor(call: string) {
    super(
      `child_process.${call}() in a unit test: the unit project starts no processes; name the file *.int.test.ts (the integration project, vitest.config.ts)`,
    );
    this.name = 'ProcessInUnitTestError';
  }
}

const writable = childProcess as unknown as Record<string, unknown>;
for (const name of GUARDED) {
  writable[name] = () => {
    throw new ProcessInUnitTestError(name);
  };
}
syncBuiltinESMExports();
