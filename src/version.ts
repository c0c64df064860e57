/**
 * Which speakcheck produced a report: the package version and, in a git checkout, the commit
 * (`-dirty` when the tree has changes), so a verdict can be traced to the suites that gave it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let cached: string | undefined;

export function speakcheckVersion(): string {
  if (cached !== undefined) return cached;
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  const git = spawnSync('git', ['-C', ROOT, 'describe', '--always', '--dirty', '--abbrev=7'], {
    encoding: 'utf8',
    timeout: 2_000,
  });
  const commit = git.status === 0 ? git.stdout.trim() : '';
  cached = commit ? `${version} (${commit})` : version;
  return cached;
}
