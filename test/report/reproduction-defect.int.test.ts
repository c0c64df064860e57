/**
 * A failure's reproduction, pasted into a shell, shows the same defect (issue 41): a run against
 * `serve --defect audio-302 --defect leak-take-by-id --defect version-string` fails AUDIO-307,
 * SEC-TAKE-GET-ISOLATED and VERSION-MAJOR-MINOR; each one's reproduction from conformance.json, run
 * by `sh` with only the account variables in its environment (and PATH), against the still-running
 * stack after the run deleted what it made, brings the defective answer back: the 302, B reading A's
 * take, the version as a string. The markdown report shows the same lines.
 * Heavy (starts a stack and a run): `flock /tmp/heavy.lock npx vitest run --config vitest.config.ts test/report/reproduction-defect.int.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Reproduction } from '../../src/report/reproduction.ts';
import { type EmbeddedStack, startEmbeddedStack } from '../../src/stack/embedded.ts';
import { toolReady } from '../support/required-tools.ts';
import { speakcheckRun } from '../support/speakcheck-run.ts';

const REQUIREMENTS = ['AUDIO-307', 'SEC-TAKE-GET-ISOLATED', 'VERSION-MAJOR-MINOR'];
const hasCurl = toolReady(
  'curl',
  spawnSync('curl', ['--version']).status === 0 ? undefined : 'curl is not on PATH',
);
const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-repro-'));
let stack: EmbeddedStack | undefined;
let reproductions: Map<string, Reproduction> | undefined;

beforeAll(async () => {
  if (!hasCurl) return;
  stack = await startEmbeddedStack({
    extraArgs: ['--defect', 'audio-302', '--defect', 'leak-take-by-id', '--defect', 'version-string'],
  });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(reportDir, { recursive: true, force: true });
});

/** The failing run's reproductions by requirement id (one run for the whole file). */
async function runReproductions(): Promise<Map<string, Reproduction>> {
  if (reproductions) return reproductions;
  const s = stack!;
  const run = await speakcheckRun(
    ['--base-url', s.baseUrl, '--requirement', REQUIREMENTS.join(','), '--report-dir', reportDir],
    {
      env: {
        SPEAK_EMAIL: s.email,
        SPEAK_PASSWORD: s.password,
        SPEAK_SECOND_EMAIL: s.second!.email,
        SPEAK_SECOND_PASSWORD: s.second!.password,
      },
      timeoutMs: 140_000,
    },
  );
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const json = readFileSync(join(reportDir, 'conformance.json'), 'utf8');
  expect(json).not.toContain(s.password);
  expect(json).not.toContain(s.second!.password);
  const report = JSON.parse(json) as {
    requirements: Array<{ id: string; status: string; reproduction?: Reproduction }>;
  };
  reproductions = new Map();
  for (const id of REQUIREMENTS) {
    const failed = report.requirements.find((r) => r.id === id);
    expect(failed?.status, id).toBe('failed');
    expect(failed?.reproduction, id).toBeDefined();
    reproductions.set(id, failed!.reproduction!);
  }
  return reproductions;
}

/** The reproduction as pasted: `sh` with only these variables (and PATH) in its environment. */
function paste(script: string, env: Record<string, string>): string {
  const r = spawnSync('sh', ['-c', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
  expect(r.status, r.stderr.toString()).toBe(0);
  return `${r.stdout.toString()}${r.stderr.toString()}`;
}

describe('reproductions run as pasted against a defective stack', () => {
  test.skipIf(!hasCurl)(
    'audio-302: the reproduction logs in, makes a take afresh and shows the 302',
    { timeout: 200_000 },
    async () => {
      const s = stack!;
      const repro = (await runReproductions()).get('AUDIO-307')!;
      const script = repro.curl.join('\n');
      expect(readFileSync(join(reportDir, 'conformance.md'), 'utf8')).toContain(script);
      // Its own failing request, not another test's last exchanges.
      expect(script).toMatch(/\/v1\/speak\/takes\/\$\{TAKE_1\}\/(wav|mp3|m4a|flac|webm)"$/);
      expect(repro.notes.join('\n')).not.toMatch(/Only the last/);
      const out = paste(script, { SPEAK_EMAIL: s.email, SPEAK_PASSWORD: s.password });
      expect(out).toMatch(/^HTTP\/1\.1 302 /m);
      expect(out).toMatch(/^location: http.*\/signed\/audio\/tk_/im);
      expect(out).not.toMatch(/not found/);
    },
  );

  test.skipIf(!hasCurl)(
    'leak-take-by-id: A makes a take, B reads it, each line naming its account',
    { timeout: 200_000 },
    async () => {
      const s = stack!;
      const repro = (await runReproductions()).get('SEC-TAKE-GET-ISOLATED')!;
      const script = repro.curl.join('\n');
      // No request is sent with an unnamed token: every Authorization says A or B.
      expect(script).not.toContain(`Bearer \${SPEAK_TOKEN}`);
      expect(script).toContain(`Bearer \${SPEAK_TOKEN_A}`);
      const failing = script.split('\n').at(-1)!;
      expect(failing).toContain(`Bearer \${SPEAK_TOKEN_B}`);
      expect(script.split('\n').find((l) => l.includes('/takes/generate'))).toContain(`\${SPEAK_TOKEN_A}`);
      const out = paste(script, {
        SPEAK_EMAIL: s.email,
        SPEAK_PASSWORD: s.password,
        SPEAK_SECOND_EMAIL: s.second!.email,
        SPEAK_SECOND_PASSWORD: s.second!.password,
      });
      const take = /^TAKE_1=(tk_\w+)$/m.exec(out)?.[1];
      expect(take, out).toBeDefined();
      // B's GET of A's fresh take is answered with it: the leak, again.
      expect(out).toMatch(/^HTTP\/1\.1 200 /m);
      expect(out).toContain(`{"take_id":"${take}"`);
    },
  );

  test.skipIf(!hasCurl)(
    'version-string: the reproduction brings the string back',
    { timeout: 200_000 },
    async () => {
      const s = stack!;
      const script = (await runReproductions()).get('VERSION-MAJOR-MINOR')!.curl.join('\n');
      const out = paste(script, { SPEAK_EMAIL: s.email, SPEAK_PASSWORD: s.password });
      expect(out).toMatch(/^HTTP\/1\.1 200/m);
      expect(out).toMatch(/\{"version":\s*"1\.0"\}\s*$/);
    },
  );
});
