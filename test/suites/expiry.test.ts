/**
 * The expiry MUSTs are skipped against a server whose tokens and URLs live long (access tokens
 * 900 s, websocket URLs 1 h by default): waiting them out is no part of a normal run. This proves the
 * suites really verify them, and pass a correct server, when the lifetimes are short: the reference
 * stack started with short lifetimes, each area run against it as a remote server. (That a server
 * breaking them fails is the defect matrix's job: expired-token-accepted, ws-expired-url-accepted.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunResult, readVerdicts, speakcheckRun, type Verdict } from '../harness/speakcheck-run.ts';
import { type Stack, startStack } from '../reference/stack.ts';

interface ExpiryCase {
  name: string;
  serve: string[];
  run: string[];
  env?: Record<string, string>;
  /** Each must pass, with the message (when given) matching. */
  expect: Record<string, RegExp | undefined>;
}

const CASES: ExpiryCase[] = [
  {
    name: 'with 5 s access tokens the expired-token requirement is verified and passes',
    serve: ['--access-token-ttl', '5'],
    run: ['--only', 'auth'],
    expect: { 'AUTH-EXPIRED-TOKEN-401': undefined, 'AUTH-ACCESS-LIFETIME': /living 5 s/ },
  },
  {
    name: 'with 5 s websocket URLs the expired-URL requirement is verified and passes',
    serve: ['--websocket-url-ttl', '5', '--workers', '1'],
    run: ['--requirement', 'WS-URL-EXPIRED-REFUSED,WS-OPEN-PAST-EXPIRY'],
    env: { SPEAKCHECK_WS_URL_LIFETIME_MS: '5000' },
    expect: { 'WS-URL-EXPIRED-REFUSED': undefined },
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

  test('the run conforms and the expiry requirements passed, not skipped', () => {
    expect(run.code, run.stderr + run.stdout).toBe(0);
    for (const [id, message] of Object.entries(c.expect)) {
      const verdict = verdicts.get(id);
      if (message) expect(verdict?.message, id).toMatch(message);
      else expect(verdict?.status, `${id}: ${verdict?.message}`).toBe('passed');
    }
  });
});
