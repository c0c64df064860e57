/**
 * The standing of a verdict (issue 48): the ONE place that knows what "judged" means. Every reader
 * of a verdict asks this: the gate and the counts, the terminal table, the badge, `rerun`, the pages
 * and compare, through a predicate (`isFailed`, `isToActOn`; `isAgainst` for a conclusion,
 * `testFailed` for a test's state, `changeBetween` for two runs): nothing else compares an
 * outcome's name (test/lint/outcome-literals.test.ts). Adding a new way of "not judged" means a new `Conclusion` kind
 * (src/verdict/conclusion.ts), its group and label here, and its words (src/verdict/words.ts).
 *
 *   held        a check ran its assertions on an observation and they held;
 *   failed      the server broke it (also when the expect file expects it, or the profile only
 *               reports its level: then it does not gate);
 *   blocked     a step it depended on failed first: counts against conformance like a failure;
 *   not-judged  nothing was decided about the server (not observed, not applicable, not concluded,
 *               a harness bug, no test);
 *   observed    INFO: what the server does, noted, never judged.
 */
import { levelGates, PROFILE_RULES, type Profile } from '../config/types.ts';
import type { RequirementLevel } from '../requirements/types.ts';
import type { Conclusion, Conclusions } from './conclusion.ts';
import type { TestState, Verdict } from './model.ts';

export type Group = 'held' | 'failed' | 'blocked' | 'not-judged' | 'observed';

export interface Standing {
  group: Group;
  /** Whether it keeps the run from CONFORMS in the profile (failed, blocked or not judged at a gating level). */
  gates: boolean;
}

/**
 * The finer name of a verdict the reports show (a badge, a table column): never decided on.
 * `expected-failure`: a failure or block the expect file lists; `non-strict`: a failure at a level
 * the profile only reports.
 */
export type Label =
  | 'passed'
  | 'failed'
  | 'blocked'
  | 'skipped'
  | 'info'
  | 'not-concluded'
  | 'expected-failure'
  | 'non-strict'
  | 'not-applicable'
  | 'not-observed'
  | 'harness-error';

/** What standing needs of a verdict (a report's row is one too). */
export type Standable = Pick<Verdict, 'level' | 'decided' | 'expected' | 'covered'>;

export function standing(v: Standable, profile: Profile = 'strict'): Standing {
  const group = groupOf(v);
  return { group, gates: gatesIn(v, group, profile) };
}

function groupOf(v: Standable): Group {
  if (v.level === 'INFO') return labelOf(v) === 'info' ? 'observed' : 'not-judged';
  switch (v.decided?.kind) {
    case 'held':
      return 'held';
    case 'violated':
      return 'failed';
    case 'blocked':
      return 'blocked';
    default:
      return 'not-judged';
  }
}

function gatesIn(v: Standable, group: Group, profile: Profile): boolean {
  if (v.level === 'INFO') return false;
  if (group === 'failed' || group === 'blocked')
    return v.expected === undefined && levelGates(v.level, profile);
  return group === 'not-judged' && unjudgedGates(v.level, profile);
}

/** Whether a requirement of `level` left unjudged keeps CONFORMS away in `profile`. */
export function unjudgedGates(level: RequirementLevel, profile: Profile): boolean {
  // Security checks are not the contract's: unjudged, they keep CONFORMS away only where anything
  // unjudged fails the gate (acceptance); elsewhere the security line says they were not judged.
  return level === 'SECURITY' ? PROFILE_RULES[profile].notJudgedGates : levelGates(level, profile);
}

/** Judged: the run concluded something about the server (held, failed, or INFO observed). */
export function isJudged(v: Standable): boolean {
  const { group } = standing(v);
  return group === 'held' || group === 'failed' || group === 'observed';
}

/** The standing's group, one question each: callers never compare a group or a label themselves. */
export const isHeld = (v: Standable): boolean => standing(v).group === 'held';
export const isFailed = (v: Standable): boolean => standing(v).group === 'failed';
export const isBlocked = (v: Standable): boolean => standing(v).group === 'blocked';
export const isNotJudged = (v: Standable): boolean => standing(v).group === 'not-judged';
/** INFO, and something was seen: the observations are its verdict. */
export const isObserved = (v: Standable): boolean => standing(v).group === 'observed';

/** Nothing to look into: it held, or it is INFO and was observed. */
export function isFine(v: Standable): boolean {
  const { group } = standing(v);
  return group === 'held' || group === 'observed';
}

/** What a reader acts on: a MUST, SHOULD or security check failed (not expected), blocked or not judged. */
export function isToActOn(v: Standable): boolean {
  return v.level !== 'INFO' && v.expected === undefined && !isFine(v);
}

/** Not judged at a level that can gate (MUST, SHOULD, SECURITY): what the not-judged lists name. */
export function isOpen(v: Standable): boolean {
  const { group } = standing(v);
  return v.level !== 'INFO' && (group === 'blocked' || group === 'not-judged');
}

/** The run was kept from concluding it (stopped, a bound ran out): the gate's NOT CONCLUDED. */
export function isUnconcluded(v: Standable): boolean {
  return standing(v).group === 'not-judged' && v.decided?.kind === 'not-concluded';
}

/** speakcheck broke while judging it: the gate's harness error (exit 3). */
export function isHarnessBug(v: Standable): boolean {
  return v.decided?.kind === 'harness-bug';
}

/** What `rerun` runs again: every MUST, SHOULD and SECURITY requirement that did not pass or was cut short. */
export function isRerun(v: Standable): boolean {
  const { group } = standing(v);
  return (
    v.level !== 'INFO' && (group === 'failed' || group === 'blocked' || isUnconcluded(v) || isHarnessBug(v))
  );
}

/** Failed or blocked in a way that fails the run (not expected, at a gating level). */
export function isGatingFailure(v: Standable, profile: Profile = 'strict'): boolean {
  const s = standing(v, profile);
  return s.gates && (s.group === 'failed' || s.group === 'blocked');
}

/** The label the reports show. */
export function labelOf(v: Standable, profile: Profile = 'strict'): Label {
  const c = v.decided;
  if (v.level === 'INFO') {
    if (c === undefined) return v.covered ? 'info' : 'skipped';
    if (c.kind === 'not-concluded') return c.cause === 'throttled' ? 'info' : 'not-concluded';
    if (c.kind === 'not-observed') return 'skipped';
    return 'info';
  }
  if (v.expected && (c?.kind === 'violated' || c?.kind === 'blocked')) return 'expected-failure';
  if (c === undefined) return v.covered ? 'not-observed' : 'skipped';
  switch (c.kind) {
    case 'held':
      return 'passed';
    case 'violated':
      return levelGates(v.level, profile) ? 'failed' : 'non-strict';
    case 'blocked':
      return 'blocked';
    case 'harness-bug':
      return 'harness-error';
    default:
      return c.kind;
  }
}

/** Counts of a run's verdicts by label and level: the summary's figures. */
export function countLabels(verdicts: readonly Standable[], profile: Profile = 'strict') {
  const labels = verdicts.map((v) => ({ label: labelOf(v, profile), level: v.level }));
  const n = (label: Label, level?: RequirementLevel) =>
    labels.filter((l) => l.label === label && (level === undefined || l.level === level)).length;
  return {
    passed: n('passed'),
    failed: n('failed'),
    blocked: n('blocked'),
    skipped: n('skipped'),
    info: n('info'),
    notConcluded: n('not-concluded'),
    expectedFailures: n('expected-failure'),
    nonStrict: n('non-strict'),
    notApplicable: n('not-applicable'),
    notObserved: n('not-observed'),
    harnessErrors: n('harness-error'),
    mustFailed: n('failed', 'MUST'),
    shouldFailed: n('failed', 'SHOULD'),
    mustBlocked: n('blocked', 'MUST'),
    shouldBlocked: n('blocked', 'SHOULD'),
    securityFailed: n('failed', 'SECURITY'),
    securityBlocked: n('blocked', 'SECURITY'),
  };
}

/** A conclusion that found the server wanting: it broke the requirement, or a step before it failed. */
export function isAgainst(c: Conclusion): c is Extract<Conclusion, { kind: 'violated' | 'blocked' }> {
  return c.kind === 'violated' || c.kind === 'blocked';
}

export function isViolation(c: Conclusion): c is Extract<Conclusion, { kind: 'violated' }> {
  return c.kind === 'violated';
}

export function isBlock(c: Conclusion): c is Extract<Conclusion, { kind: 'blocked' }> {
  return c.kind === 'blocked';
}

export function isNotConcluded(c: Conclusion): c is Extract<Conclusion, { kind: 'not-concluded' }> {
  return c.kind === 'not-concluded';
}

/** Not concluded because the run itself was stopped (--max-time, a signal): its remedy is the run's. */
export function isStoppedByRun(c: Conclusion): c is Extract<Conclusion, { kind: 'not-concluded' }> {
  return isNotConcluded(c) && c.cause === 'stopped';
}

export function isNotObserved(c: Conclusion): c is Extract<Conclusion, { kind: 'not-observed' }> {
  return c.kind === 'not-observed';
}

/** The test said why it could not judge (the state did not occur, the feature is absent) and what would. */
export function isUnmet(
  c: Conclusion,
): c is Extract<Conclusion, { kind: 'not-observed' | 'not-applicable' }> {
  return c.kind === 'not-observed' || c.kind === 'not-applicable';
}

/** Counts of held and violated conclusions: what the Allure lines and the report's test rows show. */
export function tally(list: readonly Conclusion[] | undefined): { held: number; violated: string[] } {
  const all = list ?? [];
  return {
    held: all.filter((c) => c.kind === 'held').length,
    violated: all.filter(isViolation).map((c) => c.message),
  };
}

/** A test that concluded nothing for or against anything it covers, and was kept from finishing. */
export function unfinished(conclusions: Conclusions): boolean {
  const all = Object.values(conclusions).flat();
  return all.some(isNotConcluded) && !all.some(isViolation);
}

/**
 * A test's state as vitest reports it while the run goes on (`pending`: it has not ended, or never
 * ran) or as the verdict keeps it (src/verdict/model.ts TestState).
 */
export type RunnerState = TestState | 'pending';

/** A test, or vitest's result of one: anything with a state (guards narrow a result to its kind). */
interface Stated {
  state: RunnerState;
}

export function testPassed<T extends Stated>(t: T): t is T & { state: 'passed' } {
  return t.state === 'passed';
}
export function testFailed<T extends Stated>(t: T): t is T & { state: 'failed' } {
  return t.state === 'failed';
}
export function testSkipped<T extends Stated>(t: T): t is T & { state: 'skipped' } {
  return t.state === 'skipped';
}
/** It ran to its end (passed or failed): it saw the server. */
export function testRan(t: Stated): boolean {
  return t.state === 'passed' || t.state === 'failed';
}
export function testUnconcluded(t: Stated): boolean {
  return t.state === 'not-concluded';
}

/**
 * The state a test ended in, as the verdict keeps it: one that never ran is skipped, or not concluded
 * when the run was stopped; one that failed but concluded nothing for or against (back-pressure,
 * its own bound, the run stopped) is not concluded, never failed.
 */
export function testStateOf(
  state: 'passed' | 'failed' | 'skipped' | 'pending',
  stopped: boolean,
  conclusions?: Conclusions,
): TestState {
  if (state === 'pending') return stopped ? 'not-concluded' : 'skipped';
  if (state === 'failed' && conclusions !== undefined && unfinished(conclusions)) return 'not-concluded';
  return state;
}

/** A run's tests counted by state: the summary's test figures. */
export function countTestStates(tests: readonly { state: TestState }[]) {
  const n = (state: TestState) => tests.filter((t) => t.state === state).length;
  return {
    passed: n('passed'),
    failed: n('failed'),
    skipped: n('skipped'),
    notConcluded: n('not-concluded'),
  };
}

/** How a requirement's standing moved from one run to the next (compare). */
export type GroupChange = 'new-failure' | 'fixed' | 'no-longer-judged' | 'newly-judged' | 'verdict-changed';
export type Direction = 'worse' | 'better' | 'neither';

/** The change of a requirement's standing between two runs that label it differently. */
export function changeBetween(from: Standable, to: Standable): { kind: GroupChange; direction: Direction } {
  const before = standing(from).group;
  const after = standing(to).group;
  const held = (g: Group) => g === 'held' || g === 'observed';
  const unjudged = (g: Group) => g === 'blocked' || g === 'not-judged';
  if (after === 'failed' && before !== 'failed') return { kind: 'new-failure', direction: 'worse' };
  if (before === 'failed' && held(after)) return { kind: 'fixed', direction: 'better' };
  // Blocked counts against conformance like a failure (src/verdict/gate.ts); the other ways of not
  // being judged are the run's circumstances (a state it did not catch, its options, its budget).
  if (unjudged(after) && held(before))
    return { kind: 'no-longer-judged', direction: after === 'blocked' ? 'worse' : 'neither' };
  if (unjudged(after) && before === 'failed') return { kind: 'no-longer-judged', direction: 'neither' };
  if (held(after) && unjudged(before)) return { kind: 'newly-judged', direction: 'better' };
  // The same group (failed → non-strict), blocked ↔ not judged, passed ↔ INFO (another profile's level).
  return { kind: 'verdict-changed', direction: 'neither' };
}
