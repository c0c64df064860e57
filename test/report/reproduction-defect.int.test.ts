/**
 * A failure's curl reproduction shows the same defect: a run against `serve --defect version-string`
 * fails VERSION-MAJOR-MINOR; the curl lines its report gives, run with the real curl and only
 * $SPEAK_TOKEN set, bring back the defective answer ({"version": "1.0"}, a string).
 * Heavy (starts a stack and a run): `flock /work/heavy.lock npx vitest run test/report/reproduction-defect.int.test.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type EmbeddedStack, startEmbeddedStack } from '../../src/stack/embedded.ts';
import { toolReady } from '../support/required-tools.ts';
import { speakcheckRun } from '../support/speakcheck-run.ts';

const REQUIREMENT = 'VERSION-MAJOR-MINOR';
const hasCurl = toolReady(
  'curl',
  spawnSync('curl', ['--version']).status === 0 ? undefined : 'curl is not on PATH',
);
const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-repro-'));
let stack: EmbeddedStack | undefined;

beforeAll(async () => {
  if (hasCurl) stack = await startEmbeddedStack({ extraArgs: ['--defect', 'version-string'] });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(reportDir, { recursive: true, force: true });
});

describe('reproduction against a defective stack', () => {
  test.skipIf(!hasCurl)(
    'the curl of a failed requirement shows the defect again',
    { timeout: 150_000 },
    async () => {
      const s = stack!;
      const run = await speakcheckRun(
        ['--base-url', s.baseUrl, '--requirement', REQUIREMENT, '--report-dir', reportDir],
        { env: { SPEAK_EMAIL: s.email, SPEAK_PASSWORD: s.password }, timeoutMs: 140_000 },
      );
      expect(run.code, run.stdout + run.stderr).toBe(1);
      const json = readFileSync(join(reportDir, 'conformance.json'), 'utf8');
      expect(json).not.toContain(s.password);
      const report = JSON.parse(json) as {
        requirements: Array<{ id: string; status: string; reproduction?: { curl: string[] } }>;
      };
      const failed = report.requirements.find((r) => r.id === REQUIREMENT);
      expect(failed?.status).toBe('failed');
      const curls = failed?.reproduction?.curl ?? [];
      const versionCurl = curls.find((c) => c.includes('/v1/speak/version'));
      expect(versionCurl, curls.join('\n')).toBeDefined();
      expect(readFileSync(join(reportDir, 'conformance.md'), 'utf8')).toContain(versionCurl!);

      const login = await fetch(`${s.baseUrl}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: s.email, password: s.password }),
      });
      const { access_token: token } = (await login.json()) as { access_token: string };
      const out = execFileSync('sh', ['-c', versionCurl!], {
        env: { PATH: process.env.PATH ?? '', SPEAK_TOKEN: token },
        timeout: 20_000,
      }).toString();
      expect(out).toMatch(/^HTTP\/1\.1 200/);
      expect(out).toMatch(/\{"version":\s*"1\.0"\}\s*$/);
    },
  );
});
