/**
 * The expiry MUSTs are skipped against a server whose tokens and URLs live long (access tokens
 * 900 s, websocket URLs 1 h by default): waiting them out is no part of a normal run. This proves the
 * suites really verify them, and pass a correct server, when the lifetimes are short and the run is
 * told so (`--access-token-lifetime`, `--ws-url-lifetime`, as a vendor with opaque tokens would):
 * the reference stack started with short lifetimes, each area run against it as a remote server;
 * and that a lifetime past `--max-expiry-wait` (or, with --expiry full, past --max-time) is
 * not judged, with a one-line reason and what would judge it. The waits live in suites/expiry.spec.ts. (That a server breaking them fails is the defect matrix's job: expired-token-accepted,
 * ws-expired-url-accepted.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Stack, startStack } from '../reference/stack.ts';
import { type RunResult, readVerdicts, speakcheckRun, type Verdict } from '../support/speakcheck-run.ts';

interface ExpiryCase {
  name: string;
  serve: string[];
  run: string[];
  env?: Record<string, string>;
  /** Each must pass, with the message (when given) matching. */
  expect: Record<string, RegExp | undefined>;
  /** Each must be skipped, its message matching. */
  skipped?: Record<string, RegExp>;
  /** The run's exit code (default 0: conforms). */
  exitCode?: number;
  /** Each skipped one's notJudged.wouldJudgeIt must match. */
  wouldJudge?: Record<string, RegExp>;
}

const CASES: ExpiryCase[] = [
  {
    name: 'with 5 s access tokens the expired-token requirement is verified and passes',
    serve: ['--access-token-ttl', '5'],
    run: ['--only', 'auth'],
    expect: { 'AUTH-EXPIRED-TOKEN-401': undefined, 'AUTH-ACCESS-LIFETIME': /living 5 s/ },
  },
  {
    name: 'told the access token lifetime by the flag (not read from the JWT), it is verified and passes',
    serve: ['--access-token-ttl', '4'],
    run: ['--requirement', 'AUTH-EXPIRED-TOKEN-401', '--access-token-lifetime', '4'],
    expect: { 'AUTH-EXPIRED-TOKEN-401': undefined },
  },
  {
    name: 'with 5 s websocket URLs the expired-URL requirement is verified and passes',
    serve: ['--websocket-url-ttl', '5', '--workers', '1'],
    run: ['--requirement', 'WS-URL-EXPIRED-REFUSED,WS-OPEN-PAST-EXPIRY', '--ws-url-lifetime', '5'],
    expect: { 'WS-URL-EXPIRED-REFUSED': undefined },
  },
  {
    name: 'lifetimes past --max-expiry-wait are skipped, saying in one line why and what would run them',
    serve: ['--access-token-ttl', '30', '--workers', '1'],
    run: [
      '--requirement',
      'AUTH-EXPIRED-TOKEN-401,WS-URL-EXPIRED-REFUSED',
      '--max-expiry-wait',
      '10',
      '--ws-url-lifetime',
      '3600',
    ],
    expect: {},
    // Both selected requirements not observed: a run that judged nothing does not pass (exit 1), and says so.
    exitCode: 1,
    skipped: {
      'AUTH-EXPIRED-TOKEN-401':
        /access tokens live 30 s \(JWT exp\), longer than the 10 s a quick run waits \(--max-expiry-wait\)$/,
      'WS-URL-EXPIRED-REFUSED':
        /websocket URLs live 3600 s \(--ws-url-lifetime\), longer than the 10 s a quick run waits/,
    },
    wouldJudge: {
      'AUTH-EXPIRED-TOKEN-401':
        /^--profile acceptance or --expiry full \(waits 32 s beside the rest of the run\)$/,
      'WS-URL-EXPIRED-REFUSED': /^--profile acceptance or --expiry full \(waits 3602 s/,
    },
  },
  {
    name: 'with 5 s signed audio URLs the signed-URL expiry is verified and passes (read from X-Amz-Expires)',
    serve: ['--signed-url-ttl', '5', '--workers', '1'],
    run: ['--requirement', 'AUDIO-SIGNED-EXPIRES'],
    expect: { 'AUDIO-SIGNED-EXPIRES': undefined },
  },
  {
    name: '--expiry full with a budget shorter than the lifetime: not judged, naming the --max-time that would judge it',
    serve: ['--workers', '1'],
    run: ['--requirement', 'WS-URL-EXPIRED-REFUSED', '--expiry', 'full', '--max-time', '60'],
    expect: {},
    exitCode: 1,
    skipped: {
      'WS-URL-EXPIRED-REFUSED':
        /websocket URLs live 3600 s \(the expiry the URL shows\): the wait would end after the run budget of 60 s \(--max-time\)$/,
    },
    wouldJudge: { 'WS-URL-EXPIRED-REFUSED': /^--max-time 36\d\d or more$/ },
  },
];

describe.each(CASES)('$name', (c) => {
  let stack: Stack | undefined;
  let reportDir: string;
  let run: RunResult;
  let verdicts: Map<string, Verdict>;

  beforeAll(async () => {
    stack = await startStack(c.serve);
    reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-expiry-'));
    const { baseUrl, email, password } = stack;
    run = await speakcheckRun(
      ['--base-url', baseUrl, '--email', email, '--report-dir', reportDir, ...c.run],
      {
        env: { SPEAK_PASSWORD: password, ...c.env },
      },
    );
    verdicts = readVerdicts(reportDir);
  }, 200_000);

  afterAll(async () => {
    await stack?.stop();
    if (reportDir) rmSync(reportDir, { recursive: true, force: true });
  });

  test('the expiry requirements passed (or were skipped saying why and what would run them)', () => {
    expect(run.code, run.stderr + run.stdout).toBe(c.exitCode ?? 0);
    for (const [id, message] of Object.entries(c.expect)) {
      const verdict = verdicts.get(id);
      if (message) expect(verdict?.message, id).toMatch(message);
      else expect(verdict?.status, `${id}: ${verdict?.message}`).toBe('passed');
    }
    for (const [id, message] of Object.entries(c.skipped ?? {})) {
      const verdict = verdicts.get(id);
      expect(verdict?.status, `${id}: ${verdict?.message}`).toBe('not-observed');
      expect(verdict?.message, id).toMatch(message);
      expect(verdict?.message, id).not.toContain('\n');
    }
    for (const [id, remedy] of Object.entries(c.wouldJudge ?? {}))
      expect(verdicts.get(id)?.notJudged?.wouldJudgeIt, id).toMatch(remedy);
  });
});
