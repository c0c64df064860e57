/**
 * A fresh clone stays clean after the README's first command (issue 51 item 1): `npm install` must
 * write package-lock.json byte for byte as committed, else every report of the clone says
 * `speakcheck 0.1.0 (<sha>-dirty)` and a buyer reads "the harness was modified". npm 11.19 (this
 * machine's, the README's) and npm 11.6 (CI's `npx -y npm@11.6.0 ci`) write the same lock; an
 * older npm's lock differs (tsx `"dev": true` where npm 11 writes `"devOptional": true`, tsx being
 * also vite's optional peer).
 *
 * `--package-lock-only` resolves the tree exactly as `npm install` does and writes only the lock
 * (no node_modules, no install scripts); `--offline` keeps it on the loopback-only machine: every
 * fact it needs is in package.json and the lock itself, so it runs in about a second.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'speakcheck-lockfile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function npmInstallLockOnly(cwd: string): { status: number | null; output: string } {
  const result = spawnSync(
    'npm',
    ['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'],
    {
      cwd,
      encoding: 'utf8',
      timeout: 60_000,
      // An empty cache: the result must not depend on what this machine downloaded before.
      env: {
        ...process.env,
        npm_config_cache: join(scratch, 'npm-cache'),
        npm_config_update_notifier: 'false',
      },
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('package-lock.json is what `npm install` writes', () => {
  it('leaves the committed lock unchanged, so a fresh clone stays clean', () => {
    const committed = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
    copyFileSync(join(ROOT, 'package.json'), join(scratch, 'package.json'));
    copyFileSync(join(ROOT, 'package-lock.json'), join(scratch, 'package-lock.json'));
    const { status, output } = npmInstallLockOnly(scratch);
    expect(status, `npm install --package-lock-only failed: ${output}`).toBe(0);
    expect(output, 'the install warns of an engine Node 20 does not meet').not.toContain('EBADENGINE');
    const written = readFileSync(join(scratch, 'package-lock.json'), 'utf8');
    // Line by line, so a failure shows the rewritten entries, not two 200 kB strings.
    expect(written.split('\n'), 'npm install rewrites package-lock.json: commit what it writes').toEqual(
      committed.split('\n'),
    );
  });

  it('pins no package that refuses the Node speakcheck supports (cookie 2 wants Node 22)', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const cookie = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/cookie'));
    expect(cookie.map(([, entry]) => entry.version?.split('.')[0])).toEqual(['1']);
    // A consumer's npm ignores our `overrides`: the pin holds in a package install only as a direct dependency.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies['light-my-request']).toBe('6.6.0');
  });
});
