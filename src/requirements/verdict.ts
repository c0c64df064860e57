/**
 * From test outcomes to requirement verdicts. Pure: the reporter collects outcomes from vitest, this
 * decides, the renderers print. A requirement is
 *   failed  when any test covering it failed (INFO-only tests never fail: covers() turned their
 *           assertion failures into observations);
 *   info    when it is INFO and at least one covering test ran;
 *   skipped when no covering test ran (or none exists: then it is also listed as uncovered);
 *   passed  otherwise;
 *   not-concluded when the run was stopped (run budget --max-time, Ctrl-C) before a covering test
 *           finished and none failed: no verdict either way, and the run does not conform.
 * Judged are the requirements of the selected areas, or, with a requirement selection
 * (`run --requirement`), exactly the selected requirements: the rest of the catalogue is not part
 * of the run, neither judged nor listed as uncovered.
 */
import type { EvidenceEntry } from '../client/evidence.ts';
import type { Profile } from '../config/types.ts';
import type { Requirement, RequirementLevel } from './types.ts';

export type TestState = 'passed' | 'failed' | 'skipped' | 'not-concluded';
export type VerdictStatus = 'passed' | 'failed' | 'skipped' | 'info' | 'not-concluded';

export interface TestOutcome {
  /** Unique within a run: `<file> > <describe> > <name>`. */
  key: string;
  file: string;
  name: string;
  state: TestState;
  durationMs: number;
  errors: string[];
  requirements: string[];
  unknownRequirements: string[];
  observations: string[];
  evidence: EvidenceEntry[];
  droppedEvidence: number;
  characters: number;
}

export interface RequirementVerdict extends Requirement {
  status: VerdictStatus;
  /** Keys of the tests that cover the requirement. */
  tests: string[];
  message: string;
  covered: boolean;
  observations: string[];
}

export interface Problem {
  /** A test key or a file. */
  where: string;
  message: string;
}

export interface VerdictSummary {
  requirements: number;
  passed: number;
  failed: number;
  skipped: number;
  info: number;
  /** Requirements the stopped run could not conclude (0 unless the run was stopped). */
  notConcluded: number;
  uncovered: number;
  mustFailed: number;
  shouldFailed: number;
  tests: { passed: number; failed: number; skipped: number };
  characters: number;
}

export interface Verdicts {
  summary: VerdictSummary;
  requirements: RequirementVerdict[];
  uncovered: string[];
  /** Failures no requirement explains: unknown ids, tests outside covers(), files that did not load. */
  problems: Problem[];
}

export function computeVerdicts(
  catalogue: readonly Requirement[],
  outcomes: readonly TestOutcome[],
  o: {
    areas?: readonly string[];
    requirements?: readonly string[];
    fileErrors?: readonly Problem[];
    /** Why the run was stopped early (--max-time, Ctrl-C): what never ran is not concluded. */
    stopped?: string;
  } = {},
): Verdicts {
  const { areas, requirements: ids } = o;
  const selected =
    ids && ids.length > 0
      ? catalogue.filter((r) => ids.includes(r.id))
      : areas && areas.length > 0
        ? catalogue.filter((r) => areas.includes(r.area))
        : [...catalogue];
  const byRequirement = new Map<string, TestOutcome[]>();
  for (const outcome of outcomes) {
    for (const id of outcome.requirements) {
      const list = byRequirement.get(id) ?? [];
      list.push(outcome);
      byRequirement.set(id, list);
    }
  }

  const requirements = selected.map((requirement) =>
    notConcluded(judge(requirement, byRequirement.get(requirement.id) ?? []), o.stopped),
  );
  const problems: Problem[] = [...(o.fileErrors ?? [])];
  for (const outcome of outcomes) {
    if (outcome.state !== 'failed') continue;
    if (outcome.unknownRequirements.length > 0 || outcome.requirements.length === 0) {
      problems.push({ where: outcome.key, message: outcome.errors[0] ?? 'failed without a requirement id' });
    }
  }
  const count = (status: VerdictStatus) => requirements.filter((r) => r.status === status).length;
  const failedAt = (level: RequirementLevel) =>
    requirements.filter((r) => r.status === 'failed' && r.level === level).length;
  const uncovered = requirements.filter((r) => !r.covered).map((r) => r.id);
  return {
    summary: {
      requirements: requirements.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      info: count('info'),
      notConcluded: count('not-concluded'),
      uncovered: uncovered.length,
      mustFailed: failedAt('MUST'),
      shouldFailed: failedAt('SHOULD'),
      tests: {
        passed: outcomes.filter((t) => t.state === 'passed').length,
        failed: outcomes.filter((t) => t.state === 'failed').length,
        skipped: outcomes.filter((t) => t.state === 'skipped').length,
      },
      characters: outcomes.reduce((n, t) => n + t.characters, 0),
    },
    requirements,
    uncovered,
    problems,
  };
}

/**
 * In a stopped run, a requirement with an unfinished covering test, or with none that ran at all
 * (its file never started), is not concluded (timeout), unless a covering test already failed.
 */
function notConcluded(verdict: RequirementVerdict, stopped: string | undefined): RequirementVerdict {
  if (!stopped || verdict.status !== 'skipped') return verdict;
  if (verdict.covered) return verdict; // its tests ran and were skipped: a real skip
  return {
    ...verdict,
    status: 'not-concluded',
    message: `Not concluded (timeout): ${stopped} before any covering test ran.`,
  };
}

function judge(requirement: Requirement, tests: TestOutcome[]): RequirementVerdict {
  const base = {
    ...requirement,
    tests: tests.map((t) => t.key),
    covered: tests.length > 0,
    observations: tests.flatMap((t) => t.observations),
  };
  if (tests.length === 0) return { ...base, status: 'skipped', message: 'No test covers this requirement.' };
  const failed = tests.filter((t) => t.state === 'failed');
  if (failed.length > 0) {
    const first = failed[0]!;
    const more =
      failed.length > 1 ? ` (and ${failed.length - 1} more failing test${failed.length > 2 ? 's' : ''})` : '';
    return { ...base, status: 'failed', message: `${first.name}: ${first.errors[0] ?? 'failed'}${more}` };
  }
  const unfinished = tests.filter((t) => t.state === 'not-concluded');
  if (unfinished.length > 0) {
    return {
      ...base,
      status: 'not-concluded',
      message: `Not concluded (timeout): ${unfinished[0]!.name} did not finish.`,
    };
  }
  const ran = tests.filter((t) => t.state !== 'skipped');
  if (ran.length === 0) {
    const why = base.observations.length > 0 ? ` ${base.observations.join(' · ')}` : '';
    return { ...base, status: 'skipped', message: `Every covering test was skipped.${why}` };
  }
  if (requirement.level === 'INFO') {
    const seen = base.observations.length > 0 ? base.observations.join(' · ') : 'Observed; nothing noted.';
    return { ...base, status: 'info', message: seen };
  }
  return { ...base, status: 'passed', message: `${ran.length} test${ran.length > 1 ? 's' : ''} passed.` };
}

/** Exit codes of `speakcheck run`. */
export const EXIT = {
  /** Every judged requirement the profile cares about passed. */
  conforms: 0,
  /** A MUST failed (strict: or a SHOULD), or the suites themselves broke. */
  fails: 1,
  /** Invalid options. */
  usage: 2,
  /** Could not run: unreachable, bad credentials, not the API. */
  couldNotRun: 3,
} as const;

export function exitCodeFor(verdicts: Verdicts, profile: Profile, unhandledErrors = 0): number {
  const { mustFailed, shouldFailed } = verdicts.summary;
  if (mustFailed > 0) return EXIT.fails;
  if (profile === 'strict' && shouldFailed > 0) return EXIT.fails;
  if (verdicts.problems.length > 0 || unhandledErrors > 0) return EXIT.fails;
  // A run that could not conclude a requirement cannot say the server conforms.
  if (verdicts.summary.notConcluded > 0) return EXIT.fails;
  return EXIT.conforms;
}
