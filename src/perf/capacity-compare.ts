/**
 * Capacities in `perf compare`: a `load capacity` run (summary.json with a capacity block) on each
 * side, per scenario (capacity-<mode>-<over>). A capacity is a bracket: the highest load that held
 * the SLO and the lowest that broke it. Overlapping brackets cannot be told apart (`~`); the current
 * side is `worse` when its whole bracket lies below the baseline's, `better` when above. With several
 * runs a side, the medians of the good and of the bad loads form the side's bracket.
 */

import { median } from '../figures/stats.ts';
import { escapeXml as esc, inlineSvg, renderXYChart } from '../figures/svg-chart.ts';
import { capacityOf } from '../load/capacity.ts';
import type { CapacityReport } from '../load/capacity-report.ts';
import type { LoadSummary } from '../load/summary.ts';

export interface CapacityBracket {
  /** Highest load that held (0 when none did). */
  good: number;
  /** Lowest load that broke (Infinity when none did). */
  bad: number;
  runs: number;
  slo: string;
  unit: string;
  reports: CapacityReport[];
}

export interface CapacityComparison {
  scenario: string;
  baseline?: CapacityBracket;
  current?: CapacityBracket;
  verdict: 'worse' | 'better' | '~' | 'missing in current' | 'new in current';
  /** Set when the two sides held different SLOs: their capacities do not compare. */
  note?: string;
}

export function bracketOf(reports: CapacityReport[]): CapacityBracket {
  return {
    good: median(reports.map((r) => r.capacity ?? 0)),
    bad: median(reports.map((r) => r.firstBad ?? Number.POSITIVE_INFINITY)),
    runs: reports.length,
    slo: reports[0]!.slo,
    unit: reports[0]!.unit,
    reports,
  };
}

/** `~` when [good, bad] of the two sides overlap; else which side is higher. */
export function judgeBrackets(baseline: CapacityBracket, current: CapacityBracket): 'worse' | 'better' | '~' {
  if (current.bad <= baseline.good) return 'worse';
  if (current.good >= baseline.bad) return 'better';
  return '~';
}

function byScenario(runs: LoadSummary[]): Map<string, CapacityReport[]> {
  const out = new Map<string, CapacityReport[]>();
  for (const run of runs) {
    const c = capacityOf(run);
    if (c) out.set(run.scenario, [...(out.get(run.scenario) ?? []), c]);
  }
  return out;
}

export function compareCapacities(baseline: LoadSummary[], current: LoadSummary[]): CapacityComparison[] {
  const b = byScenario(baseline);
  const c = byScenario(current);
  return [...new Set([...b.keys(), ...c.keys()])].sort().map((scenario) => {
    const base = b.get(scenario);
    const cur = c.get(scenario);
    if (!base) return { scenario, current: bracketOf(cur!), verdict: 'new in current' as const };
    if (!cur) return { scenario, baseline: bracketOf(base), verdict: 'missing in current' as const };
    const baselineBracket = bracketOf(base);
    const currentBracket = bracketOf(cur);
    const out: CapacityComparison = {
      scenario,
      baseline: baselineBracket,
      current: currentBracket,
      verdict: judgeBrackets(baselineBracket, currentBracket),
    };
    if (baselineBracket.slo !== currentBracket.slo) {
      out.verdict = '~';
      out.note = `different SLOs (${baselineBracket.slo} / ${currentBracket.slo}): not compared`;
    }
    return out;
  });
}

function bracketText(b: CapacityBracket | undefined): string {
  if (!b) return '–';
  const bad = Number.isFinite(b.bad) ? String(b.bad) : '–';
  return `${b.good} ${b.unit} [${b.good} – ${bad}]${b.runs > 1 ? ` (median of ${b.runs})` : ''}`;
}

export function capacityMarkdown(list: CapacityComparison[]): string {
  if (!list.length) return '';
  const lines = [
    '## Capacity (`load capacity`)',
    '',
    'The highest load that held the SLO [last good – first bad]; `~` when the brackets overlap.',
    '',
    '| scenario | SLO | baseline | current | verdict |',
    '|---|---|---|---|---|',
    ...list.map(
      (c) =>
        `| ${c.scenario} | \`${(c.baseline ?? c.current)!.slo}\` | ${bracketText(c.baseline)} | ${bracketText(c.current)} | ${c.verdict === 'worse' ? '**worse**' : c.verdict}${c.note ? ` (${c.note})` : ''} |`,
    ),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** The capacity section of compare.html: the table and both sides' curves on one chart per scenario. */
export function capacityHtml(list: CapacityComparison[]): string {
  if (!list.length) return '';
  const rows = list
    .map(
      (c) =>
        `<tr class="${c.verdict === 'worse' ? 'bad' : c.verdict === 'better' ? 'good' : ''}"><td>${esc(c.scenario)}</td><td><code>${esc((c.baseline ?? c.current)!.slo)}</code></td><td>${esc(bracketText(c.baseline))}</td><td>${esc(bracketText(c.current))}</td><td>${esc(c.verdict)}${c.note ? ` (${esc(c.note)})` : ''}</td></tr>`,
    )
    .join('\n');
  const charts = list.map((c) => `<figure>${inlineSvg(capacityCurveChart(c))}</figure>`).join('\n');
  return `<h2>Capacity</h2>
<p>The highest load that held the SLO [last good – first bad]; <code>~</code> when the brackets overlap.</p>
<table><thead><tr><th>scenario</th><th>SLO</th><th>baseline</th><th>current</th><th>verdict</th></tr></thead><tbody>
${rows}
</tbody></table>
${charts}`;
}

/** p95 against offered load for the baseline's first run and the current's, each knee marked. */
export function capacityCurveChart(c: CapacityComparison): string {
  const sides = [
    { label: 'baseline', color: '#9aa0a6', r: c.baseline?.reports[0] },
    { label: 'current', color: '#1a73e8', r: c.current?.reports[0] },
  ].filter((s): s is { label: string; color: string; r: CapacityReport } => s.r !== undefined);
  return renderXYChart({
    title: `${c.scenario}: p95 against offered load`,
    xLabel: sides[0]?.r.over === 'streams' ? 'concurrent streams' : 'takes per second offered',
    yLabel: 'milliseconds',
    series: sides.map((s) => ({
      name: `${s.label} p95`,
      color: s.color,
      points: s.r.steps.flatMap((st) => (st.p95Ms === undefined ? [] : [{ x: st.load, y: st.p95Ms }])),
    })),
    vMarkers: sides.flatMap((s) =>
      s.r.capacity === undefined
        ? []
        : [{ x: s.r.capacity, label: `${s.label} ${s.r.capacity}`, color: s.color }],
    ),
  });
}
