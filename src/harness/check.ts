/**
 * check(): inside a covers() test, attributes the assertions it wraps to one requirement id.
 *
 * A check is soft: its failure is recorded for its id and the test goes on, so the test's other
 * requirements are still judged; covers() fails the test at the end if any judged check failed.
 * A failure thrown outside every check (a setup step: a generation that failed, a take that never
 * got ready) leaves the requirements not concluded yet "blocked" by it (src/requirements/verdict.ts).
 *
 * `checkStep(id, fn)` is for a setup step that is itself the proof of a requirement (generation
 * answering 500 is VOICE-GENERATE-RETURNS-VOICE failing): its failure fails `id` and stops the test,
 * so what depends on the step is blocked by it, not failed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { redactText } from '../client/redact.ts';

import type { CheckTallies } from '../requirements/verdict.ts';

export type { CheckTallies };

type CheckTally = CheckTallies[string];

/** What covers() hands to check() through AsyncLocalStorage. */
export interface CheckScope {
  /** The ids the test covers: a check for another id is a harness bug. */
  ids: readonly string[];
  tallies: CheckTallies;
}

const scope = new AsyncLocalStorage<CheckScope>();

export function runWithChecks<T>(s: CheckScope, fn: () => T): T {
  return scope.run(s, fn);
}

/** Thrown by checkStep() after recording the failure: the rest of the test is blocked by it. */
export class StepFailed extends Error {
  constructor(
    readonly requirement: string,
    override readonly cause: unknown,
  ) {
    super(`${requirement}: ${messageOf(cause)}`);
    this.name = 'StepFailed';
  }
}

/** Soft: records whether `fn` held for `id`; resolves (never rejects) to whether it held. */
export function check(id: string, fn: () => Promise<unknown>): Promise<boolean>;
export function check(id: string, fn: () => unknown): boolean;
export function check(id: string, fn: () => unknown): boolean | Promise<boolean> {
  const tally = tallyFor(id);
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    return fail(tally, err);
  }
  if (result instanceof Promise)
    return result.then(
      () => pass(tally),
      (err: unknown) => fail(tally, err),
    );
  return pass(tally);
}

/** A setup step that proves `id`: its value when it holds; when not, its failure fails `id` and stops the test. */
export async function checkStep<T>(id: string, fn: () => Promise<T> | T): Promise<T> {
  const tally = tallyFor(id);
  try {
    const value = await fn();
    pass(tally);
    return value;
  } catch (err) {
    if (isSkip(err)) throw err;
    fail(tally, err);
    throw new StepFailed(id, err);
  }
}

/** Tallies of the current test; outside covers() a check is a harness bug. */
function tallyFor(id: string): CheckTally {
  const s = scope.getStore();
  if (!s) throw new Error(`check('${id}') outside a covers() test: checks belong to a test.`);
  if (!s.ids.includes(id))
    throw new Error(`check('${id}') in a test that does not cover it (covers ${s.ids.join(', ')}).`);
  s.tallies[id] ??= { passed: 0, failed: [] };
  return s.tallies[id];
}

function pass(tally: CheckTally): boolean {
  tally.passed++;
  return true;
}

function fail(tally: CheckTally, err: unknown): boolean {
  // A skip inside a check is still a skip of the whole test.
  if (isSkip(err)) throw err;
  tally.failed.push(redactText(messageOf(err)));
  return false;
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

export function isSetupFailure(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (setupFailures.has(err) || err instanceof StepFailed);
}
