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

import { levelGates, type Profile } from '../config/types.ts';
import type { EvidenceEntry } from '../evidence/evidence.ts';
import type { Requirement, RequirementLevel } from '../requirements/types.ts';
import { type Conclusion, type Conclusions, decisive } from './conclusion.ts';
import { inProfile } from './sdk-profile.ts';

export type TestState = 'passed' | 'failed' | 'skipped' | 'not-concluded';
export type VerdictStatus =
  | 'passed'
  | 'failed'
  | 'blocked'
  | 'skipped'
  | 'info'
  | 'not-concluded'
  /** A failure (or block) the expect file lists (src/verdict/expectations.ts): does not gate. */
  | 'expected-failure'
  /** A SHOULD that failed in the lenient profile: does not gate there, still something to fix. */
  | 'non-strict'
  /** Every covering test was skipped because the server does not offer an optional feature. */
  | 'not-applicable'
  /** Covering tests ran, but none saw the state the requirement speaks of (a pass is an observation). */
  | 'not-observed'
  /** The harness itself broke while judging it (src/harness/harness-error.ts): not the server's fault. */
  | 'harness-error';

/** A MUST or SHOULD that has no verdict of its own in this run: why, and what would judge it. */
export interface NotJudged {
  /** skipped, not-applicable, blocked, not-concluded or harness-error. */
  status: VerdictStatus;
  reason: string;
  wouldJudgeIt: string;
}

/** How many MUSTs and SHOULDs the run judged (a verdict of their own: passed, failed, non-strict). */
export interface JudgedAccount {
  must: number;
  mustJudged: number;
  should: number;
  shouldJudged: number;
}

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
  /** What the test concluded about each of its requirement ids (src/verdict/conclusion.ts). */
  conclusions: Conclusions;
}

export interface RequirementVerdict extends Requirement {
  status: VerdictStatus;
  /** Keys of the tests that cover the requirement. */
  tests: string[];
  message: string;
  covered: boolean;
  observations: string[];
  /** Set on a MUST or SHOULD the run did not judge (skipped, blocked, …): why and what would judge it. */
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
    /** The run waited on the server's limit: "throttled: 429 on N requests, waited M s" (src/client/back-pressure.ts). */
    throttled?: string;
    /** Observations the run itself adds to a requirement (INFO figures only the whole run knows). */
    runObservations?: Record<string, string[]>;
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
    withNotJudged(
      withRunObservations(
        nonStrict(
          notConcluded(
            judge(requirement, byRequirement.get(requirement.id) ?? [], o.throttled),
            o.stopped,
            o.throttled,
          ),
          o.profile,
        ),
        o.runObservations?.[requirement.id],
      ),
      o.stopped,
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
      notObserved: count('not-observed'),
      harnessErrors: count('harness-error'),
      uncovered: uncovered.length,
      ...levelCounts(requirements),
      tests: {
        passed: outcomes.filter((t) => t.state === 'passed').length,
        failed: outcomes.filter((t) => t.state === 'failed').length,
        skipped: outcomes.filter((t) => t.state === 'skipped').length,
        notConcluded: outcomes.filter((t) => t.state === 'not-concluded').length,
      },
      characters: outcomes.reduce((n, t) => n + t.characters, 0),
      judged: judgedAccount(requirements),
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
function notConcluded<V extends RequirementVerdict>(
  verdict: V,
  stopped: string | undefined,
  throttled: string | undefined,
): V {
  if (!stopped || verdict.status !== 'skipped') return verdict;
  if (verdict.covered) return verdict; // its tests ran and were skipped: a real skip
  // A run that waited on the server's limit says so first: back-pressure is never a verdict.
  return {
    ...verdict,
    status: 'not-concluded',
    message: `Not concluded (${throttled ?? 'timeout'}): ${stopped} before any covering test ran.`,
  };
}

/** The run's own figures for an INFO requirement a test observed (the totals only the run knows). */
function withRunObservations(verdict: RequirementVerdict, notes: string[] | undefined): RequirementVerdict {
  if (!notes || notes.length === 0 || verdict.status !== 'info') return verdict;
  const observations = [...verdict.observations, ...notes];
  return { ...verdict, observations, message: observations.join(' · ') };
}

/** The statuses that are a verdict on the server: the requirement was judged. */
const JUDGED: ReadonlySet<VerdictStatus> = new Set(['passed', 'failed', 'non-strict']);

/** MUSTs and SHOULDs counted: all of the run, and those judged (no `notJudged`). */
export function judgedAccount(requirements: readonly RequirementVerdict[]): JudgedAccount {
  const of = (level: RequirementLevel) => requirements.filter((r) => r.level === level);
  const judged = (list: RequirementVerdict[]) => list.filter((r) => r.notJudged === undefined).length;
  return {
    must: of('MUST').length,
    mustJudged: judged(of('MUST')),
    should: of('SHOULD').length,
    shouldJudged: judged(of('SHOULD')),
  };
}

/** The MUSTs and SHOULDs the run did not judge, MUSTs first. */
export function notJudgedList(requirements: readonly RequirementVerdict[]): RequirementVerdict[] {
  const open = requirements.filter((r) => r.notJudged !== undefined);
  return [...open.filter((r) => r.level === 'MUST'), ...open.filter((r) => r.level !== 'MUST')];
}

/**
 * A MUST or SHOULD without a verdict of its own gets `notJudged`: the reason and what would judge it,
 * from the conclusion that decided it (src/verdict/conclusion.ts), else one by status.
 */
function withNotJudged(verdict: Judged, stopped: string | undefined): RequirementVerdict {
  const { decidedBy, ...plain } = verdict;
  if (verdict.level === 'INFO' || JUDGED.has(verdict.status)) return plain;
  // A stopped run's remedy depends on why it was stopped, which only the whole run knows.
  const stoppedHere = decidedBy?.kind === 'not-concluded' && decidedBy.cause === 'stopped';
  const said = decidedBy !== undefined && 'wouldJudge' in decidedBy && !stoppedHere ? decidedBy : undefined;
  return {
    ...plain,
    notJudged: {
      status: verdict.status,
      reason: said?.reason ?? verdict.message,
      wouldJudgeIt: said?.wouldJudge ?? defaultRemedy(verdict, stopped),
    },
  };
}

/** What would judge a requirement whose conclusion named no remedy, by why it was not judged. */
function defaultRemedy(verdict: RequirementVerdict, stopped: string | undefined): string {
  switch (verdict.status) {
    case 'blocked':
      return 'the server getting past the step that blocked it (see the message); then run again';
    case 'not-concluded':
      return stopped?.includes('--max-time')
        ? 'a longer --max-time (the run budget ran out before it finished)'
        : 'a run that is not stopped before it finishes';
    case 'harness-error':
      return 'a speakcheck without this bug (please report it)';
    case 'not-applicable':
      return 'the server offering the feature';
    case 'not-observed':
      return 'a run where the state it speaks of can be observed (see the reason)';
    default:
      return verdict.covered
        ? 'a run where its test is not skipped (see the reason)'
        : 'a test that covers it (none exists: a gap of speakcheck)';
  }
}

/**
 * Where the profile's rules say a level does not gate (lenient: SHOULD and SECURITY), a failed
 * requirement of it is non-strict, with its failure kept (a security finding is still reported, only
 * the exit code ignores it there).
 */
function nonStrict(verdict: RequirementVerdict, profile: Profile | undefined): RequirementVerdict {
  // A MUST always gates; a SHOULD or security check only where the profile's rules say so.
  if (profile === undefined || verdict.status !== 'failed' || verdict.level === 'INFO') return verdict;
  if (levelGates(verdict.level, profile)) return verdict;
  return {
    ...verdict,
    status: 'non-strict',
    message: `Non-strict (a ${verdict.level === 'SHOULD' ? 'SHOULD' : 'security check'}, ${profile} profile): ${verdict.message}`,
  };
}

/** A verdict with the conclusion that decided it (withNotJudged reads its reason and remedy). */
type Judged = RequirementVerdict & { decidedBy?: Conclusion };

/** One conclusion and the test it came from. */
interface Found {
  test: TestOutcome;
  c: Conclusion;
}

/**
 * A requirement's verdict: the precedence fold (src/verdict/conclusion.ts, PRECEDENCE) over what
 * every covering test concluded about it. Passed needs at least one `held` and nothing stronger.
 */
function judge(requirement: Requirement, tests: TestOutcome[], throttled: string | undefined): Judged {
  const base = {
    ...requirement,
    tests: tests.map((t) => t.key),
    covered: tests.length > 0,
    observations: tests.flatMap((t) => t.observations),
  };
  if (tests.length === 0) return { ...base, status: 'skipped', message: 'No test covers this requirement.' };
  const found: Found[] = tests.flatMap((test) =>
    (test.conclusions[requirement.id] ?? []).map((c) => ({ test, c })),
  );
  if (requirement.level === 'INFO') return judgeInfo(base, tests, found, throttled);
  const top = decisive(found.map((f) => f.c));
  const all = (kind: Conclusion['kind']) => found.filter((f) => f.c.kind === kind);
  const first = top === undefined ? undefined : found.find((f) => f.c === top)!;
  const decidedBy = top === undefined ? {} : { decidedBy: top };
  switch (top?.kind) {
    case undefined:
      return {
        ...base,
        status: 'not-observed',
        message: 'Not observed: no covering test concluded anything about it.',
      };
    case 'violated': {
      const failing = new Set(all('violated').map((f) => f.test));
      const more =
        failing.size > 1 ? ` (and ${failing.size - 1} more failing test${failing.size > 2 ? 's' : ''})` : '';
      return {
        ...base,
        ...decidedBy,
        status: 'failed',
        message: `${first!.test.name}: ${top.message}${more}`,
      };
    }
    case 'harness-bug':
      return {
        ...base,
        ...decidedBy,
        status: 'harness-error',
        message: `Harness error (a bug of speakcheck, not a verdict on the server; please report it): ${top.bug}`,
      };
    case 'blocked':
      return {
        ...base,
        ...decidedBy,
        status: 'blocked',
        message: `${first!.test.name}: blocked by: ${top.by}`,
      };
    case 'not-concluded':
      return {
        ...base,
        ...decidedBy,
        status: 'not-concluded',
        // A run stopped while it waited on the server's limit says so first.
        message: `Not concluded (${top.cause === 'stopped' && throttled ? throttled : top.cause}): ${first!.test.name}: ${top.reason}`,
      };
    case 'held': {
      const held = new Set(all('held').map((f) => f.test)).size;
      return {
        ...base,
        ...decidedBy,
        status: 'passed',
        message: `${held} test${held > 1 ? 's' : ''} passed.`,
      };
    }
    case 'not-applicable':
      return { ...base, ...decidedBy, status: 'not-applicable', message: `Not applicable: ${top.reason}` };
    case 'not-observed':
      return {
        ...base,
        ...decidedBy,
        status: 'not-observed',
        message: `Not observed: ${first!.test.name}: ${top.reason}`,
      };
  }
}

/**
 * INFO judges nothing: its verdict is what the covering tests saw. A test the server's back-pressure
 * kept from finishing is an observation missed, not a run left unconcluded (a run stopped by
 * --max-time or Ctrl-C still is one).
 */
function judgeInfo(
  base: Omit<RequirementVerdict, 'status' | 'message'>,
  tests: TestOutcome[],
  found: Found[],
  throttled: string | undefined,
): Judged {
  const ran = tests.filter((t) => t.state !== 'skipped' && t.state !== 'not-concluded');
  const unfinished = tests.filter((t) => t.state === 'not-concluded');
  const cause = (t: TestOutcome) =>
    Object.values(t.conclusions)
      .flat()
      .find((c): c is Extract<Conclusion, { kind: 'not-concluded' }> => c.kind === 'not-concluded');
  if (ran.length === 0 && unfinished.length > 0) {
    const first = unfinished[0]!;
    const why = cause(first);
    if (unfinished.every((t) => cause(t)?.cause === 'throttled'))
      return {
        ...base,
        status: 'info',
        message: `Not observed: ${first.name} did not finish${why ? ` (${why.reason})` : ''}.`,
      };
    return {
      ...base,
      status: 'not-concluded',
      message: `Not concluded (${throttled ?? 'timeout'}): ${first.name} did not finish.`,
    };
  }
  if (ran.length === 0) {
    const why = base.observations.length > 0 ? ` ${base.observations.join(' · ')}` : '';
    return { ...base, status: 'skipped', message: `Every covering test was skipped.${why}` };
  }
  const notSeen = found.flatMap(({ test, c }) =>
    c.kind === 'blocked' ? [`Not observed in "${test.name}": blocked by: ${c.by}`] : [],
  );
  // A violation covers() did not already note (a test without checks): an observation, not a verdict.
  const unnoted = found.flatMap(({ c }) =>
    c.kind === 'violated' && !base.observations.some((o) => o.includes(c.message))
      ? [`Observed (not judged, INFO): ${c.message}`]
      : [],
  );
  const notes = [...base.observations, ...unnoted, ...notSeen];
  return {
    ...base,
    status: 'info',
    message: notes.length > 0 ? notes.join(' · ') : 'Observed; nothing noted.',
  };
}

/** "judged: 140 of 142 MUST, 30 of 30 SHOULD" */
export function judgedText(account: JudgedAccount): string {
  return `judged: ${account.mustJudged} of ${account.must} MUST, ${account.shouldJudged} of ${account.should} SHOULD`;
}

/** Failed and blocked requirements per level: the counts the verdict line and the exit code read. */
export function levelCounts(requirements: readonly Pick<RequirementVerdict, 'status' | 'level'>[]) {
  const at = (status: VerdictStatus, level: RequirementLevel) =>
    requirements.filter((r) => r.status === status && r.level === level).length;
  return {
    mustFailed: at('failed', 'MUST'),
    shouldFailed: at('failed', 'SHOULD'),
    mustBlocked: at('blocked', 'MUST'),
    shouldBlocked: at('blocked', 'SHOULD'),
    securityFailed: at('failed', 'SECURITY'),
    securityBlocked: at('blocked', 'SECURITY'),
  };
}
