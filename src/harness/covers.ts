/**
 * covers(): every conformance test names the requirement ids it checks. The ids go into the task
 * meta for the reporter; an unknown id fails the test. For a test whose ids are all INFO (the
 * contract is silent, we only report what the server does) a failing assertion becomes an
 * observation and the test passes.
 *
 * What the test concluded about each id is data (src/verdict/conclusion.ts): check() records held,
 * violated or not observed (src/harness/check.ts); an error thrown outside every check is classified
 * once (src/harness/disposition.ts) and concludes the ids still open:
 *   - back-pressure past its bound, or the test's own time bound: not concluded (never failed);
 *   - a shared scenario's or a step's failure, a stuck wait: blocked by it;
 *   - a bug of speakcheck: harness-bug;
 *   - in a test that concluded nothing before it: violated, for every id (a failure needs no
 *     check around it); otherwise blocked.
 * A test that ends with ids no check concluded leaves them not observed, whether or not it made
 * exchanges: a pass is a check that held on an observation, never a body that did not throw.
 * A test declares what it needs before it can judge anything as its precondition (`requires`):
 * unmet, the body does not run and its ids are not applicable (or not observed), with the reason.
 *
 * With a requirement selection (`speakcheck run --requirement`), a test none of whose ids is
 * selected is not registered at all: it is not a skipped test, it is not part of this run.
 */
import { SpeakcheckError } from '../errors.ts';
import {
  drainPending,
  newTestRecord,
  recordObservation,
  runWithRecord,
  type TestRecord,
} from '../evidence/evidence.ts';
import { type Observation, type ObservationData, observation } from '../evidence/observation.ts';
import { redactError } from '../evidence/redact.ts';
import {
  findRequirement,
  RACES_TIMINGS,
  type RequirementId,
  unknownRequirementIds,
} from '../requirements/index.ts';
import type { Conclusion, Conclusions } from '../verdict/conclusion.ts';
import { infoStopped, infoViolated } from '../verdict/noted.ts';
import { levelIn } from '../verdict/sdk-profile.ts';
import { tally } from '../verdict/standing.ts';
import { conclusionWords } from '../verdict/words.ts';
import { labelForAllure } from './allure-labels.ts';
import {
  attributed,
  conclusionOf,
  notApplicable,
  notObserved,
  restingOn,
  runWithChecks,
  violation,
} from './check.ts';
import { classify } from './disposition.ts';
import './meta.ts';
import { namedFixtures, type RunTestContext, registerRunTest } from './fixtures.ts';
import { runPacing, testBoundConclusion } from './pacing.ts';
import { currentRun } from './run-context.ts';
import { runnerTimeoutMs, withinBound } from './test-bound.ts';

export interface CoversOptions {
  timeoutMs?: number;
  /**
   * Runs beside the neighbouring concurrent tests of its file (vitest's `concurrent`): for tests that
   * only read what a shared fixture made, whose requests would otherwise queue one test after
   * another against a server that takes its time (each evidence record follows its own test).
   */
  concurrent?: boolean;
  /**
   * What the test needs before it can judge anything (the server can call the run's webhook sink):
   * checked when the test starts, inside it. When not met, the test body does not run and every id
   * is concluded not applicable (or not observed) with the precondition's reason and what would
   * judge it, as notApplicable()/notObserved() would. A precondition that throws fails like the body.
   */
  requires?: Precondition;
}

/** A test's precondition (CoversOptions.requires): undefined when it holds, else why not. */
export type Precondition = () => Unmet | undefined | Promise<Unmet | undefined>;

/** Why a precondition does not hold, and what that concludes for each id of the test. */
export interface Unmet {
  /**
   * not-applicable: the server or the run does not offer what the test needs (webhooks the server
   * cannot deliver); not-observed: the state the test needs did not occur.
   */
  conclusion: 'not-applicable' | 'not-observed';
  reason: string;
  wouldJudge: string;
}

/**
 * A test's bound when it sets none, from the run's plan: long enough for a take to become ready.
 * Without a run (a listing, a unit test of the harness) the suites' default applies.
 */
function defaultTimeoutMs(): number | undefined {
  const plan = currentRun()?.plan;
  return plan ? plan.timeouts.readyMs + 4 * plan.timeouts.requestMs : undefined;
}

/** vitest's testTimeout for the suites (suites.vitest.config.ts): the bound when none is set. */
const SUITES_TEST_TIMEOUT_MS = 90_000;

/** What a test body receives: its fixtures (./fixtures.ts), `run` the run's context. */
export type CoversContext = RunTestContext;

export function covers(
  ids: RequirementId[],
  name: string,
  /**
   * Receives the test's fixtures: `run`, the run's context, and `speak`, the file's context (set up
   * when the body names it: `async ({ speak }) => …`).
   */
  fn: (context: CoversContext) => Promise<void> | void,
  o: CoversOptions = {},
): void {
  const selection = selectedRequirements();
  if (selection && !ids.some((id) => selection.has(id))) return;
  const unknown = unknownRequirementIds(ids);
  const infoOnly = ids.length > 0 && unknown.length === 0 && ids.every((id) => isInfo(id));
  const boundMs = o.timeoutMs ?? defaultTimeoutMs() ?? SUITES_TEST_TIMEOUT_MS;
  // The ids are in the meta from collection on, so `run --list` shows them without running anything.
  const options = {
    timeout: runnerTimeoutMs(boundMs),
    meta: { requirements: [...ids] },
    ...(o.concurrent ? { concurrent: true } : {}),
    // The file's context is set up for a body that names it (vitest's rule for fixtures).
    ...(namedFixtures(fn).includes('speak') ? { speak: true } : {}),
  };
  registerRunTest(name, options, async ({ run, speak, task, signal }) => {
    task.meta.requirements = [...ids];
    task.meta.infoOnly = infoOnly;
    if (ids.length === 0)
      throw new Error(`covers("${name}") names no requirement id: every test must say what it checks.`);
    if (unknown.length > 0) {
      task.meta.unknownRequirements = unknown;
      throw new Error(
        `unknown requirement id${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: declare ${unknown.length > 1 ? 'them' : 'it'} in src/requirements/catalogue/<area>.ts.`,
      );
    }
    const record = newTestRecord();
    drainPending(record);
    const conclusions: Conclusions = {};
    // What the meta carries is a copy taken when the test ends: a body still running past its bound
    // (abandoned, see withinBound) must not change the test's conclusions afterwards.
    const snapshot = () => structuredClone(conclusions);
    let stoppedBy: { err: unknown } | undefined;
    try {
      await withinBound(boundMs, name, () =>
        runWithRecord(record, () =>
          runWithChecks({ ids, conclusions }, async () => {
            if (await preconditionUnmet(ids, o.requires)) return;
            return fn({ run, speak, task, signal });
          }),
        ),
      );
    } catch (err) {
      // An INFO-only test and a test that could not observe its state go on to the end: what
      // stopped them is an observation, not a failure.
      if (concludeStopped(ids, conclusions, err, infoOnly, record.observations) === 'stopped')
        stoppedBy = { err };
    }
    if (stoppedBy === undefined) concludeFinished(ids, conclusions, record);
    noteInfoViolations(ids, conclusions, record.observations);
    task.meta.conclusions = snapshot();
    task.meta.evidence = record.evidence;
    task.meta.droppedEvidence = record.droppedEvidence;
    task.meta.observations = record.observations;
    task.meta.characters = record.characters;
    await labelForAllure(ids, record, resultLines(ids, task.meta.conclusions));
    // What vitest gets is also what its JUnit and Allure reporters write, unredacted: a copy whose
    // message, stack and properties are redacted (the conclusions above were drawn from the original).
    if (stoppedBy !== undefined) throw redactError(stoppedBy.err);
    failOnViolations(ids, conclusions);
  });
}

/** Whether the test's precondition does not hold; then it has concluded every id with its reason. */
async function preconditionUnmet(
  ids: readonly RequirementId[],
  requires: Precondition | undefined,
): Promise<boolean> {
  const unmet = await requires?.();
  if (unmet === undefined) return false;
  const conclude = unmet.conclusion === 'not-applicable' ? notApplicable : notObserved;
  conclude(ids, unmet.reason, unmet.wouldJudge);
  return true;
}

/**
 * An error escaped the test body: what it means for the ids the test had not concluded yet
 * (src/harness/disposition.ts says what the error is). Throws when the error is vitest's own skip.
 */
function concludeStopped(
  ids: readonly string[],
  conclusions: Conclusions,
  err: unknown,
  infoOnly: boolean,
  observations: Observation[],
): 'observed' | 'stopped' {
  const d = classify(err);
  if (d.kind === 'skip') throw err;
  const open = ids.filter((id) => (conclusions[id] ?? []).length === 0);
  const each = (list: readonly string[], c: Conclusion) => {
    for (const id of list) conclusions[id] = [...(conclusions[id] ?? []), c];
  };
  switch (d.kind) {
    case 'throttled':
      each(open, {
        kind: 'not-concluded',
        cause: 'throttled',
        reason: d.message,
        wouldJudge:
          "--max-rps under the server's rate limit, or a longer --max-time (the server's back-pressure outlasted its bound)",
      });
      return 'stopped';
    case 'cannot-observe':
      each(open, { kind: 'not-observed', reason: d.reason, wouldJudge: d.wouldJudge });
      return 'observed';
    case 'outage':
      each(open, {
        kind: 'not-concluded',
        cause: 'outage',
        reason: d.message,
        wouldJudge: 'a run while the server answers (or a longer --request-timeout, if it is only slow)',
      });
      return 'stopped';
    case 'test-bound':
      // Paced by --max-rps or the server's limit meanwhile: the pacing is the cause named (./pacing.ts).
      each(open, testBoundConclusion(d.message, runPacing(currentRun()?.plan ?? {})));
      return 'stopped';
    default:
      break;
  }
  if (infoOnly) {
    observations.push(infoStopped(d.message));
    each(open, { kind: 'held' });
    return 'observed';
  }
  if (d.kind === 'harness-bug') {
    each(open, conclusionOf(d, err));
    return 'stopped';
  }
  // A Finding that names a covered requirement fails it wherever it surfaced.
  const named = d.kind === 'step-failed' ? '' : attributed({ ids }, '', err);
  if (named) each([named], violation(d.message, err));
  const stillOpen = ids.filter((id) => (conclusions[id] ?? []).length === 0);
  // A test that concluded nothing before a plain failure is the check of all its ids.
  const concludedAny = ids.some((id) => (conclusions[id] ?? []).length > 0);
  if (!concludedAny && d.kind === 'finding') {
    each(stillOpen, violation(d.message, err));
    return 'stopped';
  }
  each(stillOpen, { kind: 'blocked', by: d.message, ...restingOn(err) });
  return 'stopped';
}

/**
 * The body ended: an id no check concluded was not judged here, "not observed", never "held" — a
 * pass is an observation a check made of the state its requirement speaks of (issue 48). A test
 * that returned without any check (an early `return`, whether or not it had exchanges with the
 * server) concludes nothing for its ids; a test that concluded some leaves the rest not observed.
 */
export function concludeFinished(
  ids: readonly string[],
  conclusions: Conclusions,
  record: Pick<TestRecord, 'evidence' | 'droppedEvidence' | 'observations'>,
): void {
  const concludedAny = ids.some((id) => (conclusions[id] ?? []).length > 0);
  const observedAny = record.evidence.length + record.droppedEvidence + record.observations.length > 0;
  const open = concludedAny ? NO_CHECK_RAN : observedAny ? NO_CHECK_AT_ALL : NOTHING_OBSERVED;
  for (const id of ids) if ((conclusions[id] ?? []).length === 0) conclusions[id] = [open];
}

/**
 * INFO judges nothing: its violated checks are what the server does, noted as observations here,
 * once, whether the test finished or stopped (the fold notes those of a test that left no
 * conclusions of its own; nothing is de-duplicated by comparing sentences).
 */
function noteInfoViolations(
  ids: readonly string[],
  conclusions: Conclusions,
  observations: Observation[],
): void {
  for (const id of ids) {
    if (!isInfo(id)) continue;
    for (const m of tally(conclusions[id]).violated)
      observations.push(infoViolated(id, m, RACES_TIMINGS.has(id)));
  }
}

/** An id of a test that concluded others, for which no check ran. */
const NO_CHECK_RAN: Conclusion = {
  kind: 'not-observed',
  reason: 'no check of it ran in this test (what it needs did not occur)',
  wouldJudge: 'a run where the test reaches its check (see the observations)',
};

/** Every id of a test that had exchanges with the server but ended without a check of any id. */
const NO_CHECK_AT_ALL: Conclusion = {
  kind: 'not-observed',
  reason: 'the test ended without a check of it (its exchanges were made, nothing judged them)',
  wouldJudge: 'a run where the test reaches its checks (a test that returns early judges nothing)',
};

/** Every id of a test that ended without a check and without observing anything of the server. */
const NOTHING_OBSERVED: Conclusion = {
  kind: 'not-observed',
  reason: 'the test ended without a check and without an exchange with the server',
  wouldJudge: 'a run where the test reaches its checks (a test that returns early observes nothing)',
};

/** After the body: any violated check of a judged requirement fails the test, each on its own line. */
function failOnViolations(ids: readonly string[], conclusions: Conclusions): void {
  const failed = ids
    .filter((id) => !isInfo(id))
    .flatMap((id) => {
      const { violated } = tally(conclusions[id]);
      return violated.length > 0 ? [`${id}: ${violated.join(' · ')}`] : [];
    });
  if (failed.length > 0) throw new ChecksFailed(failed);
}

/** Whether the run's profile only observes `id` (INFO): the sdk profile judges the SDK's wire facts. */
function isInfo(id: string): boolean {
  const requirement = findRequirement(id);
  if (requirement === undefined) return false;
  return levelIn(requirement, currentRun()?.plan.profile) === 'INFO';
}

/** Each id's own result in this test, for the Allure attachment. */
function resultLines(ids: readonly string[], conclusions: Conclusions | undefined): string[] {
  return ids.map((id) => {
    const list = conclusions?.[id] ?? [];
    return `${id}: ${list.map((c) => conclusionWords(c)).join(' · ') || 'nothing concluded'}`;
  });
}

/** The test's own failure when checks failed: every failed requirement on its own line. */
export class ChecksFailed extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_CHECKS_FAILED';
  constructor(lines: string[]) {
    super(lines.join('\n'));
    this.name = 'ChecksFailed';
  }
}

/**
 * The run's requirement selection, or undefined when every test runs. Without a run config (a
 * suite loaded outside a run) nothing is selected: registering the test lets it report that.
 */
export function selectedRequirements(): ReadonlySet<string> | undefined {
  const ids = currentRun()?.plan.requirements;
  return ids && ids.length > 0 ? new Set(ids) : undefined;
}

/**
 * Whether the run selected this area (`--only`; none given: every area). For a file that judges
 * requirements of several areas (suites/expiry.spec.ts): it registers only those of the run.
 */
export function runSelectsArea(area: string): boolean {
  const only = currentRun()?.plan.only ?? [];
  return only.length === 0 || only.includes(area);
}

/** The timeout of an expiry test: the run budget in full mode, else the quick wait plus its checks. */
export function expiryTestTimeoutMs(): number {
  const expiry = currentRun()?.plan.expiry;
  if (expiry === undefined) return 50_000;
  if (expiry.mode === 'full' && expiry.maxTimeS !== undefined) return (expiry.maxTimeS + 60) * 1000;
  return (expiry.maxWaitS + 30) * 1000;
}

/**
 * Records what the server does, for the report (INFO requirements; context for failures): `key` says
 * what was observed, the same in every run ('lists.page-base'); `template` is the sentence, `{name}`
 * standing for a value or particular of that name; `values` are what the server chose (compare diffs
 * them), `particulars` the run's own (ids, origins, timings, sizes, counts: shown, never compared),
 * `caught` what this run merely happened to catch (never compared). See src/evidence/observation.ts.
 */
export function observe(key: string, template: string, data: ObservationData = {}): void {
  recordObservation(observation(key, template, data));
}
