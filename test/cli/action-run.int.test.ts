/**
 * The GitHub Action's run step (scripts/action-run.sh, called by action.yml) run locally with the
 * environment variables the action sets: against the embedded reference stack it exits 0, writes the
 * reports, appends conformance.md to $GITHUB_STEP_SUMMARY and sets its outputs; against nothing it
 * passes speakcheck's exit 3 on and still says so in the summary.
 * Heavy (starts a stack and a run): `flock /work/heavy.lock npx vitest run test/cli/action-run.int.test.ts`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type EmbeddedStack, REPO_ROOT, startEmbeddedStack } from '../../src/stack/embedded.ts';

const work = mkdtempSync(join(tmpdir(), 'speakcheck-action-'));
let stack: EmbeddedStack | undefined;
beforeAll(async () => {
  stack = await startEmbeddedStack();
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** What action.yml's "Conformance run" step sets, for inputs base-url, email, password, areas. */
function actionEnv(o: { baseUrl: string; email: string; password: string; areas: string; name: string }) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SPEAK_BASE_URL: o.baseUrl,
    SPEAK_EMAIL: o.email,
    SPEAK_PASSWORD: o.password,
    SPEAK_TOKEN: '',
    SPEAK_PROFILE: 'strict',
    SPEAK_ONLY: o.areas,
    SPEAKCHECK_EXPECT_FILE: '',
    SPEAKCHECK_REPORT_DIR: join(work, o.name, 'speakcheck-report'),
    GITHUB_STEP_SUMMARY: join(work, `${o.name}-summary.md`),
    GITHUB_OUTPUT: join(work, `${o.name}-output.txt`),
  };
}

function runScript(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(REPO_ROOT, 'scripts', 'action-run.sh')],
      { cwd: work, env, timeout: 140_000 },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, out: stdout + stderr });
      },
    );
  });
}

describe('the action script (scripts/action-run.sh)', () => {
  test('against the reference stack: exit 0, reports, step summary and outputs', {
    timeout: 150_000,
  }, async () => {
    const s = stack!;
    const env = actionEnv({
      baseUrl: s.baseUrl,
      email: s.email,
      password: s.password,
      areas: 'version',
      name: 'ok',
    });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(0);
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('# Speak v1 conformance report');
    expect(summary).toContain('**conforms** (exit code 0)');
    expect(summary).not.toContain(s.password);
    expect(existsSync(join(env.SPEAKCHECK_REPORT_DIR, 'conformance.json'))).toBe(true);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe(
      `report-dir=${env.SPEAKCHECK_REPORT_DIR}\nexit-code=0\n`,
    );
  });

  test('a server that is not there: exit 3, and the summary says the run wrote no report', {
    timeout: 60_000,
  }, async () => {
    const env = actionEnv({
      baseUrl: 'http://127.0.0.1:9',
      email: 'a@b.c',
      password: 'pw-123456',
      areas: '',
      name: 'down',
    });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(3);
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      'speakcheck exited 3 before writing a report',
    );
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toContain('exit-code=3');
  });
});
