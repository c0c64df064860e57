/** The words compare.md, compare.html and the command's output share: one wording for each fact. */
import { comparedForm, type Observation } from '../evidence/observation.ts';
import {
  CHANGE_LABEL,
  type Change,
  type ChangeKind,
  type Comparison,
  GATING_LEVELS,
  type LevelCount,
  type Row,
  type RunHeader,
  type Servers,
} from './diff.ts';
import { comparableObservations } from './observations.ts';

/**
 * Different servers side by side (vendors) are not one server's releases: no "new failure",
 * "fixed" or "regression" between them, but where a server does worse or better than the baseline.
 */
const VENDOR_LABEL: Record<ChangeKind, string> = {
  'new-failure': 'fails here, not in the baseline',
  fixed: 'holds here, fails in the baseline',
  'no-longer-judged': 'not judged here, judged in the baseline',
  'newly-judged': 'judged here, not in the baseline',
  'verdict-changed': 'another verdict than the baseline',
  'observation-changed': 'observed otherwise than the baseline',
  'only-in-baseline': CHANGE_LABEL['only-in-baseline'],
  'only-in-run': CHANGE_LABEL['only-in-run'],
};

/** The name of a change: release words for one server over time, vendor words for different servers. */
export function changeLabel(kind: ChangeKind, servers: Servers): string {
  return servers === 'same' ? CHANGE_LABEL[kind] : VENDOR_LABEL[kind];
}

/** What a worse change at a --fail-on level is called: a regression of a release; of a vendor, worse. */
export function regressionWord(servers: Servers): string {
  return servers === 'same' ? 'regression' : 'worse than the baseline';
}

/** "new failure (passed → failed)"; a requirement one run lacks says only that. */
export function changeText(change: Change, servers: Servers = 'same'): string {
  const label = changeLabel(change.kind, servers);
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
  const ids = new Set(c.regressions.map((r) => r.id));
  if (c.servers === 'different')
    return ids.size > 0
      ? `WORSE THAN THE BASELINE: ${ids.size} requirement(s) at ${levels} fail or are blocked on a later server and not on the baseline's`
      : `None worse than the baseline: no ${levels} requirement fails or is blocked on a later server and not on the baseline's`;
  if (ids.size > 0) return `REGRESSION: ${ids.size} requirement(s) worse than the baseline at ${levels}`;
  return `No regression: no ${levels} requirement is worse than the baseline`;
}

/** "3 changed: 2 new failures, 1 observation changed" over every later run. */
export function changedCounts(c: Comparison): string {
  const counts = new Map<string, number>();
  for (const row of c.changed) {
    for (const change of row.changes) {
      const label = changeLabel(change.kind, c.servers);
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
  }
  const parts = [...counts].map(([label, n]) => `${n} × ${label}`);
  const notes = c.notes.map((note) => `; ${note}`).join('');
  return `${c.changed.length} of ${c.rows.length} requirement(s) changed${parts.length ? `: ${parts.join(', ')}` : ''}${notes}`;
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
  // The observations whose key or values differ, each run's in its words (the rest are the same).
  const [later, baseline] = differing(row.cells[change.run]?.observations, row.cells[0]?.observations);
  return `now: ${shortFinding(later, max)} · baseline: ${shortFinding(baseline, max)}`;
}

/** The sentences of the observations of `a` whose key and values `b` has not, and those of `b` not in `a`. */
function differing(a: readonly Observation[] = [], b: readonly Observation[] = []): [string, string] {
  const keysOf = (list: readonly Observation[]) => new Set(comparableObservations(list));
  const inA = keysOf(a);
  const inB = keysOf(b);
  const only = (list: readonly Observation[], other: Set<string>) =>
    list
      .filter((o) => {
        const form = comparedForm(o);
        return form !== undefined && !other.has(form);
      })
      .map((o) => o.text)
      .join(' · ') || 'nothing';
  return [only(a, inB), only(b, inA)];
}
