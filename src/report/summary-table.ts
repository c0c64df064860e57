/** The final table `speakcheck run` prints: one row per area, then the totals. */
import type { Profile } from '../config/types.ts';
import { levelGates } from '../verdict/gate.ts';
import { countLabels, isBlocked, isFailed, isHeld, isJudged, isNotJudged } from '../verdict/standing.ts';
import { notJudgedList, type RequirementVerdict, type VerdictSummary } from '../verdict/verdict.ts';
import { failedMark, findingLine } from '../verdict/words.ts';

export function summaryTable(
  requirements: readonly RequirementVerdict[],
  summary: VerdictSummary,
  profile: Profile = 'strict',
): string {
  // The not-concluded column only when the run was stopped (--max-time, Ctrl-C).
  const stopped = summary.notConcluded > 0;
  // The expected-failures column only with an expect file that matched something.
  const expected = (summary.expectedFailures ?? 0) > 0;
  // The columns of the rarer verdicts only when the run has one.
  const rare = (
    [
      ['non-strict', 'nonStrict'],
      ['not observed', 'notObserved'],
      ['n/a', 'notApplicable'],
      ['harness error', 'harnessErrors'],
    ] as const
  )
    .map(([name, key]) => [name, key, summary[key]] as const)
    .filter(([, , n]) => (n ?? 0) > 0);
  const header = [
    'area',
    'reqs',
    'passed',
    'failed',
    'blocked',
    ...(expected ? ['expected'] : []),
    'skipped',
    'info',
    ...(stopped ? ['not concluded'] : []),
    ...rare.map(([name]) => name),
    'uncovered',
    'judged',
  ];
  const rows: string[][] = [];
  const areas = [...new Set(requirements.map((r) => r.area))];
  for (const area of areas) {
    const list = requirements.filter((r) => r.area === area);
    const c = countLabels(list, profile);
    rows.push([
      area,
      String(list.length),
      String(c.passed),
      String(c.failed),
      String(c.blocked),
      ...(expected ? [String(c.expectedFailures)] : []),
      String(c.skipped),
      String(c.info),
      ...(stopped ? [String(c.notConcluded)] : []),
      ...rare.map(([, key]) => String(c[key])),
      String(list.filter((r) => !r.covered).length),
      judgedCell(list),
    ]);
  }
  rows.push([
    'total',
    String(summary.requirements),
    String(summary.passed),
    String(summary.failed),
    String(summary.blocked),
    ...(expected ? [String(summary.expectedFailures)] : []),
    String(summary.skipped),
    String(summary.info),
    ...(stopped ? [String(summary.notConcluded)] : []),
    ...rare.map(([, , count]) => String(count)),
    String(summary.uncovered),
    judgedCell(requirements),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.slice(0, -1).map(line), rule, line(rows.at(-1)!)].join('\n');
}

/**
 * The security area's line, apart from the contract's counts: how many isolation checks held, failed,
 * were blocked or not judged (with the first reason, e.g. no second identity), and whether they gate
 * in this profile. Undefined when the run judged none (another --only, --requirement).
 */
export function securityLine(
  requirements: readonly RequirementVerdict[],
  profile: Profile,
): string | undefined {
  const security = requirements.filter((r) => r.level === 'SECURITY');
  if (security.length === 0) return undefined;
  const n = (of: (r: RequirementVerdict) => boolean) =>
    security.filter((r) => of(r) && r.expected === undefined).length;
  const notJudged = security.filter(isNotJudged);
  const why = notJudged[0]?.notJudged?.reason;
  const gating = levelGates('SECURITY', profile)
    ? `gating (${profile} profile)`
    : `reported only (${profile} profile)`;
  // The expected ones too, so that the counts add up to the checks (issue 41).
  const expected = security.filter((r) => r.expected !== undefined).length;
  return `security (tenant isolation, OWASP API1:2023): ${security.length} checks: ${n(isHeld)} passed, ${n(isFailed)} failed${expected > 0 ? ` (and ${expected} expected)` : ''}, ${n(isBlocked)} blocked, ${notJudged.length} not judged${why ? ` (${why})` : ''}; ${gating}`;
}

/** The levels the judged column counts: every one that can gate (INFO judges nothing). */
const JUDGED_LEVELS: ReadonlySet<string> = new Set(['MUST', 'SHOULD', 'SECURITY']);

/**
 * "12/13": the MUSTs, SHOULDs and security checks of these requirements judged, out of all of them.
 * The security row counted no MUST or SHOULD and read "10 passed … 0/0" (issue 41): each row counts
 * what it holds, and the total is the sum of the rows.
 */
function judgedCell(list: readonly RequirementVerdict[]): string {
  const { judged, of } = judgedOf(list);
  return `${judged}/${of}`;
}

/** Of these requirements, how many that can gate there are and how many of them were judged. */
export function judgedOf(list: readonly RequirementVerdict[]): { judged: number; of: number } {
  const gated = list.filter((r) => JUDGED_LEVELS.has(r.level));
  return { judged: gated.filter(isJudged).length, of: gated.length };
}

/**
 * How a not-judged list names a requirement's status: "blocked", or "blocked, expected" when the
 * expect file lists it (issue 41: the lists said `blocked` where the table said `expected`).
 */
export function notJudgedStatus(r: RequirementVerdict): string {
  const status = r.notJudged?.status ?? r.status;
  return r.expected !== undefined ? `${status}, expected` : status;
}

/**
 * Every failed MUST, SHOULD and security check, one line each (id, level, the finding), before the
 * not-judged list (issue 51: the terminal counted the failed MUSTs but never named them). Marked
 * when the expect file expects it or the profile only reports its level. Empty when none failed.
 */
export function failedLines(requirements: readonly RequirementVerdict[], profile: Profile): string[] {
  const failed = requirements.filter((r) => r.level !== 'INFO' && isFailed(r));
  if (failed.length === 0) return [];
  const ordered = [...failed.filter((r) => r.level === 'MUST'), ...failed.filter((r) => r.level !== 'MUST')];
  const lines = [`failed (${ordered.length}):`];
  for (const r of ordered) {
    lines.push(`  ${r.id} (${r.level}${failedMark(r, profile)}): ${oneLine(findingLine(r))}`);
  }
  return lines;
}

/**
 * The MUSTs and SHOULDs the run did not judge, one line each: id, level, status, why, and what
 * would judge it. Empty when everything was judged.
 */
export function notJudgedLines(requirements: readonly RequirementVerdict[]): string[] {
  const open = notJudgedList(requirements);
  if (open.length === 0) return [];
  const lines = [`not judged (${open.length}):`];
  for (const r of open) {
    lines.push(`  ${r.id} (${r.level}, ${notJudgedStatus(r)}): ${oneLine(r.notJudged?.reason ?? r.message)}`);
    lines.push(`    what would judge it: ${oneLine(r.notJudged?.wouldJudgeIt ?? '')}`);
  }
  return lines;
}

function oneLine(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
