/**
 * "A pass is an observation" (issue 40), end to end: a real `speakcheck run` over the fixture suite
 * test/harness/fixtures/conclusions/, against the fake server. Each id's verdict in conformance.json
 * follows from what its test concluded, never from whether the test threw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogue } from '../../src/requirements/index.ts';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';
import { type RunResult, readVerdicts, speakcheckRun, type Verdict } from '../support/speakcheck-run.ts';

const [HELD, NOT_SEEN, CHECKED, UNCHECKED, HELPER_GAVE_UP, BOUND, VIOLATED, AFTER_VIOLATION] = catalogue
  .filter((r) => r.level === 'MUST')
  .map((r) => r.id);

describe('conclusions: a pass is an observation', { timeout: 120_000 }, () => {
  let server: FakeServer;
  let reportDir: string;
  let run: RunResult;
  let verdicts: Map<string, Verdict>;

  beforeAll(async () => {
    server = await startFakeSpeak();
    reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-conclusions-'));
    const ids = [HELD, NOT_SEEN, CHECKED, UNCHECKED, HELPER_GAVE_UP, BOUND, VIOLATED, AFTER_VIOLATION];
    run = await speakcheckRun(
      [
        '--base-url',
        server.url,
        '--report-dir',
        reportDir,
        '--email',
        FAKE_EMAIL,
        '--requirement',
        ids.join(','),
      ],
      {
        env: {
          SPEAK_PASSWORD: FAKE_PASSWORD,
          SPEAKCHECK_SUITES: 'test/harness/fixtures/conclusions/**/*.spec.ts',
        },
      },
    );
    verdicts = readVerdicts(reportDir);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    rmSync(reportDir, { recursive: true, force: true });
  });

  test('the run fails on the violation alone, naming it first', () => {
    expect(run.code, run.stderr + run.stdout).toBe(1);
    expect(run.stdout).toMatch(/verdict: DOES NOT CONFORM \(exit 1, strict profile; 1 MUST failed/);
  });

  test('held on an observation: passed', () => {
    expect(verdicts.get(HELD!)?.status).toBe('passed');
    expect(verdicts.get(CHECKED!)?.status).toBe('passed');
  });

  test('not observed: not judged, with the reason and what would judge it, never passed', () => {
    expect(verdicts.get(NOT_SEEN!)).toMatchObject({
      status: 'not-observed',
      notJudged: { reason: 'the take was ready before it could be seen', wouldJudgeIt: 'a slower server' },
    });
    expect(verdicts.get(UNCHECKED!)).toMatchObject({ status: 'not-observed' });
    expect(verdicts.get(UNCHECKED!)?.message).toMatch(/no check of it ran/);
    expect(verdicts.get(HELPER_GAVE_UP!)).toMatchObject({
      status: 'not-observed',
      notJudged: { reason: 'the run has no second identity', wouldJudgeIt: '--second-token' },
    });
    expect(verdicts.get(AFTER_VIOLATION!)?.status).toBe('not-observed');
  });

  test("the test's own bound is the harness's limit: not concluded, never failed", () => {
    const bound = verdicts.get(BOUND!);
    expect(bound?.status).toBe('not-concluded');
    expect(bound?.message).toMatch(
      /^Not concluded \(timeout\): .*did not finish within its bound of 0\.3 s \(speakcheck's limit/,
    );
  });

  test('a violation is a failure of its own id only', () => {
    expect(verdicts.get(VIOLATED!)).toMatchObject({ status: 'failed' });
    expect(verdicts.get(VIOLATED!)?.message).toMatch(/the server answered 500/);
  });
});
