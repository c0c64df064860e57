/**
 * The GitHub Action's run step (scripts/action-run.sh, called by action.yml) run locally with the
 * environment action.yml's run step sets (read from action.yml itself, inputs substituted): against
 * the embedded reference stack it exits 0, writes the reports, appends conformance.md to
 * $GITHUB_STEP_SUMMARY and sets its outputs; against nothing it passes speakcheck's exit 3 on and
 * still says so in the summary. SPEAK_* set in the step's env reaches speakcheck (an empty input
 * does not clear it; a given input wins), and `areas: security` without a second account is
 * NOTHING JUDGED naming the options that would judge it.
 * Heavy (starts a stack and runs): `flock /tmp/heavy.lock npx vitest run test/cli/action-run.int.test.ts`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
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

const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  runs: { steps: { id?: string; env?: Record<string, string> }[] };
};

/**
 * What action.yml's "Conformance run" step sets for these inputs (the others at their defaults),
 * over the workflow's own step env (`env:` of the `uses:` step, which a composite action's steps see).
 */
function actionEnv(
  name: string,
  inputs: Record<string, string>,
  stepEnv: Record<string, string> = {},
): Record<string, string> & { GITHUB_STEP_SUMMARY: string; GITHUB_OUTPUT: string } {
  for (const input of Object.keys(inputs)) expect(action.inputs, input).toHaveProperty(input);
  const expression = (text: string) =>
    text.replace(
      /\$\{\{ *(inputs\.([\w-]+)|runner\.temp) *\}\}/g,
      (_match: string, _whole: string, input?: string) =>
        input === undefined ? join(work, name) : (inputs[input] ?? action.inputs[input]?.default ?? ''),
    );
  const runStep = action.runs.steps.find((step) => step.id === 'run')!;
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...stepEnv,
    ...Object.fromEntries(Object.entries(runStep.env!).map(([key, value]) => [key, expression(value)])),
    GITHUB_STEP_SUMMARY: join(work, `${name}-summary.md`),
    GITHUB_OUTPUT: join(work, `${name}-output.txt`),
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
    const env = actionEnv('ok', {
      'base-url': s.baseUrl,
      email: s.email,
      password: s.password,
      areas: 'version',
    });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(0);
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('# Speak v1 conformance report');
    expect(summary).toContain('- Verdict: **CONFORMS**');
    expect(summary).not.toContain(s.password);
    expect(existsSync(join(env.SPEAKCHECK_REPORT_DIR!, 'conformance.json'))).toBe(true);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe(
      `report-dir=${env.SPEAKCHECK_REPORT_DIR}\nexit-code=0\n`,
    );
  });

  test('no base URL (an empty secret, a misspelt input): exit 2 naming it, never a run of the embedded stack', {
    timeout: 60_000,
  }, async () => {
    const env = actionEnv('no-base-url', { 'base-url': '', email: 'a@b.c', password: 'pw-123456' });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(2);
    expect(result.out).toContain('--target remote needs --base-url (or SPEAK_BASE_URL)');
    expect(result.out).not.toContain('embedded');
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toContain('exit-code=2');
  });

  test('a server that is not there: exit 3, and the summary says the run wrote no report', {
    timeout: 60_000,
  }, async () => {
    const env = actionEnv('down', {
      'base-url': 'http://127.0.0.1:9',
      email: 'a@b.c',
      password: 'pw-123456',
    });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(3);
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      'speakcheck exited 3 before writing a report',
    );
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toContain('exit-code=3');
  });

  test('areas: security without a second account: NOTHING JUDGED (exit 1), naming the options', {
    timeout: 150_000,
  }, async () => {
    const s = stack!;
    const env = actionEnv('no-b', {
      'base-url': s.baseUrl,
      email: s.email,
      password: s.password,
      areas: 'security',
    });
    const result = await runScript(env);
    expect(result.code, result.out).toBe(1);
    const verdict = result.out.split('\n').find((line) => line.startsWith('verdict: '));
    expect(verdict).toMatch(
      /^verdict: NOTHING JUDGED \(exit 1, strict profile; 10 security checks not judged: /,
    );
    expect(verdict).toContain('what would judge them: --second-email/--second-password or --second-token');
    expect(verdict).not.toContain('DOES NOT CONFORM');
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain('--second-email/--second-password');
  });

  test("SPEAK_* in the step's env reaches speakcheck, an empty input does not clear it, a given input wins", {
    timeout: 150_000,
  }, async () => {
    const s = stack!;
    const env = actionEnv(
      'env',
      { email: s.email, password: s.password, 'second-password': s.second!.password },
      {
        // The workflow's `env:`: the base URL, the areas and customer B's email from here only; a
        // wrong password of B here, the right one from the input.
        SPEAK_BASE_URL: s.baseUrl,
        SPEAK_ONLY: 'security',
        SPEAK_SECOND_EMAIL: s.second!.email,
        SPEAK_SECOND_PASSWORD: 'not-the-password',
      },
    );
    const result = await runScript(env);
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain(`testing ${s.baseUrl}, profile strict, areas security`);
    expect(result.out).toMatch(/security \(tenant isolation[^\n]*: 10 checks: 10 passed, 0 failed/);
    expect(result.out).not.toContain(s.second!.password);
  });
});
