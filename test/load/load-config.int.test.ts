/**
 * `speakcheck load` resolves its server options as `run` does (src/config/resolve.ts): the same
 * SPEAK_* variables (SPEAK_AUTH_URL, not the SPEAKCHECK_AUTH_URL it once read), the same config
 * file, flags first. `--print-config` shows the result and contacts nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/evidence/redact.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function load(args: string[], env: Record<string, string>, cwd: string) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SPEAK')));
  return spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'speakcheck.js'), 'load', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...clean, ...env },
  });
}

describe('speakcheck load: config resolution', () => {
  it('reads SPEAK_AUTH_URL and the config file; flags win; secrets redacted', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'load-config-'));
    dirs.push(cwd);
    writeFileSync(
      join(cwd, 'speakcheck.config.yaml'),
      'baseUrl: http://file.example:1\nemail: file@x.y\npassword: filepw\n',
    );
    const out = load(
      ['ttfb-wav', '--print-config', '--email', 'flag@x.y'],
      { SPEAK_AUTH_URL: 'http://auth.example:2', SPEAKCHECK_AUTH_URL: 'http://wrong.example:3' },
      cwd,
    );
    expect(out.status, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({
      configFile: join(cwd, 'speakcheck.config.yaml'),
      baseUrl: 'http://file.example:1',
      authUrl: 'http://auth.example:2',
      email: 'flag@x.y',
      password: REDACTED,
    });
  });

  it('a bad option value is exit 2 with one sentence', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'load-config-'));
    dirs.push(cwd);
    const out = load(['ttfb-wav', '--print-config', '--base-url', 'nope'], {}, cwd);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('speakcheck load: --base-url "nope" is not a URL');
  });
});
