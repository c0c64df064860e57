/**
 * Conformance runs side by side: the first the baseline, each later run compared with it
 * requirement by requirement. Pure: the loaders read the runs, the renderers print this.
 *
 * A requirement's verdict is grouped as the report groups it (src/verdict/standing.ts changeBetween):
 * failed (failed, non-strict, expected failure), blocked, not judged (skipped, not applicable, not
 * observed, not concluded, harness error), passed, and INFO's observation. Against the baseline a
 * later run's verdict is
 *   a new failure     failed now, not before                                   worse
 *   fixed             passed now, failed before                                better
 *   no longer judged  blocked now, passed (or observed) before              worse
 *                     (blocked counts against conformance like a failure, src/verdict/gate.ts);
 *                     not judged now (not observed, skipped, not applicable, not concluded, harness
 *                     error): neither, the run's circumstances (a state a run did not catch flips
 *                     between runs of the same server); failed before: neither, the failure is not seen
 *   newly judged      passed (or observed) now, blocked or not judged before   better
 *   verdict changed   another verdict of the same group (failed → non-strict in a lenient run,
 *                     skipped → not applicable, blocked ↔ not judged)          neither
 *   observation changed  an INFO requirement's observations differ in their keys or values (the run's
 *                     particulars are not compared, src/compare/observations.ts): a page base, a
 *                     refusal status, a wire shape; not compared when a report predates keyed
 *                     observations (version < 3: the comparison says so)                     neither
 * and a requirement one of the two runs does not have (another harness version, profile or
 * selection) is only in the baseline or only in the later run: shown as such, never as passed or failed.
 * A regression is a worse change of a requirement whose level is one of --fail-on.
 */

import type { Profile } from '../config/types.ts';
import type { Observation } from '../evidence/observation.ts';
import type { ReportedRequirement } from '../report/model.ts';
import { REPORT_VERSION } from '../report/model.ts';
import { verdictWords } from '../report/verdict-line.ts';
import type { RequirementLevel } from '../requirements/types.ts';
import type { Conclusion } from '../verdict/conclusion.ts';
import type { AppliedExpectation } from '../verdict/model.ts';
import {
  changeBetween,
  type Direction,
  isBlocked,
  isFailed,
  isJudged,
  type Standable,
  standing,
} from '../verdict/standing.ts';
import type { VerdictStatus } from '../verdict/verdict.ts';
import { isPlainConforms, notJudgedReasons } from '../verdict/words.ts';
import { comparableObservations, OBSERVATIONS_NOT_COMPARED, observationsCompared } from './observations.ts';

export type ChangeKind =
  | 'new-failure'
  | 'fixed'
  | 'no-longer-judged'
  | 'newly-judged'
  | 'verdict-changed'
  | 'observation-changed'
  | 'only-in-baseline'
  | 'only-in-run';

export type { Direction };

/** The levels --fail-on may name: those a run's verdict gates on. */
export const GATING_LEVELS = ['MUST', 'SHOULD', 'SECURITY'] as const satisfies readonly RequirementLevel[];
export type GatingLevel = (typeof GATING_LEVELS)[number];

export const CHANGE_LABEL: Record<ChangeKind, string> = {
  'new-failure': 'new failure',
  fixed: 'fixed',
  'no-longer-judged': 'no longer judged',
  'newly-judged': 'newly judged',
  'verdict-changed': 'verdict changed',
  'observation-changed': 'observation changed',
  'only-in-baseline': 'not in this run (only in the baseline)',
  'only-in-run': 'not in the baseline (only in this run)',
};

/** One requirement in one run; no status: the run does not have it. */
export interface Cell {
  /** The label the run's report shows (src/verdict/standing.ts labelOf). */
  status?: VerdictStatus;
  /** The verdict the run concluded: what compare groups by (its standing). */
  decided?: Conclusion;
  expected?: AppliedExpectation;
  covered?: boolean;
  /** The finding: the verdict's message as the run's report gives it. */
  message?: string;
  observations?: Observation[];
}

/** How one later run differs from the baseline on one requirement. */
export interface Change {
  /** The later run's position among the runs (1 = the first after the baseline). */
  run: number;
  kind: ChangeKind;
  direction: Direction;
  from?: VerdictStatus;
  to?: VerdictStatus;
  /** Worse at a level --fail-on names: the comparison fails (exit 1). */
  regression: boolean;
}

/** A requirement across the runs: one cell per run, the changes of the later runs. */
export interface Row {
  id: string;
  area: string;
  level: RequirementLevel;
  section: string;
  source: ReportedRequirement['source'];
  /** The requirement in words, and what it rests on (the contract's sentence, named standards). */
  text: string;
  quote?: string;
  standards?: ReportedRequirement['standards'];
  cells: Cell[];
  changes: Change[];
}

export interface LevelCount {
  total: number;
  judged: number;
  failed: number;
  blocked: number;
}

/** Who ran what, and how it came out: the header of each run, from its conformance.json. */
export interface RunHeader {
  label: string;
  file: string;
  verdict: string;
  verdictReasons: string[];
  exitCode: number;
  profile: Profile;
  /** The areas or requirements the run was limited to ("" when all ran). */
  selection: string;
  serverVersion?: string;
  baseUrl: string;
  target: string;
  startedAt: string;
  harness: string;
  requirements: number;
  levels: Record<GatingLevel, LevelCount>;
}

export interface RunInput {
  label: string;
  file: string;
  report: {
    /** The version the file was written as, when an older one was upgraded (src/report/report-version.ts). */
    writtenAs?: number;
    run: {
      verdict?: string;
      verdictReasons?: string[];
      exitCode: number;
      profile: Profile;
      only?: string[];
      requirements?: string[];
      serverVersion?: string;
      baseUrl: string;
      target: string;
      startedAt: string;
      harness: string;
    };
    requirements: ReportedRequirement[];
  };
}

/**
 * Whether the runs are of the same server over time (one host: a release against the last) or of
 * different servers side by side (vendors): the words differ, "regression" is a release word.
 */
export type Servers = 'same' | 'different';

export interface Comparison {
  runs: RunHeader[];
  servers: Servers;
  /** Every requirement of any run: the baseline's order, then those only later runs have. */
  rows: Row[];
  failOn: GatingLevel[];
  /** Rows with a change in any run, worst first. */
  changed: Row[];
  regressions: Array<{ id: string; level: RequirementLevel; change: Change }>;
  /** What the comparison could not compare, said once (an older report's observations). */
  notes: string[];
}

/** The change of `to` against `from` (both present), or undefined when they are the same. */
export function classify(
  from: Cell,
  to: Cell,
  level: RequirementLevel,
  keyed = true,
): Pick<Change, 'kind' | 'direction' | 'from' | 'to'> | undefined {
  const ends = { from: from.status, to: to.status };
  if (from.status === undefined && to.status === undefined) return undefined;
  if (to.status === undefined) return { kind: 'only-in-baseline', direction: 'neither', ...ends };
  if (from.status === undefined) return { kind: 'only-in-run', direction: 'neither', ...ends };
  if (from.status === to.status) {
    if (!keyed || !observationsCompared(level)) return undefined;
    const same =
      comparableObservations(from.observations ?? []).join('\n') ===
      comparableObservations(to.observations ?? []).join('\n');
    return same ? undefined : { kind: 'observation-changed', direction: 'neither', ...ends };
  }
  // What the move of its standing means is the standing's to say (src/verdict/standing.ts).
  return { ...changeBetween(standable(from, level), standable(to, level)), ...ends };
}

/** What the standing of a cell needs. */
function standable(cell: Cell, level: RequirementLevel): Standable {
  return {
    level,
    covered: cell.covered ?? true,
    ...(cell.decided ? { decided: cell.decided } : {}),
    ...(cell.expected ? { expected: cell.expected } : {}),
  };
}

function cellOf(r: ReportedRequirement | undefined): Cell {
  if (!r) return {};
  return {
    status: r.status,
    ...(r.decided ? { decided: r.decided } : {}),
    ...(r.expected ? { expected: r.expected } : {}),
    covered: r.covered,
    message: r.message,
    observations: r.observations ?? [],
  };
}

/**
 * A level's counts as the run's own report says them (summary-table.ts judgedOf): judged is every
 * requirement the run concluded on (an expected failure too, which was judged and failed), failed
 * every one that failed, whether the expect file expected it or not.
 */
function countLevel(requirements: readonly ReportedRequirement[], level: GatingLevel): LevelCount {
  const of = requirements.filter((r) => r.level === level);
  const judged = of.filter(isJudged);
  return {
    total: of.length,
    judged: judged.length,
    failed: of.filter(isFailed).length,
    blocked: of.filter(isBlocked).length,
  };
}

export function runHeader(input: RunInput): RunHeader {
  const { run, requirements } = input.report;
  const selection = [
    ...(run.only?.length ? [`areas: ${run.only.join(', ')}`] : []),
    ...(run.requirements?.length ? [`requirements: ${run.requirements.join(', ')}`] : []),
  ].join('; ');
  return {
    label: input.label,
    file: input.file,
    verdict: verdictWords(run),
    // A verdict with no reasons of its own ("… N MUST NOT JUDGED") is explained by what was not judged.
    verdictReasons:
      (run.verdictReasons ?? []).length > 0 || isPlainConforms(verdictWords(run))
        ? (run.verdictReasons ?? [])
        : notJudgedReasons(requirements, run.profile),
    exitCode: run.exitCode,
    profile: run.profile,
    selection,
    ...(run.serverVersion === undefined ? {} : { serverVersion: run.serverVersion }),
    baseUrl: run.baseUrl,
    target: run.target,
    startedAt: run.startedAt,
    harness: run.harness,
    requirements: requirements.length,
    levels: {
      MUST: countLevel(requirements, 'MUST'),
      SHOULD: countLevel(requirements, 'SHOULD'),
      SECURITY: countLevel(requirements, 'SECURITY'),
    },
  };
}

const DIRECTION_ORDER: Direction[] = ['worse', 'neither', 'better'];
const KIND_ORDER: ChangeKind[] = [
  'new-failure',
  'no-longer-judged',
  'verdict-changed',
  'observation-changed',
  'only-in-baseline',
  'only-in-run',
  'newly-judged',
  'fixed',
];
const LEVEL_ORDER: RequirementLevel[] = ['MUST', 'SECURITY', 'SHOULD', 'INFO'];

/** The worst change of a row: a regression first, then worse, neither, better; by kind within. */
function severity(row: Row): number[] {
  const keys = row.changes.map((c) => [
    c.regression ? 0 : 1,
    DIRECTION_ORDER.indexOf(c.direction),
    KIND_ORDER.indexOf(c.kind),
  ]);
  keys.sort(compareKeys);
  return [...(keys[0] ?? [9, 9, 9]), LEVEL_ORDER.indexOf(row.level)];
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Worst first: regressions, then worse, neither, better changes; MUST before SECURITY, SHOULD, INFO. */
export function worstFirst(rows: readonly Row[]): Row[] {
  return rows
    .map((row, index) => ({ row, key: [...severity(row), index] }))
    .sort((a, b) => compareKeys(a.key, b.key))
    .map(({ row }) => row);
}

export function compareRuns(
  inputs: readonly RunInput[],
  failOn: readonly GatingLevel[] = GATING_LEVELS,
): Comparison {
  const byId = inputs.map((input) => new Map(input.report.requirements.map((r) => [r.id, r])));
  const ids = [...new Set(inputs.flatMap((input) => input.report.requirements.map((r) => r.id)))];
  const gates = new Set<RequirementLevel>(failOn);
  // A report from before keyed observations holds sentences only: observations are not compared.
  const keyed = inputs.every((input) => (input.report.writtenAs ?? REPORT_VERSION) >= KEYED_SINCE);
  const rows: Row[] = ids.map((id) => {
    const present = byId.map((m) => m.get(id));
    // The requirement as the latest run that has it states it (a newer catalogue words it best).
    const requirement = [...present].reverse().find((r) => r !== undefined)!;
    const cells = present.map(cellOf);
    const changes: Change[] = [];
    for (let i = 1; i < cells.length; i++) {
      const level = present[i]?.level ?? requirement.level;
      const change = classify(cells[0]!, cells[i]!, level, keyed);
      if (!change) continue;
      // A regression by the profile's rules (the standing): worse, at a --fail-on level, and gating in
      // the later run's profile (an expected failure, a lenient run's SHOULD do not).
      const gating = standing(standable(cells[i]!, level), inputs[i]!.report.run.profile).gates;
      changes.push({
        run: i,
        ...change,
        regression: change.direction === 'worse' && gates.has(level) && gating,
      });
    }
    return {
      id,
      area: requirement.area,
      level: requirement.level,
      section: requirement.section,
      source: requirement.source,
      text: requirement.text,
      ...(requirement.quote === undefined ? {} : { quote: requirement.quote }),
      ...(requirement.standards === undefined ? {} : { standards: requirement.standards }),
      cells,
      changes,
    };
  });
  const changed = worstFirst(rows.filter((r) => r.changes.length > 0));
  const regressions = changed.flatMap((row) =>
    row.changes.filter((c) => c.regression).map((change) => ({ id: row.id, level: row.level, change })),
  );
  return {
    runs: inputs.map(runHeader),
    servers: sameServer(inputs) ? 'same' : 'different',
    rows,
    failOn: [...failOn],
    changed,
    regressions,
    notes: keyed ? [] : [OBSERVATIONS_NOT_COMPARED],
  };
}

/** The report version whose observations are keyed data (src/evidence/observation.ts). */
const KEYED_SINCE = 3;

/** One server over time: every run of the same kind of target on the same host as the baseline. */
function sameServer(inputs: readonly RunInput[]): boolean {
  const host = (url: string) => {
    try {
      return new URL(url).hostname;
    } catch {
      return url;
    }
  };
  const [first, ...rest] = inputs.map((i) => i.report.run);
  return rest.every((r) => r.target === first!.target && host(r.baseUrl) === host(first!.baseUrl));
}

/** The rows whose every run has the same verdict and observations: folded in the matrix. */
export function isSteady(row: Row): boolean {
  return row.changes.length === 0;
}
