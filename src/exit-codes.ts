/**
 * The exit codes of every speakcheck command: one table, one meaning per number (README "Exit
 * codes"). A command uses the rows that apply to it; no command gives a number another meaning.
 * 3 is "no verdict on the server": the target could not be judged (unavailable) or speakcheck
 * itself broke (harness error); the one sentence printed says which (issue 19 asked harness errors
 * to be exit 3, beside the unreachable server).
 * A leaf module (no imports) so the library functions that compute a command's code (the verdict,
 * the load target, perf compare) can return these names without depending on the CLI.
 */
export const EXIT = {
  /** Done and the answer is yes: conforms, thresholds hold, no figure worse, file written. */
  ok: 0,
  /** Done and the answer is no: does not conform (or could not conclude), a figure is worse, a bench target missed. */
  failed: 1,
  /** Invalid options or unreadable input (a config, report or summary file). */
  usage: 2,
  /** Could not run against the target: unreachable, wrong credentials, not the API, the stack did not start. */
  targetUnavailable: 3,
  /** A tool the command needs is missing and cannot be installed (k6, which needs Go). */
  toolMissing: 4,
  /** speakcheck itself broke (a harness-error): no verdict on the server either, so the same 3; please file a bug. */
  harnessError: 3,
  /** `load`: k6's thresholds failed (k6's own exit code, passed through). */
  thresholdsFailed: 99,
  /** Stopped at once by a second Ctrl-C (SIGINT/SIGTERM). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table as `--help` shows it, one row per code; `only` picks the rows a command can give. */
export function exitCodesHelp(only: readonly (keyof typeof EXIT)[]): string {
  const meaning: Record<keyof typeof EXIT, string> = {
    ok: 'ok',
    failed: 'negative verdict',
    usage: 'invalid options or input',
    targetUnavailable: 'target unavailable',
    toolMissing: 'tool missing (k6)',
    harnessError: 'no verdict: harness error (a bug of speakcheck)',
    thresholdsFailed: 'k6 thresholds failed',
    interrupted: 'interrupted',
  };
  return `Exit codes: ${only.map((name) => `${EXIT[name]} ${meaning[name]}`).join(', ')} (README "Exit codes").`;
}
