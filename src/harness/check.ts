/**
 * check(): inside a covers() test, attributes the assertions it wraps to one requirement id.
 *
 * A check is soft: its failure is recorded for its id and the test goes on, so the test's other
 * requirements are still judged; covers() fails the test at the end if any judged check failed.
 * A failure thrown outside every check (a setup step: a generation that failed, a take that never
 * got ready) leaves the requirements not concluded yet "blocked" by it (src/verdict/verdict.ts).
 *
 * `checkStep(id, fn)` is for a setup step that is itself the proof of a requirement (generation
 * answering 500 is VOICE-GENERATE-RETURNS-VOICE failing): its failure fails `id` and stops the test,
 * so what depends on the step is blocked by it, not failed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Finding } from '../checks/finding.ts';
import { ClientDiagnostic } from '../client/diagnostics.ts';
import { SpeakcheckError } from '../errors.ts';
import { redactText } from '../evidence/redact.ts';
import type { CheckTallies, HarnessErrorNote } from '../verdict/verdict.ts';
import { harnessBug } from './harness-error.ts';
import { stuckWaitRequirement } from './wait-ledger.ts';

export type { CheckTallies };

type CheckTally = CheckTallies[string];

/** What covers() hands to check() through AsyncLocalStorage. */
export interface CheckScope {
  /** The ids the test covers: a check for another id is a harness bug. */
  ids: readonly string[];
  tallies: CheckTallies;
  /** Bugs of the harness itself caught in a check (src/harness/harness-error.ts): never the server's fault. */
  harnessErrors?: HarnessErrorNote[];
}

const scope = new AsyncLocalStorage<CheckScope>();

export function runWithChecks<T>(s: CheckScope, fn: () => T): T {
  return scope.run(s, fn);
}

/** Thrown by checkStep() after recording the failure: the rest of the test is blocked by it. */
export class StepFailed extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_STEP_FAILED';
  constructor(
    readonly requirement: string,
    override readonly cause: unknown,
  ) {
    super(`${requirement}: ${messageOf(cause)}`);
    this.name = 'StepFailed';
  }
}

/**
 * Soft: records whether `fn` held for `id`; resolves (never rejects) to whether it held. A Finding
 * that names another requirement the test covers (`facts.requirement`) is recorded against that one.
 */
export function check(id: string, fn: () => Promise<unknown>): Promise<boolean>;
export function check(id: string, fn: () => unknown): boolean;
export function check(id: string, fn: () => unknown): boolean | Promise<boolean> {
  const s = scopeFor(id);
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    return fail(s, id, err);
  }
  if (result instanceof Promise)
    return result.then(
      () => pass(s, id),
      (err: unknown) => fail(s, id, err),
    );
  return pass(s, id);
}

/**
 * A setup step that proves `id` (or several: the step's success shows each of them, e.g. a generation
 * whose body is schema-checked proves both the generation and the field types): its value when it
 * holds; when not, its failure fails the first id (or the one its Finding names) and stops the test.
 */
export async function checkStep<T>(id: string | readonly string[], fn: () => Promise<T> | T): Promise<T> {
  const ids = typeof id === 'string' ? [id] : id;
  const first = ids[0];
  if (first === undefined) throw new Error('checkStep() without a requirement id');
  const s = scopeFor(first);
  for (const other of ids) scopeFor(other);
  try {
    const value = await fn();
    for (const held of ids) pass(s, held);
    return value;
  } catch (err) {
    if (blocksHere(s, err)) throw err;
    fail(s, first, err);
    throw new StepFailed(attributed(s, first, err), err);
  }
}

/** The requirement a failure counts against: the one its Finding names, if the test covers it, else `id`. */
export function attributed(s: Pick<CheckScope, 'ids'>, id: string, err: unknown): string {
  // A wrapper (a property's failure) keeps the Finding it wraps as its cause.
  const named = namedRequirement(err) ?? namedRequirement((err as { cause?: unknown } | null)?.cause);
  return named !== undefined && s.ids.includes(named) ? named : id;
}

function namedRequirement(err: unknown): string | undefined {
  const named = (err as { facts?: { requirement?: unknown } } | null)?.facts?.requirement;
  return typeof named === 'string' ? named : undefined;
}

/**
 * Runs `fn`; a Finding it throws names `id` as the requirement it is evidence against (see
 * Finding's `facts.requirement`), so the check or test around it attributes the failure there.
 */
export function against<T>(id: string, fn: () => T): T {
  const name = (err: unknown) => {
    if (err instanceof Finding && err.facts.requirement === undefined) err.facts.requirement = id;
    throw err;
  };
  let result: T;
  try {
    result = fn();
  } catch (err) {
    return name(err);
  }
  if (result instanceof Promise) return result.catch(name) as T;
  return result;
}

/** The current test's scope; outside covers(), or for an id the test does not cover, a harness bug. */
function scopeFor(id: string): CheckScope {
  const s = scope.getStore();
  if (!s) throw new Error(`check('${id}') outside a covers() test: checks belong to a test.`);
  if (!s.ids.includes(id))
    throw new Error(`check('${id}') in a test that does not cover it (covers ${s.ids.join(', ')}).`);
  return s;
}

function tally(s: CheckScope, id: string): CheckTally {
  s.tallies[id] ??= { passed: 0, failed: [] };
  return s.tallies[id];
}

function pass(s: CheckScope, id: string): boolean {
  tally(s, id).passed++;
  return true;
}

function fail(s: CheckScope, id: string, err: unknown): boolean {
  // A skip inside a check is still a skip of the whole test; back-pressure that outlasted its bound
  // stops the whole test too, which concludes nothing (covers()).
  if (isSkip(err)) throw err;
  if (blocksHere(s, err)) throw err;
  if (throttledBy(err) !== undefined) throw err;
  // Nothing to judge is no failure either: covers() makes it a skip.
  if (err instanceof NotObservable) throw err;
  // A step that already failed its own id (checkStep inside a check) is not counted twice.
  if (err instanceof StepFailed) {
    tally(s, id);
    return false;
  }
  const message = redactText(messageOf(err));
  tally(s, attributed(s, id, err)).failed.push(message);
  const bug = harnessBug(err);
  if (bug !== undefined) s.harnessErrors?.push({ message, bug: redactText(bug) });
  return false;
}

/**
 * A voice or take that never got done (src/harness/wait-ledger.ts: the wait that ran its bound, or a
 * later one not repeated) is no evidence about this check's own requirement: it stops the test,
 * which blocks what it left unjudged, unless the test covers the ready bound that it fails.
 */
function blocksHere(s: Pick<CheckScope, 'ids'>, err: unknown): boolean {
  const requirement = stuckWaitRequirement(err);
  return requirement !== undefined && !s.ids.includes(requirement);
}

/**
 * The throttled diagnostic (src/client/back-pressure.ts) behind `err`, also when a wrapper (a
 * property's failure, a step) keeps it as its cause: back-pressure is never a verdict.
 */
export function throttledBy(err: unknown): ClientDiagnostic | undefined {
  let current = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof ClientDiagnostic && current.kind === 'throttled') return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isSkip(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'VITEST_PENDING';
}

export function messageOf(err: unknown): string {
  if (err instanceof StepFailed) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

const setupFailures = new WeakSet<object>();

/** Marks an error as a shared scenario's (once()) failure: a test that merely awaited it is blocked by it. */
export function markSetupFailure(err: unknown): void {
  if (typeof err === 'object' && err !== null) setupFailures.add(err);
}

/** A failure that blocks the ids a test has not concluded: a shared scenario's, a step's, a stuck wait's. */
export function isSetupFailure(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    (setupFailures.has(err) || err instanceof StepFailed || stuckWaitRequirement(err) !== undefined)
  );
}

/** Why a test could not observe what it judges (thrown by notObservable): covers() skips the test, not judged. */
export class NotObservable extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_NOT_OBSERVABLE';
  override name = 'NotObservable';
}

/**
 * Stops the test because the server gave it nothing to judge (e.g. a take ready too fast for
 * "before ready" to be seen): covers() reports the test skipped with `reason`, so what only it covers
 * is not judged (named in the verdict, failing only the acceptance profile's gate), never failed.
 * Not a fault of the server, and not a pass either.
 */
export function notObservable(reason: string): never {
  throw new NotObservable(`not observable: ${reason}`);
}
