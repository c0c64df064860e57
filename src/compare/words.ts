/** The words compare.md, compare.html and the command's output share: one wording for each fact. */
import {
  CHANGE_LABEL,
  type Change,
  type Comparison,
  GATING_LEVELS,
  type LevelCount,
  type Row,
  type RunHeader,
} from './diff.ts';

/** "new failure (passed → failed)"; a requirement one run lacks says only that. */
export function changeText(change: Change): string {
  const label = CHANGE_LABEL[change.kind];
  if (change.from === undefined || change.to === undefined) return label;
  return change.from === change.to ? label : `${label} (${change.from} → ${change.to})`;
}

/** "104/107 judged, 2 failed" (and "1 blocked" when some were). */
export function levelText(count: LevelCount): string {
  if (count.total === 0) return 'none in this run';
  const blocked = count.blocked > 0 ? `, ${count.blocked} blocked` : '';
  return `${count.judged}/${count.total} judged, ${count.failed} failed${blocked}`;
}

/** The one line that says how the comparison came out, for the page, the summary and the console. */
export function outcomeLine(c: Comparison): string {
  const levels = c.failOn.length > 0 ? c.failOn.join(', ') : 'no level (--fail-on none)';
  if (c.regressions.length > 0) {
    const ids = new Set(c.regressions.map((r) => r.id));
    return `REGRESSION: ${ids.size} requirement(s) worse than the baseline at ${levels}`;
  }
  return `No regression: no ${levels} requirement is worse than the baseline`;
}

/** "3 changed: 2 new failures, 1 observation changed" over every later run. */
export function changedCounts(c: Comparison): string {
  const counts = new Map<string, number>();
  for (const row of c.changed) {
    for (const change of row.changes) {
      const label = CHANGE_LABEL[change.kind];
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  }
  const parts = [...counts].map(([label, n]) => `${n} × ${label}`);
  return `${c.changed.length} of ${c.rows.length} requirement(s) changed${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** The facts of a run's header, in the order the pages show them: [label, value]. */
export function headerFacts(run: RunHeader): Array<[string, string]> {
  return [
    ['verdict', run.verdict],
    ...GATING_LEVELS.map((level): [string, string] => [level, levelText(run.levels[level])]),
    ['profile', `${run.profile}${run.selection ? ` (${run.selection})` : ''}`],
    ['server /version', run.serverVersion ?? 'no answer recorded'],
    ['server', `${run.baseUrl} (${run.target})`],
    ['date', run.startedAt],
    ['harness', `speakcheck ${run.harness}`],
  ];
}

/** The first line of a finding, cut for a table cell or a release-notes line. */
export function shortFinding(message: string | undefined, max = 200): string {
  const first = (message ?? '').split('\n')[0] ?? '';
  return first.length > max ? `${first.slice(0, max)}…` : first;
}

/** What a change shows beside it: the later run's finding; for an observation, the baseline's too. */
export function changeFinding(row: Row, change: Change, max = 200): string {
  // Only one of the two runs has it: nothing to compare, so no verdict beside it (the matrix has it).
  if (change.kind === 'only-in-run' || change.kind === 'only-in-baseline') return '';
  const now = shortFinding(row.cells[change.run]?.message, max);
  if (change.kind !== 'observation-changed') return now;
  return `now: ${now} · baseline: ${shortFinding(row.cells[0]?.message, max)}`;
}
