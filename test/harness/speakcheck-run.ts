/**
 * `node bin/speakcheck.js run ...` as a user runs it, for the tests that judge a whole run by its exit
 * code, its output and its conformance.json. Bounded: the child is killed at `timeoutMs` (code null).
 * The machine's run-config file is ignored (SPEAKCHECK_RUN_CONFIG empty) unless `env` sets one.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

export interface RunResult {
  /** The exit code; null when the child was killed (its bound) or ended by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function speakcheckRun(
  args: string[],
  o: { env?: Record<string, string>; timeoutMs?: number; command?: 'run' | 'rerun' } = {},
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'speakcheck.js'), o.command ?? 'run', ...args],
      {
        cwd: REPO_ROOT,
        timeout: o.timeoutMs ?? 150_000,
        env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '', ...o.env },
      },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

export interface Verdict {
  id: string;
  status: string;
  message?: string;
}

/** The requirement verdicts of the conformance.json a run wrote into `reportDir`, by id. */
export function readVerdicts(reportDir: string): Map<string, Verdict> {
  const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
    requirements: Verdict[];
  };
  return new Map(report.requirements.map((r) => [r.id, r]));
}
