/**
 * `speakcheck run --expect` and `speakcheck expect --from` end to end over the fixture suites against
 * the fake server (no reference stack): a listed failure exits 0 and is reported apart with its
 * original message; a listed requirement that passes is an unexpected pass (reported, exit 0); an
 * expired entry fails the run; an unknown id is exit 2 before anything starts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { catalogue } from '../../src/requirements/index.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';
import { speakcheckRun } from '../support/speakcheck-run.ts';

// The fixture suite's MUST (test/harness/fixtures/suites/version.spec.ts): fails when the major is not 1.
const mustId = catalogue.find((r) => r.level === 'MUST' && r.area === 'version')!.id;
const work = mkdtempSync(join(tmpdir(), 'speakcheck-expect-run-'));
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

let runs = 0;
async function run(version: number, expectFile: unknown) {
  server = await startFakeSpeak({ version });
  const n = ++runs;
  const reportDir = join(work, `report-${n}`);
  const file = join(work, `expect-${n}.yaml`);
  writeFileSync(file, typeof expectFile === 'string' ? expectFile : JSON.stringify(expectFile));
  const result = await speakcheckRun(
    ['--base-url', server.url, '--report-dir', reportDir, '--email', FAKE_EMAIL, '--expect', file],
    {
      env: { SPEAK_PASSWORD: FAKE_PASSWORD, SPEAKCHECK_SUITES: 'test/harness/fixtures/suites/**/*.spec.ts' },
    },
  );
  const report = () => JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8'));
  return { result, reportDir, file, report };
}

describe('speakcheck run --expect', { timeout: 200_000 }, () => {
  test('every failure expected: exit 0, reported apart with the original failure', async () => {
    const { result, reportDir, report } = await run(2, [
      { requirement: mustId, reason: 'major 2 on purpose' },
    ]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain(`: 1: ${mustId}`);
    const verdict = report().requirements.find((r: { id: string }) => r.id === mustId);
    expect(verdict.status).toBe('expected-failure');
    expect(verdict.message).toMatch(/^Expected \(major 2 on purpose\): .*expected 2 to be 1/);
    expect(report().summary).toMatchObject({ failed: 0, expectedFailures: 1, mustFailed: 0 });
    expect(readFileSync(join(reportDir, 'conformance.md'), 'utf8')).toMatch(
      /## Expected failures[\s\S]*major 2 on purpose/,
    );
    expect(readFileSync(join(reportDir, 'conformance.html'), 'utf8')).toContain('badge expected-failure');
  });

  test('an expected failure that passes: "unexpected pass" reported, exit 0', async () => {
    const { result, file, report } = await run(1, `- requirement: ${mustId}\n  reason: was broken\n`);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stderr).toContain(`unexpected pass: ${mustId} passed: remove it from ${file}`);
    expect(report().run.expect.unexpectedPasses).toEqual([{ requirement: mustId, reason: 'was broken' }]);
  });

  test('an expired entry: exit 1, saying which', async () => {
    const { result, report } = await run(2, [{ requirement: mustId, reason: 'r', expires: '2020-01-31' }]);
    expect(result.code, result.stderr + result.stdout).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`expired: the expected failure ${mustId} in .* expired on 2020-01-31`),
    );
    expect(report().requirements.find((r: { id: string }) => r.id === mustId).status).toBe('failed');
  });

  test('an unknown id: exit 2 with the closest known ids, nothing contacted', async () => {
    const { result } = await run(1, [{ requirement: `${mustId}X`, reason: 'r' }]);
    expect(result.code, result.stderr + result.stdout).toBe(2);
    expect(result.stderr).toContain(`unknown requirement id ${mustId}X (did you mean ${mustId}`);
    expect(server!.requests).toHaveLength(0);
  });
});

describe('speakcheck expect --from', { timeout: 200_000 }, () => {
  test("writes the run's failures as the baseline, which then makes the same run pass", async () => {
    const first = await run(2, []);
    expect(first.result.code).toBe(1);
    const out = join(work, 'baseline.yaml');
    execFileSync(process.execPath, [
      join(REPO_ROOT, 'bin', 'speakcheck.js'),
      'expect',
      '--from',
      first.reportDir,
      '--out',
      out,
    ]);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain(`requirement: ${mustId}`);
    expect(text).toMatch(/reason: "generated by speakcheck expect from run/);
    await server!.close();
    const again = await run(2, readFileSync(out, 'utf8'));
    expect(again.result.code, again.result.stderr + again.result.stdout).toBe(0);
  });
});
