/**
 * `speakcheck rerun REPORT_DIR` end to end against the fake server (no reference stack): after a run
 * where one of two requirements failed, the rerun judges that one only, against the report's base
 * URL, with credentials from the flags and environment (the report holds none).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { rerunFlags, rerunIds } from '../../src/cli/commands/rerun.ts';
import type { ConformanceReport } from '../../src/report/model.ts';
import { upgradeReport } from '../../src/report/report-version.ts';
import { verdictSentence } from '../../src/report/verdict-line.ts';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';
import { speakcheckRun } from '../support/speakcheck-run.ts';

const work = mkdtempSync(join(tmpdir(), 'speakcheck-rerun-'));
let server: FakeServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const read = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;

describe('speakcheck rerun', () => {
  test('reruns only the requirements that failed, against the same base URL', {
    timeout: 200_000,
  }, async () => {
    server = await startFakeSpeak({ minor: '0' });
    const first = join(work, 'first');
    const env = { SPEAK_PASSWORD: FAKE_PASSWORD };
    const run = await speakcheckRun(
      [
        '--base-url',
        server.url,
        '--email',
        FAKE_EMAIL,
        '--report-dir',
        first,
        '--requirement',
        'VERSION-NO-TOKEN,VERSION-MAJOR-MINOR',
      ],
      { env, timeoutMs: 110_000 },
    );
    expect(run.code, run.stderr + run.stdout).toBe(1);
    expect(JSON.stringify(read(first))).not.toContain(FAKE_PASSWORD);

    const second = join(work, 'second');
    const rerun = await speakcheckRun([first, '--email', FAKE_EMAIL, '--report-dir', second], {
      command: 'rerun',
      env,
      timeoutMs: 110_000,
    });
    expect(rerun.code, rerun.stderr + rerun.stdout).toBe(1);
    expect(rerun.stdout).toContain(`speakcheck rerun: 1 requirement(s) of ${first}: VERSION-MAJOR-MINOR`);
    const report = read(second);
    expect(report.run.baseUrl).toBe(server.url);
    expect(report.run.requirements).toEqual(['VERSION-MAJOR-MINOR']);
    expect(report.requirements.map((r) => [r.id, r.status])).toEqual([['VERSION-MAJOR-MINOR', 'failed']]);
    for (const t of report.tests) expect(t.requirements).toContain('VERSION-MAJOR-MINOR');
    // The rerun ends as a run does, in the words of its reports, MUSTs first (issue 41).
    const sentence = verdictSentence(report.run);
    expect(sentence).toMatch(/^DOES NOT CONFORM \(exit 1, strict profile; 1 MUST failed/);
    expect(rerun.stdout.trim().split('\n').at(-1)).toBe(`verdict: ${sentence}`);
    expect(readFileSync(join(second, 'conformance.md'), 'utf8').replace(/\*\*/g, '')).toContain(
      `- Verdict: ${sentence}`,
    );
  });

  test('what is rerun, and against what', () => {
    // Labels as a report of an older speakcheck wrote them, read through the versioned reader (as
    // readReport does): rerun asks each one's standing.
    const row = (id: string, level: string, status: string) => ({
      id,
      level,
      status,
      message: 'm',
      tests: ['t'],
    });
    const report = upgradeReport({
      run: { target: 'remote', baseUrl: 'https://speak.example', profile: 'lenient' },
      requirements: [
        row('A', 'MUST', 'failed'),
        row('B', 'SHOULD', 'blocked'),
        row('C', 'MUST', 'passed'),
        row('D', 'INFO', 'not-concluded'),
        row('E', 'SHOULD', 'non-strict'),
        row('F', 'MUST', 'expected-failure'),
        row('G', 'MUST', 'skipped'),
      ],
    } as unknown as ConformanceReport);
    expect(rerunIds(report)).toEqual(['A', 'B', 'E', 'F']);
    expect(rerunFlags(report, {}, ['A'])).toEqual({
      baseUrl: 'https://speak.example',
      profile: 'lenient',
      requirement: 'A',
    });
    expect(rerunFlags(report, { baseUrl: 'http://other', profile: 'strict' }, ['A'])).toEqual({
      baseUrl: 'http://other',
      profile: 'strict',
      requirement: 'A',
    });
    const embedded = { ...report, run: { ...report.run, target: 'embedded' } } as ConformanceReport;
    expect(rerunFlags(embedded, {}, ['A'])).toEqual({
      target: 'embedded',
      profile: 'lenient',
      requirement: 'A',
    });
  });
});
