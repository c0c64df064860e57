import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTALL_SCRIPT, INSTALL_SKIPPED, K6_VERSION } from '../../src/load/k6-binary.ts';

describe('load/install-k6.sh', () => {
  it('without Go: a clear message and the distinct "skipped" exit code, nothing built', () => {
    // A PATH holding only the tools the script needs before it looks for Go.
    const bin = mkdtempSync(join(tmpdir(), 'no-go-'));
    for (const tool of ['dirname', 'grep', 'mkdir', 'cp']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
    const gobin = mkdtempSync(join(tmpdir(), 'k6-gobin-'));
    const out = spawnSync('/bin/bash', [INSTALL_SCRIPT], {
      env: { PATH: bin, K6_GOBIN: gobin, HOME: tmpdir() },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(out.status).toBe(INSTALL_SKIPPED);
    expect(out.stderr).toContain(`Go is not installed, so k6 ${K6_VERSION} cannot be built here`);
    expect(out.stdout).not.toContain('k6=');
  });
});
