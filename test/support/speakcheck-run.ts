/**
 * `node bin/speakcheck.js run ...` as a user runs it, for the tests that judge a whole run by its exit
 * code, its output and its conformance.json. Bounded: the child is stopped at `timeoutMs` (code null; src/stack/launcher.ts).
 * The machine's run-config file is ignored (SPEAKCHECK_RUN_CONFIG empty) unless `env` sets one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../../src/stack/embedded.ts';
import { runToEnd } from '../../src/stack/launcher.ts';

export interface RunResult {
  /** The exit code; null when the child was killed (its bound) or ended by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export async function speakcheckRun(
  args: string[],
  o: { env?: Record<string, string>; timeoutMs?: number; command?: 'run' | 'rerun' } = {},
): Promise<RunResult> {
  const r = await runToEnd({
    args: [SPEAKCHECK_BIN, o.command ?? 'run', ...args],
    cwd: REPO_ROOT,
    timeoutMs: o.timeoutMs ?? 150_000,
    env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '', ...o.env },
  });
  return { code: r.timedOut ? null : r.code, stdout: r.stdout, stderr: r.stderr, ms: r.ms };
}

export interface Verdict {
  id: string;
  status: string;
  message?: string;
  /** A MUST or SHOULD the run did not judge: why, and what would judge it. */
  notJudged?: { status: string; reason: string; wouldJudgeIt: string };
}

/** The requirement verdicts of the conformance.json a run wrote into `reportDir`, by id. */
export function readVerdicts(reportDir: string): Map<string, Verdict> {
  const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
    requirements: Verdict[];
  };
  return new Map(report.requirements.map((r) => [r.id, r]));
}
