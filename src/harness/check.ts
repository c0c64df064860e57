/**
 * check(): inside a covers() test, what one assertion concluded about one requirement id, recorded
 * as data (src/verdict/conclusion.ts): `held` when the check's assertions ran and held, `violated`
 * (or `harness-bug`) when it threw. A check is soft: the test goes on, so its other requirements are
 * still judged; covers() fails the test at the end if any judged check was violated.
 *
 * A pass is an observation (issue 40): when a check (or the test around it) could not bring about the
 * state its requirement speaks of, it says so with `notObserved(id, reason, wouldJudge)` — the check
 * then concludes nothing for that id, and the test goes on. A requirement with no `held` conclusion
 * is never passed (src/verdict/verdict.ts).
 *
 * `checkStep(id, fn)` is for a setup step that is itself the proof of a requirement (generation
 * answering 500 is VOICE-GENERATE-RETURNS-VOICE failing): its failure fails `id` and stops the test,
 * so what depends on the step is blocked by it, not failed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Finding } from '../checks/finding.ts';
import { SpeakcheckError } from '../errors.ts';
import { latestEvidenceId } from '../evidence/evidence.ts';
import type { RequirementId } from '../requirements/index.ts';
import type { Conclusion, Conclusions, NotConcludedCause } from '../verdict/conclusion.ts';
import { isNotObserved } from '../verdict/standing.ts';
import { classify, messageOf } from './disposition.ts';

/** One requirement id, or several a single assertion observes together: a misspelled id is a type error. */
export type RequirementIds = RequirementId | readonly RequirementId[];

export { markSetupFailure, messageOf, notObservedBy, throttledBy } from './disposition.ts';

/** What covers() hands to check() through AsyncLocalStorage. */
export interface CheckScope {
  /** The ids the test covers: a check for another id is a harness bug. */
  ids: readonly string[];
  conclusions: Conclusions;
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
 * Soft: records what `fn` concluded for `id`; resolves (never rejects) to whether it held. A Finding
 * that names another requirement the test covers (`facts.requirement`) is recorded against that one.
 * Several ids: one assertion that observes each of them (a request that ended cleanly shows both that
 * it ended and that the connection stayed open); held for all, a failure against the one its Finding
 * names (else the first).
 */
export function check(id: RequirementIds, fn: () => Promise<unknown>): Promise<boolean>;
export function check(id: RequirementIds, fn: () => unknown): boolean;
export function check(id: RequirementIds, fn: () => unknown): boolean | Promise<boolean> {
  const ids = typeof id === 'string' ? [id] : id;
  const first = ids[0];
  if (first === undefined) throw new Error('check() without a requirement id');
  const s = scopeFor(first);
  for (const other of ids) scopeFor(other);
  const before = ids.map((each) => notObservedCount(s, each));
  let result: unknown;
  try {
    result = fn();
  } catch (err) {
    return failed(s, first, err);
  }
  if (result instanceof Promise)
    return result.then(
      () => held(s, ids, before),
      (err: unknown) => failed(s, first, err),
    );
  return held(s, ids, before);
}

/**
 * A setup step that proves `id` (or several: the step's success shows each of them, e.g. a generation
 * whose body is schema-checked proves both the generation and the field types): its value when it
 * holds; when not, its failure fails the first id (or the one its Finding names) and stops the test.
 */
export async function checkStep<T>(id: RequirementIds, fn: () => Promise<T> | T): Promise<T> {
  const ids = typeof id === 'string' ? [id] : id;
  const first = ids[0];
  if (first === undefined) throw new Error('checkStep() without a requirement id');
  const s = scopeFor(first);
  for (const other of ids) scopeFor(other);
  try {
    const value = await fn();
    for (const each of ids) record(s, each, { kind: 'held' });
    return value;
  } catch (err) {
    const d = classify(err);
    // A stuck wait blocks here unless the step proves the ready bound it is evidence against;
    // back-pressure, a skip and a test's time bound conclude nothing: covers() handles them.
    if (concludesNothingHere(d)) throw err;
    if (d.kind === 'cannot-observe') throw err;
    if (d.kind === 'run-fact' && !s.ids.includes(d.requirement)) throw err;
    if (d.kind === 'step-failed') throw err;
    const target = attributed(s, first, err);
    record(s, target, conclusionOf(d, err));
    throw new StepFailed(target, err);
  }
}

/**
 * The state `id` speaks of did not occur (a take ready before "before ready" could be seen, an
 * expiry the run does not wait out): `id` is not judged by this test, with the reason and what would
 * judge it. The test goes on. Inside a check of `id`, that check then concludes nothing.
 */
export function notObserved(id: RequirementIds, reason: string, wouldJudge: string): void {
  for (const each of typeof id === 'string' ? [id] : id)
    record(scopeFor(each), each, { kind: 'not-observed', reason, wouldJudge });
}

/**
 * For a helper that cannot go on (a run without a second identity, a server that sent a take as one
 * part): every requirement the test has not concluded yet is not observed, with the reason and what
 * would judge it, and the test ends there. What the test concluded before stands.
 */
export function cannotObserve(reason: string, wouldJudge: string): never {
  throw new CannotObserve(reason, wouldJudge);
}

export class CannotObserve extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_NOT_OBSERVED';
  constructor(
    readonly reason: string,
    readonly wouldJudge: string,
  ) {
    super(`not observed: ${reason}`);
    this.name = 'CannotObserve';
  }
}

/**
 * The server does not offer what `id` needs (webhooks it cannot deliver): not judged, with the
 * reason and what would judge it. The test goes on.
 */
export function notApplicable(id: RequirementIds, reason: string, wouldJudge: string): void {
  for (const each of typeof id === 'string' ? [id] : id)
    record(scopeFor(each), each, { kind: 'not-applicable', reason, wouldJudge });
}

/**
 * Nothing can be concluded about `id` because the other side of a comparison is missing through no
 * fault the check can name (a GET that was throttled or gave no body: `throttled`), or the test's
 * own time limit cut what it judges off (`timeout`): neither held nor violated.
 */
export function notConcluded(
  id: RequirementIds,
  reason: string,
  wouldJudge: string,
  cause: Extract<NotConcludedCause, 'throttled' | 'timeout'> = 'throttled',
): void {
  for (const each of typeof id === 'string' ? [id] : id)
    record(scopeFor(each), each, { kind: 'not-concluded', cause, reason, wouldJudge });
}

/** The ids the current test covers: for a notObserved() or notApplicable() that speaks for the whole test. */
export function coveredIds(): readonly RequirementId[] {
  const s = scope.getStore();
  if (!s) throw new Error('coveredIds() outside a covers() test.');
  // covers() sets the scope's ids from its RequirementId[].
  return s.ids as readonly RequirementId[];
}

/**
 * What stops the whole test without a conclusion of a check's own: vitest's skip, back-pressure past
 * its bound, the test's own time bound, the whole server's silence (covers() concludes what is left).
 */
function concludesNothingHere(d: ReturnType<typeof classify>): boolean {
  return d.kind === 'skip' || d.kind === 'throttled' || d.kind === 'test-bound' || d.kind === 'outage';
}

/** The requirement a failure counts against: the one its Finding names, if the test covers it, else `id`. */
export function attributed(s: Pick<CheckScope, 'ids'>, id: string, err: unknown): string {
  const d = classify(err);
  const named = 'requirement' in d ? d.requirement : undefined;
  return named !== undefined && s.ids.includes(named) ? named : id;
}

/**
 * Runs `fn`; a Finding it throws names `id` as the requirement it is evidence against (see
 * Finding's `facts.requirement`), so the check or test around it attributes the failure there.
 */
export function against<T>(id: RequirementId, fn: () => T): T {
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

/** The conclusion a failure is, for the requirement it counts against. */
export function conclusionOf(d: ReturnType<typeof classify>, err?: unknown): Conclusion {
  if (d.kind === 'harness-bug') return { kind: 'harness-bug', message: d.message, bug: d.bug };
  if (d.kind === 'cannot-observe')
    return { kind: 'not-observed', reason: d.reason, wouldJudge: d.wouldJudge };
  if (d.kind === 'skip') return { kind: 'violated', message: 'skipped' };
  return violation(d.message, err);
}

/**
 * A violation and the exchange it rests on: the one its Finding names (`facts.exchange`), else the
 * test's latest exchange when it failed (a check fails on what it was just answered).
 */
export function violation(message: string, err: unknown): Conclusion {
  return { kind: 'violated', message, ...restingOn(err) };
}

/** The exchanges a failure rests on: the one its Finding names, else the test's latest one. */
export function restingOn(err: unknown): { exchanges?: number[] } {
  const named = err instanceof Finding ? err.facts.exchange : undefined;
  const id = named ?? latestEvidenceId();
  return id === undefined ? {} : { exchanges: [id] };
}

/** The current test's scope; outside covers(), or for an id the test does not cover, a harness bug. */
function scopeFor(id: string): CheckScope {
  const s = scope.getStore();
  if (!s) throw new Error(`check('${id}') outside a covers() test: checks belong to a test.`);
  if (!s.ids.includes(id))
    throw new Error(`check('${id}') in a test that does not cover it (covers ${s.ids.join(', ')}).`);
  return s;
}

function record(s: CheckScope, id: string, conclusion: Conclusion): void {
  s.conclusions[id] ??= [];
  s.conclusions[id].push(conclusion);
}

function notObservedCount(s: CheckScope, id: string): number {
  return (s.conclusions[id] ?? []).filter(isNotObserved).length;
}

/** The check ran without throwing: held for each id, unless it said it could not observe that one's state. */
function held(s: CheckScope, ids: readonly string[], notObservedBefore: readonly number[]): boolean {
  let all = true;
  ids.forEach((id, i) => {
    if (notObservedCount(s, id) > (notObservedBefore[i] ?? 0)) all = false;
    else record(s, id, { kind: 'held' });
  });
  return all;
}

function failed(s: CheckScope, id: string, err: unknown): boolean {
  const d = classify(err);
  // A skip, back-pressure past its bound, the test's own time bound or the server's whole silence
  // stop the whole test, which concludes nothing for what is left (covers()).
  if (concludesNothingHere(d)) throw err;
  // Not observed: this check concludes nothing, nor does the rest of the test (covers()).
  if (d.kind === 'cannot-observe') throw err;
  // A voice or take that never got done is no evidence about this check's own requirement: it stops
  // the test, which blocks what it left open, unless the test covers the ready bound it fails.
  if (d.kind === 'run-fact' && !s.ids.includes(d.requirement)) throw err;
  // A step that already failed its own id (checkStep inside a check) is not counted twice.
  if (d.kind === 'step-failed') return false;
  record(s, attributed(s, id, err), conclusionOf(d, err));
  return false;
}
