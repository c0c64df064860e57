/**
 * Runs `node bin/speakcheck.js ...` as a child process, as a person would, without blocking the
 * test worker, through the one launcher (src/stack/launcher.ts). Bounded: at the deadline the child
 * is stopped (SIGTERM, then its process tree killed after the grace) and always awaited.
 */
import { REPO_ROOT, SPEAKCHECK_BIN } from '../../src/stack/embedded.ts';
import { runToEnd } from '../../src/stack/launcher.ts';

export interface CliResult {
  /** Exit code, or the signal's name when the child was killed. */
  code: number | string;
  output: string;
}

/** `env` adds variables, e.g. SPEAK_PASSWORD (a password in argv is visible to ps). */
export async function runSpeakcheck(
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const r = await runToEnd({
    args: [SPEAKCHECK_BIN, ...args],
    cwd: REPO_ROOT,
    timeoutMs,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  const stopped = r.timedOut
    ? `\n[speakcheck ${args[0]} did not finish within ${timeoutMs} ms: stopped]`
    : '';
  return { code: r.code ?? r.signal ?? 'unknown', output: r.output + stopped };
}
