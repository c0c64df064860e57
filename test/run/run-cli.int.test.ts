/**
 * `speakcheck run` end to end, as a user runs it: a process, its output, its exit code, its reports.
 * "Could not run" cases must end within 30 s with one sentence and exit code 3.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { FakeServer } from '../support/fake-server.ts';
import {
  FAKE_EMAIL,
  FAKE_PASSWORD,
  startFakeSpeak,
  startGarbageServer,
  startHtmlServer,
  startHungServer,
} from '../support/fake-speak.ts';
import { type RunResult, speakcheckRun } from '../support/speakcheck-run.ts';

let server: FakeServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function expectOneSentenceCouldNotRun(result: RunResult, pattern: RegExp): void {
  expect(result.code, result.stderr + result.stdout).toBe(3);
  expect(result.ms).toBeLessThan(30_000);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^speakcheck: could not run: .+\.$/);
  expect(lines[0]).toMatch(pattern);
}

/** A server that cannot be tested, and the one sentence the run must say about it. */
interface CouldNotRunCase {
  name: string;
  /** No server: the URL below is used as is (nothing listens there). */
  start?: () => Promise<FakeServer>;
  url?: string;
  email?: string;
  password?: string;
  says: RegExp;
  /** A secret passed on the command line that must not be echoed. */
  neverEchoes?: string;
}

const couldNotRun: CouldNotRunCase[] = [
  {
    name: 'an unreachable URL',
    url: 'http://127.0.0.1:9',
    email: 'a@b.c',
    password: 'whatever1',
    says: /connection refused.*127\.0\.0\.1:9/,
  },
  {
    name: 'a wrong password',
    start: () => startFakeSpeak(),
    password: 'wrong-password',
    says: /rejected the email and password.*401/,
    neverEchoes: 'wrong-password',
  },
  {
    name: 'a server that answers HTML',
    start: startHtmlServer,
    says: /does not look like a Speak v1 server.*text\/html.*<!DOCTYPE html>/,
  },
  {
    name: 'a server that never answers',
    start: startHungServer,
    says: /did not answer in time: got no response headers within 5000 ms/,
  },
  { name: 'a server that answers garbage', start: startGarbageServer, says: /does not speak HTTP/ },
];

describe('speakcheck run: could not run', () => {
  for (const c of couldNotRun) {
    test(c.name, async () => {
      if (c.start) server = await c.start();
      const url = server?.url ?? c.url;
      if (url === undefined) throw new Error(`case "${c.name}" has neither a server nor a URL`);
      const result = await speakcheckRun([
        '--base-url',
        url,
        '--email',
        c.email ?? FAKE_EMAIL,
        '--password',
        c.password ?? FAKE_PASSWORD,
      ]);
      expectOneSentenceCouldNotRun(result, c.says);
      if (c.neverEchoes) expect(result.stderr).not.toContain(c.neverEchoes);
    });
  }

  test('invalid options are a usage error (exit 2), not a test result', async () => {
    const result = await speakcheckRun([
      '--base-url',
      'http://127.0.0.1:9',
      '--profile',
      'picky',
      '--token',
      'x',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--profile "picky" must be strict, lenient, acceptance or sdk/);
  });
});

describe('speakcheck run: a full run over fixture suites', { timeout: 200_000 }, () => {
  async function fullRun(version: number, extra: string[] = []) {
    server = await startFakeSpeak({ version });
    const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-report-'));
    dirs.push(reportDir);
    const result = await speakcheckRun(
      ['--base-url', server.url, '--report-dir', reportDir, '--email', FAKE_EMAIL, ...extra],
      {
        env: {
          SPEAK_PASSWORD: FAKE_PASSWORD,
          SPEAKCHECK_SUITES: 'test/harness/fixtures/suites/**/*.spec.ts',
        },
      },
    );
    return { result, reportDir };
  }

  test('a conforming server: exit 0, all four report kinds, INFO failure recorded as an observation', async () => {
    const { result, reportDir } = await fullRun(1);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/version\s+3 passed\s+0 failed/);
    expect(result.stdout).toContain('characters synthesized: 17');
    const generate = server!.requests.find((r) => r.url === '/v1/speak/takes/generate')!;
    expect(JSON.parse(generate.body).voice_id).toMatch(/^speakcheck-[0-9a-f]{6}-voice$/);
    expect(server!.requests.filter((r) => r.method === 'DELETE').map((r) => r.url)).toEqual([
      '/v1/speak/takes/take-1',
    ]);
    // The fixture covers one MUST: every other MUST and SHOULD is not judged, each listed with what
    // would judge it, and the verdict says so instead of CONFORMS (exit 0 in the strict profile).
    expect(result.stdout).not.toMatch(/verdict: CONFORMS/);
    expect(result.stdout).toMatch(
      /^verdict: NO MUST OR SHOULD FAILED — \d+ MUST, \d+ SHOULD NOT JUDGED \(exit 0, strict profile\)$/m,
    );
    expect(result.stdout).toMatch(/^judged: 1 of \d+ MUST, 0 of \d+ SHOULD$/m);
    expect(result.stdout).toMatch(/^not judged \(\d+\):$/m);
    expect(result.stdout).toMatch(
      /^ {2}AUTH-LOGIN-FAIL-401 \(MUST, skipped\): No test covers this requirement\.\n {4}what would judge it: a test that covers it/m,
    );
    expect(result.stdout).toContain(`reports: ${reportDir}`);
    const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8'));
    expect(Object.keys(report.summary)).toEqual(
      expect.arrayContaining(['requirements', 'passed', 'failed', 'skipped', 'info']),
    );
    expect(report.summary.passed).toBe(1);
    expect(report.summary.failed).toBe(0);
    const info = report.requirements.find((r: { status: string }) => r.status === 'info');
    expect(info.message).toMatch(/Observed \(not judged, INFO\).*299/);
    const passed = report.requirements.find((r: { status: string }) => r.status === 'passed');
    expect(passed.tests[0]).toContain('the version is 1');
    const test = report.tests.find((t: { name: string }) => t.name.includes('the version is 1'));
    expect(test.evidence.map((e: { url: string }) => new URL(e.url).pathname)).toEqual([
      '/v1/speak/version',
      '/v1/speak/models',
    ]);
    const everything = readdirSync(reportDir)
      .map((f) => (f.endsWith('allure-results') ? '' : readFileSync(join(reportDir, f), 'utf8')))
      .join('\n');
    expect(everything).not.toContain(FAKE_PASSWORD);
    expect(everything).not.toMatch(/fake-access-\d/);
    const md = readFileSync(join(reportDir, 'conformance.md'), 'utf8');
    expect(md).toContain('# Speak v1 conformance report');
    expect(md).toMatch(
      /Verdict: \*\*NO MUST OR SHOULD FAILED — \d+ MUST, \d+ SHOULD NOT JUDGED\*\* \(exit 0, strict profile\)/,
    );
    // The job summary says the terminal's verdict line word for word (issue 41).
    const terminal = /^verdict: (.*)$/m.exec(result.stdout)?.[1];
    expect(md.replace(/\*\*/g, '')).toContain(`- Verdict: ${terminal}`);
    expect(md).toMatch(/## Not judged \(\d+\)/);
    expect(report.run.verdict).toMatch(/^NO MUST OR SHOULD FAILED — /);
    expect(report.summary.judged).toMatchObject({ mustJudged: 1 });
    const html = readFileSync(join(reportDir, 'conformance.html'), 'utf8');
    expect(html).toContain('looked at &lt;the&gt; &quot;server&quot; &amp; its answers');
    expect(html).not.toMatch(/<(link|img|iframe)\b|src=["']http/);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain('<testsuites');
    // junit.xml is among the reports the run names; vitest's own line is not printed (issue 51).
    expect(result.stdout + result.stderr).not.toContain('JUNIT report written');
    expect(existsSync(join(reportDir, 'allure-results'))).toBe(true);
    expect(readdirSync(join(reportDir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
  });

  test('--keep leaves what the run created', async () => {
    const { result } = await fullRun(1, ['--keep', '--only', 'version']);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(server!.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });

  test('a failing MUST: exit 1 and the failure named in the report', async () => {
    const { result, reportDir } = await fullRun(2);
    expect(result.code, result.stderr + result.stdout).toBe(1);
    expect(result.stdout).toMatch(/✗ version › the version is 1.*major version/);
    const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8'));
    expect(report.summary.failed).toBe(1);
    const failed = report.requirements.find((r: { status: string }) => r.status === 'failed');
    expect(failed.level).toBe('MUST');
    expect(failed.message).toMatch(/expected 2 to be 1/);
  });
});

describe('speakcheck run: the security area without a second identity', { timeout: 120_000 }, () => {
  test('a remote server and no second account: every SEC- requirement not judged, naming the options', async () => {
    server = await startFakeSpeak();
    const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-report-'));
    dirs.push(reportDir);
    const result = await speakcheckRun(
      ['--base-url', server.url, '--report-dir', reportDir, '--email', FAKE_EMAIL, '--only', 'security'],
      { env: { SPEAK_PASSWORD: FAKE_PASSWORD, SPEAKCHECK_SUITES: 'suites/security.spec.ts' } },
    );
    expect(result.stdout, result.stderr).toMatch(
      /security \(tenant isolation.*10 checks: 0 passed, 0 failed, 0 blocked, 10 not judged \(the run has no second identity/,
    );
    expect(result.stdout).toMatch(/what would judge it: --second-email\/--second-password or --second-token/);
    const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8'));
    const security = report.requirements.filter((r: { area: string }) => r.area === 'security');
    expect(security).toHaveLength(10);
    for (const r of security) {
      expect(r.status, r.id).toBe('not-observed');
      expect(r.notJudged.wouldJudgeIt, r.id).toContain('--second-email/--second-password or --second-token');
    }
    // Nothing judged at all: a run that checks nothing cannot pass.
    expect(result.code).toBe(1);
  });
});
