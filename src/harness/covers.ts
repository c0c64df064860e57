/**
 * covers(): every conformance test names the requirement ids it checks. The ids go into the task
 * meta for the reporter; an unknown id fails the test. For a test whose ids are all INFO (the
 * contract is silent, we only report what the server does) a failing assertion becomes an
 * observation and the test passes.
 *
 * With a requirement selection (`speakcheck run --requirement`), a test none of whose ids is
 * selected is not registered at all: it is not a skipped test, it is not part of this run.
 */
import { type TestContext, test } from 'vitest';
import { drainPending, newTestRecord, recordObservation, runWithRecord } from '../client/evidence.ts';
import { redactText } from '../client/redact.ts';
import { findRequirement, unknownRequirementIds } from '../requirements/index.ts';
import { labelForAllure } from './allure-labels.ts';
import './meta.ts';
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
  const infoOnly =
    ids.length > 0 && unknown.length === 0 && ids.every((id) => findRequirement(id)?.level === 'INFO');
  const timeout = o.timeoutMs ?? defaultTimeoutMs;
  test(name, timeout !== undefined ? { timeout } : {}, async (context) => {
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
    try {
      await runWithRecord(record, () => fn(context));
    } catch (err) {
      // A skip is not an assertion: it must stay a skip even for INFO-only tests.
      if (!infoOnly || isSkip(err)) throw err;
      record.observations.push(`Observed (not judged, INFO): ${redactText(errorMessage(err))}`);
    } finally {
      task.meta.evidence = record.evidence;
      task.meta.droppedEvidence = record.droppedEvidence;
      task.meta.observations = record.observations;
      task.meta.characters = record.characters;
      await labelForAllure(ids, record);
    }
  });
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

/** Records what the server does, for the report (INFO requirements; context for failures). */
export function observe(message: string): void {
  recordObservation(message);
}

function isSkip(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'VITEST_PENDING';
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
