/**
 * The standing of a verdict (issue 48): the ONE place that knows what "judged" means. Every reader
 * of a verdict asks this: the gate and the counts, the terminal table, the badge, `rerun`, the pages
 * and compare. Adding a new way of "not judged" means a new `Conclusion` kind
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
import type { Verdict } from './model.ts';

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
