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

import { PROFILE_RULES, type Profile } from '../config/types.ts';
import type { EvidenceEntry } from '../evidence/evidence.ts';
import { EXIT } from '../exit-codes.ts';
import type { Requirement, RequirementLevel } from '../requirements/types.ts';
import { inProfile, judgesWireFacts, SDK_WIRE_FACTS } from './sdk-profile.ts';

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
  /** The harness itself broke while judging it (src/harness/harness-error.ts): not the server's fault. */
  | 'harness-error';

/** A skip reason that starts with this says the server does not offer the feature: not applicable. */
export const NOT_APPLICABLE = 'not applicable: ';

/**
 * Inside a skip reason, separates why the requirement was not judged from what would judge it (an
 * option, a reachable webhook URL, a longer budget): `withWouldJudge(reason, remedy)` writes it,
 * the verdicts read it back into `RequirementVerdict.notJudged`. A vitest skip note is one string,
 * so the structure travels inside it.
 */
export const WOULD_JUDGE_IT = ' · would judge it: ';

export function withWouldJudge(reason: string, wouldJudgeIt: string): string {
  return `${reason}${WOULD_JUDGE_IT}${wouldJudgeIt}`;
}

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
  /** The server's back-pressure outlasted a request's bound: the test concluded nothing (state not-concluded). */
  throttled?: string;
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
  tests: { passed: number; failed: number; skipped: number };
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
          throttledNote(
            notConcluded(judge(requirement, byRequirement.get(requirement.id) ?? []), o.stopped),
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
      harnessErrors: count('harness-error'),
      uncovered: uncovered.length,
      ...levelCounts(requirements),
      tests: {
        passed: outcomes.filter((t) => t.state === 'passed').length,
        failed: outcomes.filter((t) => t.state === 'failed').length,
        skipped: outcomes.filter((t) => t.state === 'skipped').length,
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
function notConcluded(verdict: RequirementVerdict, stopped: string | undefined): RequirementVerdict {
  if (!stopped || verdict.status !== 'skipped') return verdict;
  if (verdict.covered) return verdict; // its tests ran and were skipped: a real skip
  return {
    ...verdict,
    status: 'not-concluded',
    message: `Not concluded (timeout): ${stopped} before any covering test ran.`,
  };
}

/**
 * A requirement not concluded in a run that waited on the server's limit says so in one sentence
 * ("Not concluded (throttled: 429 on 37 requests, waited 41 s): ..."): back-pressure is never a verdict.
 */
function throttledNote(verdict: RequirementVerdict, throttled: string | undefined): RequirementVerdict {
  if (!throttled || verdict.status !== 'not-concluded') return verdict;
  return {
    ...verdict,
    message: verdict.message.replace(/^Not concluded \([^)]*\)/, `Not concluded (${throttled})`),
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
 * A MUST or SHOULD without a verdict of its own gets `notJudged`: the reason (its message, the skip
 * note without the remedy) and what would judge it (the remedy the skip named, else one by status).
 */
function withNotJudged(verdict: RequirementVerdict, stopped: string | undefined): RequirementVerdict {
  if (verdict.level === 'INFO' || JUDGED.has(verdict.status)) return verdict;
  const [message, named] = splitWouldJudge(verdict.message);
  // The status already says it was skipped: the reason is the skip's own words.
  const reason = message.replace(/^Every covering test was skipped\. Skipped: /, '');
  return {
    ...verdict,
    message,
    notJudged: { status: verdict.status, reason, wouldJudgeIt: named ?? defaultRemedy(verdict, stopped) },
  };
}

/** "reason · would judge it: remedy" → [reason, remedy]; the first remedy when several skips named one. */
function splitWouldJudge(message: string): [string, string | undefined] {
  const at = message.indexOf(WOULD_JUDGE_IT);
  if (at < 0) return [message, undefined];
  const rest = message.slice(at + WOULD_JUDGE_IT.length);
  const remedy = rest.split(' · ')[0]!.trim();
  const after = rest.slice(remedy.length);
  return [`${message.slice(0, at)}${after}`.trim(), remedy];
}

/** What would judge a requirement whose skip named no remedy, by why it was not judged. */
function defaultRemedy(verdict: RequirementVerdict, stopped: string | undefined): string {
  switch (verdict.status) {
    case 'blocked':
      return 'the server getting past the step that blocked it (see the message); then run again';
    case 'not-concluded':
      if (verdict.message.startsWith('Not concluded (throttled'))
        return "--max-rps under the server's rate limit, or a longer --max-time (the server's back-pressure outlasted the budget)";
      return stopped?.includes('--max-time')
        ? 'a longer --max-time (the run budget ran out before it finished)'
        : 'a run that is not stopped before it finishes';
    case 'harness-error':
      return 'a speakcheck without this bug (please report it)';
    case 'not-applicable':
      return 'the server offering the feature';
    default:
      return verdict.covered
        ? 'a run where its test is not skipped (see the reason)'
        : 'a test that covers it (none exists: a gap of speakcheck)';
  }
}

/**
 * In the lenient profile a failed SHOULD or SECURITY check does not gate: it is non-strict, with its
 * failure kept (a security finding is still reported, only the exit code ignores it there).
 */
function nonStrict(verdict: RequirementVerdict, profile: Profile | undefined): RequirementVerdict {
  if (profile !== 'lenient' || verdict.status !== 'failed') return verdict;
  if (verdict.level !== 'SHOULD' && verdict.level !== 'SECURITY') return verdict;
  return {
    ...verdict,
    status: 'non-strict',
    message: `Non-strict (a ${verdict.level === 'SHOULD' ? 'SHOULD' : 'security check'}, lenient profile): ${verdict.message}`,
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
  // A test the stopped run did not let finish concluded nothing, for or against: except a check of
  // it that had already failed (a later request throttled past its bound does not undo that).
  const concluded = tests.filter((t) => t.state !== 'skipped' && t.state !== 'not-concluded');
  const results = concluded.map((t) => ({ test: t, result: resultIn(t, requirement.id) }));
  const failedBeforeStop = tests
    .filter((t) => t.state === 'not-concluded' && (t.checks?.[requirement.id]?.failed.length ?? 0) > 0)
    .map((t) => ({
      test: t,
      result: { kind: 'failed', message: t.checks![requirement.id]!.failed[0]! } as Result,
    }));
  const failed = [...results.filter((r) => r.result.kind === 'failed'), ...failedBeforeStop];
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
  // INFO judges nothing: a test the server's back-pressure kept from finishing is an observation
  // missed, not a run left unconcluded (a run stopped by --max-time or Ctrl-C still is one).
  if (
    unfinished.length > 0 &&
    requirement.level === 'INFO' &&
    concluded.length === 0 &&
    unfinished.every((t) => t.throttled !== undefined)
  ) {
    const first = unfinished[0]!;
    return {
      ...base,
      status: 'info',
      message: `Not observed: ${first.name} did not finish${first.throttled !== undefined ? ` (${first.throttled})` : ''}.`,
    };
  }
  if (unfinished.length > 0) {
    const first = unfinished[0]!;
    return {
      ...base,
      status: 'not-concluded',
      message:
        first.throttled !== undefined
          ? `Not concluded (throttled): ${first.name} did not finish: ${first.throttled}`
          : `Not concluded (timeout): ${first.name} did not finish.`,
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

/**
 * The exit code of a run, per profile. Not judged is not failed: a MUST nobody could judge (an
 * expiry longer than the run waits, webhooks a remote server cannot deliver) is neither held nor
 * broken. The profiles decide differently, on purpose:
 *   strict, lenient: exit 0 with the distinct verdict "NO MUST FAILED — N MUST NOT JUDGED" (never
 *     CONFORMS). A CI gate runs on every change against servers it cannot always make fully
 *     judgeable (no public webhook URL, 15-minute tokens); failing it for that would teach teams to
 *     switch the gate off. The gap is printed on the verdict line and listed in every report,
 *     each with what would judge it, so nobody reads it as CONFORMS.
 *   acceptance: exit 1. A buyer accepting a server wants "every MUST and SHOULD held", and an
 *     unjudged one is no answer: the gate fails until the run is set up to judge everything.
 * A stopped run that could not conclude a requirement fails in every profile (exit 1, NOT
 * CONCLUDED): it was meant to judge it and did not get to.
 */
export function exitCodeFor(
  verdicts: Verdicts,
  profile: Profile,
  unhandledErrors = 0,
  /** Entries of the expect file past their expiry date: each fails the run. */
  expiredExpectations = 0,
): number {
  // The harness broke: whatever else happened, the run cannot vouch for its verdicts.
  if (verdicts.summary.harnessErrors > 0) return EXIT.harnessError;
  const rules = PROFILE_RULES[profile];
  const { mustFailed, shouldFailed, mustBlocked, shouldBlocked } = verdicts.summary;
  // A blocked requirement was not shown to hold: it counts like a failure, though reported apart.
  if (mustFailed + mustBlocked > 0) return EXIT.failed;
  if (rules.shouldGates && shouldFailed + shouldBlocked > 0) return EXIT.failed;
  // Security checks gate in every profile but lenient (there they are reported, non-strict).
  const { securityFailed = 0, securityBlocked = 0 } = verdicts.summary;
  if (profile !== 'lenient' && securityFailed + securityBlocked > 0) return EXIT.failed;
  if (verdicts.problems.length > 0 || unhandledErrors > 0) return EXIT.failed;
  if (expiredExpectations > 0) return EXIT.failed;
  // A run that could not conclude a requirement cannot say the server conforms.
  if (verdicts.summary.notConcluded > 0) return EXIT.failed;
  if (rules.notJudgedGates && notJudgedGating(verdicts, profile).length > 0) return EXIT.failed;
  return EXIT.ok;
}

/** The unjudged requirements that keep the word CONFORMS away in this profile (SHOULDs where they gate). */
export function notJudgedGating(verdicts: Verdicts, profile: Profile): RequirementVerdict[] {
  const shouldToo = PROFILE_RULES[profile].shouldGates;
  // Security checks are not the contract's: unjudged, they keep CONFORMS away only where anything
  // unjudged fails the gate (acceptance); elsewhere the security line says they were not judged.
  const securityToo = PROFILE_RULES[profile].notJudgedGates;
  return notJudgedList(verdicts.requirements).filter(
    (r) =>
      r.level === 'MUST' || (shouldToo && r.level === 'SHOULD') || (securityToo && r.level === 'SECURITY'),
  );
}

/**
 * The verdict, in words, as the terminal's last line and every report's headline say it. CONFORMS
 * only when the run passed AND every MUST (strict, acceptance: and SHOULD) was judged; a clean run
 * that left some unjudged says so instead: "NO MUST FAILED — 2 MUST NOT JUDGED".
 */
export function verdictWords(verdicts: Verdicts, profile: Profile, exitCode: number): string {
  const words = contractWords(verdicts, profile, exitCode);
  return judgesWireFacts(profile) ? withSdkCompatibility(words, verdicts, profile, exitCode) : words;
}

/**
 * The sdk profile's words also say whether the server works with the vendor's SDK and clients: the
 * wire facts (src/verdict/sdk-profile.ts) are SHOULDs there, so a server that fails only those
 * is NOT COMPATIBLE, not "does not conform" (no sentence of speak-v1.md failed).
 */
function withSdkCompatibility(words: string, verdicts: Verdicts, profile: Profile, exitCode: number): string {
  const { summary } = verdicts;
  if (summary.harnessErrors > 0 || summary.notConcluded > 0) return words;
  const gating = (r: RequirementVerdict) =>
    (r.status === 'failed' || r.status === 'blocked') && r.level !== 'INFO';
  const wireFacts = verdicts.requirements.filter((r) => gating(r) && r.id in SDK_WIRE_FACTS);
  const contract = verdicts.requirements.filter((r) => gating(r) && !(r.id in SDK_WIRE_FACTS));
  if (exitCode === EXIT.ok) {
    const unjudged = notJudgedGating(verdicts, profile).filter((r) => r.id in SDK_WIRE_FACTS);
    return unjudged.length > 0
      ? `${words} — SDK compatibility not fully judged (${unjudged.map((r) => r.id).join(', ')})`
      : `${words} — compatible with the vendor's SDK and clients`;
  }
  if (contract.length > 0 || wireFacts.length === 0 || exitCode !== EXIT.failed) return words;
  return `NOT COMPATIBLE with the vendor's SDK and clients (wire facts not met: ${wireFacts.map((r) => r.id).join(', ')}; no requirement of speak-v1.md failed)`;
}

function contractWords(verdicts: Verdicts, profile: Profile, exitCode: number): string {
  const { summary } = verdicts;
  if (summary.harnessErrors > 0) return 'NO VERDICT (harness error)';
  const failedGate =
    summary.mustFailed + summary.mustBlocked > 0 ||
    (PROFILE_RULES[profile].shouldGates && summary.shouldFailed + summary.shouldBlocked > 0) ||
    // Security checks gate in every profile but lenient (exitCodeFor).
    (profile !== 'lenient' && (summary.securityFailed ?? 0) + (summary.securityBlocked ?? 0) > 0);
  if (failedGate) return 'DOES NOT CONFORM';
  if (summary.notConcluded > 0) return 'NOT CONCLUDED';
  const open = notJudgedText(verdicts, profile);
  // In acceptance an unjudged requirement alone makes exit 1: then the words still say why.
  const onlyUnjudgedFails =
    exitCode === EXIT.failed &&
    PROFILE_RULES[profile].notJudgedGates &&
    open !== '' &&
    verdicts.problems.length === 0;
  if (exitCode !== EXIT.ok && !onlyUnjudgedFails) return 'DOES NOT CONFORM';
  if (!open) return 'CONFORMS';
  const held = PROFILE_RULES[profile].shouldGates ? 'NO MUST OR SHOULD FAILED' : 'NO MUST FAILED';
  return `${held} — ${open} NOT JUDGED`;
}

/** "21 MUST, 2 SHOULD" not judged (those that gate in the profile), or '' when none. */
function notJudgedText(verdicts: Verdicts, profile: Profile): string {
  const open = notJudgedGating(verdicts, profile);
  return (['MUST', 'SHOULD', 'SECURITY'] as const)
    .map((level) => [level, open.filter((r) => r.level === level).length] as const)
    .filter(([, n]) => n > 0)
    .map(([level, n]) => `${n} ${level}`)
    .join(', ');
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
