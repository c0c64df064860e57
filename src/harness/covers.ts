/**
 * covers(): every conformance test names the requirement ids it checks. The ids go into the task
 * meta for the reporter; an unknown id fails the test. For a test whose ids are all INFO (the
 * contract is silent, we only report what the server does) a failing assertion becomes an
 * observation and the test passes.
 *
 * Inside the test, `check(id, fn)` (src/harness/check.ts) attributes assertions to one of the ids:
 * a failed check fails only its id and the test goes on; the test fails at the end if a judged
 * check failed. An error thrown outside every check:
 *   - from a shared scenario (once()) or a checkStep(): the ids not concluded yet are blocked by it;
 *   - in a test that used no check() at all: it fails every id the test covers (the whole test is
 *     the check of its ids: a test with one id need not wrap anything);
 *   - otherwise (a setup step between checks): the ids not concluded yet are blocked by it.
 * The per-id tallies and the blocking error go into the task meta for the verdicts.
 *
 * With a requirement selection (`speakcheck run --requirement`), a test none of whose ids is
 * selected is not registered at all: it is not a skipped test, it is not part of this run.
 */
import { type TestContext, test } from 'vitest';
import type { Profile } from '../config/types.ts';
import { drainPending, newTestRecord, recordObservation, runWithRecord } from '../evidence/evidence.ts';
import { redactText } from '../evidence/redact.ts';
import { findRequirement, unknownRequirementIds } from '../requirements/index.ts';
import { levelIn } from '../verdict/sdk-profile.ts';
import { type HarnessErrorNote, withWouldJudge } from '../verdict/verdict.ts';
import { labelForAllure } from './allure-labels.ts';
import {
  attributed,
  type CheckTallies,
  isSetupFailure,
  isSkip,
  messageOf,
  NotObservable,
  runWithChecks,
  StepFailed,
  throttledBy,
} from './check.ts';
import { harnessBug } from './harness-error.ts';
import './meta.ts';
import { SpeakcheckError } from '../errors.ts';
import { loadRunConfig } from './run-config.ts';

export interface CoversOptions {
  timeoutMs?: number;
}

let defaultTimeoutMs: number | undefined;

/** Set by useSpeak() from the run config: long enough for a take to become ready. */
export function setDefaultTestTimeout(ms: number): void {
  defaultTimeoutMs = ms;
}

export function covers(
  ids: string[],
  name: string,
  /** Receives vitest's test context (e.g. for `context.skip(reason)`); most tests ignore it. */
  fn: (context: TestContext) => Promise<void> | void,
  o: CoversOptions = {},
): void {
  const selection = selectedRequirements();
  if (selection && !ids.some((id) => selection.has(id))) return;
  const unknown = unknownRequirementIds(ids);
  const infoOnly = ids.length > 0 && unknown.length === 0 && ids.every((id) => isInfo(id));
  const timeout = o.timeoutMs ?? defaultTimeoutMs;
  // The ids are in the meta from collection on, so `run --list` shows them without running anything.
  const options = { ...(timeout !== undefined ? { timeout } : {}), meta: { requirements: [...ids] } };
  test(name, options, async (context) => {
    const { task } = context;
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
    const tallies: CheckTallies = {};
    const harnessErrors: HarnessErrorNote[] = [];
    try {
      await runWithRecord(record, () => runWithChecks({ ids, tallies, harnessErrors }, () => fn(context)));
    } catch (err) {
      // A skip is not an assertion: it must stay a skip even for INFO-only tests.
      if (isSkip(err)) throw err;
      // The server gave the test nothing to judge (e.g. a take ready too fast for "before ready" to
      // be seen): not judged, with the reason, never failed nor blocked (a blocked MUST gates). When a
      // check of a judged requirement already failed, that failure stands and the rest is blocked (below).
      const gatingFailure = Object.entries(tallies).some(([id, t]) => t.failed.length > 0 && !isInfo(id));
      if (err instanceof NotObservable && !gatingFailure) {
        context.skip(
          withWouldJudge(
            redactText(err.message),
            'a server, text or moment where the behaviour can be observed (a longer take, a busier or remote server); then run again',
          ),
        );
      }
      // The server's back-pressure outlasted a request's bound: nothing is concluded, for or against.
      const throttled = throttledBy(err);
      if (throttled !== undefined) {
        task.meta.throttled = redactText(throttled.message);
        throw throttled;
      }
      const bug = harnessBug(err);
      if (bug !== undefined)
        harnessErrors.push({ message: redactText(messageOf(err)), bug: redactText(bug) });
      if (infoOnly) {
        record.observations.push(`Observed (not judged, INFO): ${redactText(messageOf(err))}`);
      } else {
        const message = redactText(messageOf(err));
        const named = err instanceof StepFailed ? '' : attributed({ ids }, '', err);
        if (named) {
          // A Finding that names a covered requirement fails it wherever it surfaced.
          const own = tallies[named];
          tallies[named] = { passed: own?.passed ?? 0, failed: [...(own?.failed ?? []), message] };
        } else if (Object.keys(tallies).length === 0 && !isSetupFailure(err)) {
          for (const id of ids) tallies[id] = { passed: 0, failed: [message] };
          throw err;
        }
        if (unconcluded(ids, tallies).length === 0) throw err;
        task.meta.blockedBy = message;
        throw new Blocked(ids, tallies, err);
      }
    } finally {
      task.meta.checks = tallies;
      if (harnessErrors.length > 0) task.meta.harnessErrors = harnessErrors;
      task.meta.evidence = record.evidence;
      task.meta.droppedEvidence = record.droppedEvidence;
      task.meta.observations = record.observations;
      task.meta.characters = record.characters;
      await labelForAllure(ids, record, resultLines(ids, tallies, task.meta.blockedBy));
    }
    concludeChecks(ids, tallies, record.observations);
  });
}

/** Whether the run's profile only observes `id` (INFO): the sdk profile judges the SDK's wire facts. */
function isInfo(id: string): boolean {
  const requirement = findRequirement(id);
  if (requirement === undefined) return false;
  let profile: Profile | undefined;
  try {
    profile = loadRunConfig().profile;
  } catch {
    profile = undefined;
  }
  return levelIn(requirement, profile) === 'INFO';
}

/** After the body: INFO ids' failed checks become observations; any other failed check fails the test. */
function concludeChecks(ids: readonly string[], tallies: CheckTallies, observations: string[]): void {
  const failed: string[] = [];
  for (const id of ids) {
    const messages = tallies[id]?.failed ?? [];
    if (messages.length === 0) continue;
    if (isInfo(id)) for (const m of messages) observations.push(`Observed (not judged, INFO): ${id}: ${m}`);
    else failed.push(`${id}: ${messages.join(' · ')}`);
  }
  if (failed.length > 0) throw new ChecksFailed(failed);
}

/** Each id's own result in this test, for the Allure attachment. */
function resultLines(ids: readonly string[], tallies: CheckTallies, blockedBy: string | undefined): string[] {
  return ids.map((id) => {
    const t = tallies[id];
    if (t && t.failed.length > 0) return `${id}: failed: ${t.failed.join(' · ')}`;
    if (blockedBy !== undefined && !(t && t.passed > 0)) return `${id}: blocked by: ${blockedBy}`;
    return `${id}: ${t ? `${t.passed} check${t.passed > 1 ? 's' : ''} held` : 'no failure'}`;
  });
}

/** The ids no check concluded (neither held nor failed) so far. */
function unconcluded(ids: readonly string[], tallies: CheckTallies): string[] {
  return ids.filter((id) => !(tallies[id] && (tallies[id].passed > 0 || tallies[id].failed.length > 0)));
}

/** The test's failure when a step outside every check stopped it: says which ids it left unjudged. */
export class Blocked extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_BLOCKED';
  constructor(ids: readonly string[], tallies: CheckTallies, cause: unknown) {
    const open = ids.filter(
      (id) => !(tallies[id] && (tallies[id].passed > 0 || tallies[id].failed.length > 0)),
    );
    super(`blocked (not judged): ${open.join(', ')}; by: ${messageOf(cause)}`, { cause });
    this.name = 'Blocked';
  }
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
  let ids: readonly string[] | undefined;
  try {
    ids = loadRunConfig().requirements;
  } catch {
    return undefined;
  }
  return ids && ids.length > 0 ? new Set(ids) : undefined;
}

/**
 * Whether the run selected this area (`--only`; none given: every area). For a file that judges
 * requirements of several areas (suites/expiry.spec.ts): it registers only those of the run.
 */
export function runSelectsArea(area: string): boolean {
  try {
    const { only } = loadRunConfig();
    return only.length === 0 || only.includes(area);
  } catch {
    return true;
  }
}

/** The timeout of an expiry test: the run budget in full mode, else the quick wait plus its checks. */
export function expiryTestTimeoutMs(): number {
  try {
    const { expiry } = loadRunConfig();
    if (expiry.mode === 'full' && expiry.maxTimeS !== undefined) return (expiry.maxTimeS + 60) * 1000;
    return (expiry.maxWaitS + 30) * 1000;
  } catch {
    return 50_000;
  }
}

/** Records what the server does, for the report (INFO requirements; context for failures). */
export function observe(message: string): void {
  recordObservation(message);
}
