/**
 * From test outcomes to requirement verdicts. Pure: the reporter collects outcomes from vitest, this
 * decides, the renderers print. Within one test, a requirement's result is its own: the check()es
 * attributed to it (src/harness/check.ts), or, when the test could not reach them because a step
 * outside every check failed, "blocked" by that step. A requirement is
 *   failed  when, in any covering test, a check of it failed (or the test failed and attributes
 *           nothing: a test without checks judges all its ids by its outcome; INFO-only tests never
 *           fail: covers() turned their assertion failures into observations);
 *   blocked when not failed, but a covering test stopped before concluding it (a setup step
 *           failed): a blocked MUST or SHOULD counts against conformance like a failure, and the
 *           report names the cause;
 *   info    when it is INFO and at least one covering test ran;
 *   skipped when no covering test ran (or none exists: then it is also listed as uncovered);
 *   passed  otherwise;
 *   not-concluded when the run was stopped (run budget --max-time, Ctrl-C) before a covering test
 *           finished and none failed: no verdict either way, and the run does not conform.
 * Judged are the requirements of the selected areas, or, with a requirement selection
 * (`run --requirement`), exactly the selected requirements: the rest of the catalogue is not part
 * of the run, neither judged nor listed as uncovered.
 */

import { EXIT } from '../cli/exit-codes.ts';
import type { EvidenceEntry } from '../client/evidence.ts';
import type { Profile } from '../config/types.ts';
import { inProfile } from './sdk-profile.ts';
import type { Requirement, RequirementLevel } from './types.ts';

export type TestState = 'passed' | 'failed' | 'skipped' | 'not-concluded';
export type VerdictStatus =
  | 'passed'
  | 'failed'
  | 'blocked'
  | 'skipped'
  | 'info'
  | 'not-concluded'
  /** A failure (or block) the expect file lists (src/requirements/expectations.ts): does not gate. */
  | 'expected-failure'
  /** A SHOULD that failed in the lenient profile: does not gate there, still something to fix. */
  | 'non-strict'
  /** Every covering test was skipped because the server does not offer an optional feature. */
  | 'not-applicable'
  /** The harness itself broke while judging it (src/harness/harness-error.ts): not the server's fault. */
  | 'harness-error';

/** A skip reason that starts with this says the server does not offer the feature: not applicable. */
export const NOT_APPLICABLE = 'not applicable: ';

/** Per requirement id within one test: the checks that held and the messages of those that failed. */
export type CheckTallies = Record<string, { passed: number; failed: string[] }>;

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
  /** The test's check() tallies per id (absent: the test attributes nothing, its outcome is every id's). */
  checks?: CheckTallies;
  /** The error of a step outside every check that stopped the test. */
  blockedBy?: string;
  /** Bugs of the harness this test ran into: each the failure message it left and the bug's line. */
  harnessErrors?: HarnessErrorNote[];
}

export interface HarnessErrorNote {
  /** The failure message the error left (a check's, the blocking step's or the test's). */
  message: string;
  /** "TypeError: … (at src/x.ts:12)". */
  bug: string;
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
  blocked: number;
  skipped: number;
  info: number;
  /** Requirements the stopped run could not conclude (0 unless the run was stopped). */
  notConcluded: number;
  /** Failures the expect file (`run --expect`) lists: reported apart, not counted as failed. */
  expectedFailures: number;
  /** SHOULDs failed in the lenient profile. */
  nonStrict: number;
  /** Optional features the server does not offer. */
  notApplicable: number;
  /** Requirements the harness could not judge because it broke itself (exit 3, EXIT.harnessError: no verdict on the server). */
  harnessErrors: number;
  uncovered: number;
  mustFailed: number;
  shouldFailed: number;
  mustBlocked: number;
  shouldBlocked: number;
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
    /** lenient: a failed SHOULD is `non-strict` (it does not gate there). */
    profile?: Profile;
  } = {},
): Verdicts {
  const { areas, requirements: ids } = o;
  const selected = (
    ids && ids.length > 0
      ? catalogue.filter((r) => ids.includes(r.id))
      : areas && areas.length > 0
        ? catalogue.filter((r) => areas.includes(r.area))
        : [...catalogue]
  ).map((r) => inProfile(r, o.profile));
  const byRequirement = new Map<string, TestOutcome[]>();
  for (const outcome of outcomes) {
    for (const id of outcome.requirements) {
      const list = byRequirement.get(id) ?? [];
      list.push(outcome);
      byRequirement.set(id, list);
    }
  }

  const requirements = selected.map((requirement) =>
    nonStrict(
      notConcluded(judge(requirement, byRequirement.get(requirement.id) ?? []), o.stopped),
      o.profile,
    ),
  );
  const problems: Problem[] = [...(o.fileErrors ?? [])];
  for (const outcome of outcomes) {
    if (outcome.state !== 'failed') continue;
    if (outcome.unknownRequirements.length > 0 || outcome.requirements.length === 0) {
      problems.push({ where: outcome.key, message: outcome.errors[0] ?? 'failed without a requirement id' });
    }
  }
  const count = (status: VerdictStatus) => requirements.filter((r) => r.status === status).length;
  const at = (status: VerdictStatus, level: RequirementLevel) =>
    requirements.filter((r) => r.status === status && r.level === level).length;
  const uncovered = requirements.filter((r) => !r.covered).map((r) => r.id);
  return {
    summary: {
      requirements: requirements.length,
      passed: count('passed'),
      failed: count('failed'),
      blocked: count('blocked'),
      skipped: count('skipped'),
      info: count('info'),
      notConcluded: count('not-concluded'),
      expectedFailures: count('expected-failure'),
      nonStrict: count('non-strict'),
      notApplicable: count('not-applicable'),
      harnessErrors: count('harness-error'),
      uncovered: uncovered.length,
      mustFailed: at('failed', 'MUST'),
      shouldFailed: at('failed', 'SHOULD'),
      mustBlocked: at('blocked', 'MUST'),
      shouldBlocked: at('blocked', 'SHOULD'),
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

/** In the lenient profile a failed SHOULD does not gate: it is non-strict, with its failure kept. */
function nonStrict(verdict: RequirementVerdict, profile: Profile | undefined): RequirementVerdict {
  if (profile !== 'lenient' || verdict.status !== 'failed' || verdict.level !== 'SHOULD') return verdict;
  return {
    ...verdict,
    status: 'non-strict',
    message: `Non-strict (a SHOULD, lenient profile): ${verdict.message}`,
  };
}

/** A failed or blocked result whose every cause is a bug of the harness: that requirement is not judged. */
function harnessErrorOf(
  id: string,
  results: Array<{ test: TestOutcome; result: Result }>,
): string | undefined {
  // Every failure message of the requirement (all its failed checks, not only the first) must be a bug.
  const messages = results.flatMap(({ test, result }) =>
    (result.kind === 'failed' && test.checks?.[id]?.failed.length
      ? test.checks[id]!.failed
      : [result.message]
    ).map((message) => test.harnessErrors?.find((h) => message.startsWith(h.message))),
  );
  if (messages.length === 0 || messages.some((b) => b === undefined)) return undefined;
  return messages[0]!.bug;
}

function judge(requirement: Requirement, tests: TestOutcome[]): RequirementVerdict {
  const base = {
    ...requirement,
    tests: tests.map((t) => t.key),
    covered: tests.length > 0,
    observations: tests.flatMap((t) => t.observations),
  };
  if (tests.length === 0) return { ...base, status: 'skipped', message: 'No test covers this requirement.' };
  // A test the stopped run did not let finish concluded nothing, for or against.
  const concluded = tests.filter((t) => t.state !== 'skipped' && t.state !== 'not-concluded');
  const results = concluded.map((t) => ({ test: t, result: resultIn(t, requirement.id) }));
  const failed = results.filter((r) => r.result.kind === 'failed');
  const blocked = results.filter((r) => r.result.kind === 'blocked');
  const bug =
    requirement.level === 'INFO'
      ? undefined
      : harnessErrorOf(requirement.id, failed.length > 0 ? failed : blocked);
  if (bug !== undefined) {
    return {
      ...base,
      status: 'harness-error',
      message: `Harness error (a bug of speakcheck, not a verdict on the server; please report it): ${bug}`,
    };
  }
  if (failed.length > 0 && requirement.level !== 'INFO') {
    const first = failed[0]!;
    const more =
      failed.length > 1 ? ` (and ${failed.length - 1} more failing test${failed.length > 2 ? 's' : ''})` : '';
    return { ...base, status: 'failed', message: `${first.test.name}: ${first.result.message}${more}` };
  }
  if (blocked.length > 0 && requirement.level !== 'INFO') {
    const first = blocked[0]!;
    return { ...base, status: 'blocked', message: `${first.test.name}: blocked by: ${first.result.message}` };
  }
  const unfinished = tests.filter((t) => t.state === 'not-concluded');
  if (unfinished.length > 0) {
    return {
      ...base,
      status: 'not-concluded',
      message: `Not concluded (timeout): ${unfinished[0]!.name} did not finish.`,
    };
  }
  const ran = concluded;
  const skipNotes = tests.map((t) => t.observations.find((o) => o.startsWith(`Skipped: ${NOT_APPLICABLE}`)));
  if (ran.length === 0 && skipNotes.every((n) => n !== undefined)) {
    return {
      ...base,
      status: 'not-applicable',
      message: `Not applicable: ${skipNotes[0]!.slice(`Skipped: ${NOT_APPLICABLE}`.length)}`,
    };
  }
  if (ran.length === 0) {
    const why = base.observations.length > 0 ? ` ${base.observations.join(' · ')}` : '';
    return { ...base, status: 'skipped', message: `Every covering test was skipped.${why}` };
  }
  if (requirement.level === 'INFO') {
    const notSeen = blocked.map((b) => `Not observed in "${b.test.name}": blocked by: ${b.result.message}`);
    // A failure covers() did not already note (a test without checks): an observation, not a verdict.
    const unnoted = failed
      .filter((f) => !base.observations.some((o) => o.includes(f.result.message)))
      .map((f) => `Observed (not judged, INFO): ${f.result.message}`);
    const notes = [...base.observations, ...unnoted, ...notSeen];
    const seen = notes.length > 0 ? notes.join(' · ') : 'Observed; nothing noted.';
    return { ...base, status: 'info', message: seen };
  }
  return { ...base, status: 'passed', message: `${ran.length} test${ran.length > 1 ? 's' : ''} passed.` };
}

interface Result {
  kind: 'passed' | 'failed' | 'blocked';
  message: string;
}

/** One requirement's result within one test that ran. */
function resultIn(test: TestOutcome, id: string): Result {
  const own = test.checks?.[id];
  if (own && own.failed.length > 0) return { kind: 'failed', message: own.failed[0]! };
  if (test.blockedBy !== undefined)
    return own && own.passed > 0
      ? { kind: 'passed', message: '' }
      : { kind: 'blocked', message: test.blockedBy };
  // A failed test that attributes nothing (no checks, or outside covers()) fails each of its ids.
  const attributes = test.checks !== undefined && Object.keys(test.checks).length > 0;
  if (test.state === 'failed' && !attributes) return { kind: 'failed', message: test.errors[0] ?? 'failed' };
  return { kind: 'passed', message: '' };
}

export function exitCodeFor(
  verdicts: Verdicts,
  profile: Profile,
  unhandledErrors = 0,
  /** Entries of the expect file past their expiry date: each fails the run. */
  expiredExpectations = 0,
): number {
  // The harness broke: whatever else happened, the run cannot vouch for its verdicts.
  if (verdicts.summary.harnessErrors > 0) return EXIT.harnessError;
  const { mustFailed, shouldFailed, mustBlocked, shouldBlocked } = verdicts.summary;
  // A blocked requirement was not shown to hold: it counts like a failure, though reported apart.
  if (mustFailed + mustBlocked > 0) return EXIT.failed;
  if ((profile === 'strict' || profile === 'sdk') && shouldFailed + shouldBlocked > 0) return EXIT.failed;
  if (verdicts.problems.length > 0 || unhandledErrors > 0) return EXIT.failed;
  if (expiredExpectations > 0) return EXIT.failed;
  // A run that could not conclude a requirement cannot say the server conforms.
  if (verdicts.summary.notConcluded > 0) return EXIT.failed;
  return EXIT.ok;
}
