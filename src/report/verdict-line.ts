/**
 * The verdict in one sentence, the same words wherever it is shown (issue 41): the terminal's last
 * line, conformance.md (the CI job summary), conformance.html, and `rerun`, which ends as `run` does.
 * The gate (src/verdict/gate.ts) decides the words and the reasons, MUSTs first; this only says them.
 */
import { CONFORMS, isPlainConforms } from '../verdict/words.ts';
import type { RunInfo } from './model.ts';

type VerdictRun = Pick<RunInfo, 'verdict' | 'verdictReasons' | 'exitCode' | 'profile' | 'expect'>;

/** The headline words: the gate's, or for a report from before they were written, by the exit code. */
export function verdictWords(run: Pick<RunInfo, 'verdict' | 'exitCode'>): string {
  return run.verdict ?? (run.exitCode === 0 ? CONFORMS : 'DOES NOT CONFORM');
}

/**
 * What follows the words in parentheses: the exit code, the profile, what keeps the run from
 * CONFORMS in level order, and the failures the expect file made expected. Empty for a plain CONFORMS.
 */
export function verdictDetail(run: VerdictRun): string {
  const words = verdictWords(run);
  const expected = run.expect?.expected.length ?? 0;
  const reasons = [
    ...(run.verdictReasons ?? []),
    // They no longer fail the run, but they are failures: the line says they were there (issue 41).
    ...(expected > 0
      ? [`${expected} failure${expected === 1 ? '' : 's'} expected by ${run.expect!.file}`]
      : []),
  ];
  if (run.exitCode === 0 && isPlainConforms(words) && reasons.length === 0) return '';
  return `exit ${run.exitCode}, ${run.profile} profile${reasons.length > 0 ? `; ${reasons.join('; ')}` : ''}`;
}

/** "DOES NOT CONFORM (exit 1, strict profile; 4 MUST failed, 9 MUST blocked; 1 security check failed)". */
export function verdictSentence(run: VerdictRun): string {
  const detail = verdictDetail(run);
  return detail ? `${verdictWords(run)} (${detail})` : verdictWords(run);
}

/** The terminal's last line. */
export function verdictLine(run: VerdictRun): string {
  return `verdict: ${verdictSentence(run)}`;
}
