/**
 * From test outcomes to requirement verdicts, as the reports carry them. Pure: the reporter collects
 * outcomes from vitest, the fold (src/verdict/fold.ts) decides, the standing (src/verdict/standing.ts)
 * says what each verdict means, the words (src/verdict/words.ts) say it; this puts them together.
 * Judged are the requirements of the selected areas, or, with a requirement selection
 * (`run --requirement`), exactly the selected requirements: the rest of the catalogue is not part
 * of the run, neither judged nor listed as uncovered.
 */

import type { Expectation, Profile } from '../config/types.ts';
import type { Observation } from '../evidence/observation.ts';
import type { Requirement } from '../requirements/types.ts';
import { type ExpectOutcome, expectOutcome } from './expectations.ts';
import { foldVerdict } from './fold.ts';
import type { RunStopped, TestOutcome, Verdict } from './model.ts';

export type { TestOutcome, TestState } from './model.ts';

import { inProfile } from './sdk-profile.ts';
import {
  countLabels,
  countTestStates,
  isJudged,
  isOpen,
  type Label,
  labelOf,
  testFailed,
} from './standing.ts';
import { messageOf, type NotJudged, notJudgedOf, type RunParticulars } from './words.ts';

export type { NotJudged };
/** The label a report shows for a verdict (src/verdict/standing.ts): words, never decided on. */
export type VerdictStatus = Label;

/** How many MUSTs and SHOULDs the run judged (a verdict of their own: passed, failed, non-strict). */
export interface JudgedAccount {
  must: number;
  mustJudged: number;
  should: number;
  shouldJudged: number;
}

/**
 * A verdict as the reports carry it: the verdict (the data every reader decides on, through
 * `standing`), and its words: a label, the message, and for a MUST or SHOULD the run did not judge,
 * why and what would judge it. The words are written once, here, from the verdict.
 */
export interface RequirementVerdict extends Verdict {
  status: VerdictStatus;
  message: string;
  notJudged?: NotJudged;
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
  /** Requirements whose state no covering test observed (a take too fast for "before ready"). */
  notObserved: number;
  /** Requirements the harness could not judge because it broke itself (exit 3, EXIT.harnessError: no verdict on the server). */
  harnessErrors: number;
  uncovered: number;
  mustFailed: number;
  shouldFailed: number;
  mustBlocked: number;
  shouldBlocked: number;
  /** SECURITY checks (the security area: tenant isolation) failed or blocked: counted apart from the MUSTs. */
  securityFailed: number;
  securityBlocked: number;
  /** notConcluded: tests kept from finishing that found no violation (never counted failed). */
  tests: { passed: number; failed: number; skipped: number; notConcluded: number };
  characters: number;
  /** MUSTs and SHOULDs judged out of those of the run; the rest carry `notJudged`. */
  judged: JudgedAccount;
}

export interface Verdicts {
  summary: VerdictSummary;
  /** The expect file's effect (`run --expect`): expected, unexpected passes, expired entries. */
  expect?: ExpectOutcome;
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
    stopped?: RunStopped;
    /** lenient: a failed SHOULD does not gate there (its label: non-strict). */
    profile?: Profile;
    /** The run waited on the server's limit: "throttled: 429 on N requests, waited M s" (src/client/back-pressure.ts). */
    throttled?: string;
    /** Observations the run itself adds to a requirement (INFO figures only the whole run knows). */
    runObservations?: Record<string, Observation[]>;
    /** The expect file (`run --expect`): its failures do not gate the run. */
    expect?: { file: string; entries: readonly Expectation[] };
    now?: Date;
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
  const run: RunParticulars = {
    ...(o.stopped ? { stopped: o.stopped } : {}),
    ...(o.throttled ? { throttled: o.throttled } : {}),
  };
  const folded = selected.map((requirement) =>
    foldVerdict(requirement, byRequirement.get(requirement.id) ?? [], {
      ...(o.stopped ? { stop: o.stopped.reason } : {}),
      ...(o.runObservations ? { runObservations: o.runObservations } : {}),
      ...(o.expect ? { expectations: o.expect.entries } : {}),
      ...(o.now ? { now: o.now } : {}),
    }),
  );
  const requirements = folded.map((v) => present(v, o.profile, run));
  const problems: Problem[] = [...(o.fileErrors ?? [])];
  for (const outcome of outcomes) {
    if (!testFailed(outcome)) continue;
    if (outcome.unknownRequirements.length > 0 || outcome.requirements.length === 0) {
      problems.push({ where: outcome.key, message: outcome.errors[0] ?? 'failed without a requirement id' });
    }
  }
  const uncovered = requirements.filter((r) => !r.covered).map((r) => r.id);
  return {
    summary: {
      requirements: requirements.length,
      ...countLabels(requirements, o.profile),
      uncovered: uncovered.length,
      tests: countTestStates(outcomes),
      characters: outcomes.reduce((n, t) => n + t.characters, 0),
      judged: judgedAccount(requirements),
    },
    requirements,
    uncovered,
    problems,
    ...(o.expect ? { expect: expectOutcome(requirements, o.expect.entries, o.expect.file, o.now) } : {}),
  };
}

/** A verdict with its words: label, message, and why it was not judged. */
export function present(
  v: Verdict,
  profile: Profile | undefined,
  run: RunParticulars = {},
): RequirementVerdict {
  const notJudged = notJudgedOf(v, profile, run);
  return {
    ...v,
    status: labelOf(v, profile),
    message: messageOf(v, profile, run),
    ...(notJudged ? { notJudged } : {}),
  };
}

/** MUSTs and SHOULDs counted: all of the run, and those judged. */
export function judgedAccount(requirements: readonly Verdict[]): JudgedAccount {
  const of = (level: 'MUST' | 'SHOULD') => requirements.filter((r) => r.level === level);
  const judged = (list: Verdict[]) => list.filter(isJudged).length;
  return {
    must: of('MUST').length,
    mustJudged: judged(of('MUST')),
    should: of('SHOULD').length,
    shouldJudged: judged(of('SHOULD')),
  };
}

/** The MUSTs, SHOULDs and security checks the run did not judge, MUSTs first. */
export function notJudgedList<V extends Verdict>(requirements: readonly V[]): V[] {
  const open = requirements.filter(isOpen);
  return [...open.filter((r) => r.level === 'MUST'), ...open.filter((r) => r.level !== 'MUST')];
}

/** "judged: 140 of 142 MUST, 30 of 30 SHOULD" */
export function judgedText(account: JudgedAccount): string {
  return `judged: ${account.mustJudged} of ${account.must} MUST, ${account.shouldJudged} of ${account.should} SHOULD`;
}
