/**
 * The capacity search's report: summary.md (the result, its bracketing steps, every step with its
 * sample count and hold time), and the curve — latency percentiles and error rate against the
 * offered and the achieved load, the knee (the found capacity) marked — as SVG in summary.html.
 */
import { escapeXml, renderXYChart } from '../figures/svg-chart.ts';
import type { SearchEnd, SearchOptions, SearchPhase } from './capacity-search.ts';
import type { SloFigure } from './slo.ts';

export type CapacityMode = 'chunks' | 'parts' | 'rest';
export type CapacityDimension = 'rate' | 'streams';

/** One step as the report shows it. */
export interface CapacityStep {
  index: number;
  phase: SearchPhase;
  /** Offered load: takes per second, or concurrent streams. */
  load: number;
  holds: boolean;
  broken: string[];
  durationS: number;
  /** The SLO's main latency figure (its first latency term) at p50 / p95 / p99, and its samples. */
  figure: SloFigure;
  p50Ms?: number;
  p95Ms?: number;
  p99Ms?: number;
  samples: number;
  errorRate: number;
  /** Takes ended per second (successes and failures). */
  achievedRate: number;
  generatorShare?: number;
  generatorCpuS?: number;
  machineBusy?: number;
  elapsedMs: number;
  dir: string;
}

export interface CapacityReport {
  mode: CapacityMode;
  over: CapacityDimension;
  unit: string;
  slo: string;
  end: SearchEnd;
  capacity?: number;
  firstBad?: number;
  /** The step that held at `capacity` and the one that broke at `firstBad`. */
  bracket: { good?: CapacityStep; bad?: CapacityStep };
  /** Every run at the two bracketing loads (a load is re-run to confirm its verdict). */
  bracketRuns?: { good: CapacityStep[]; bad: CapacityStep[] };
  /** Whether re-runs settled the verdicts at `capacity` and `firstBad` (capacity-search.ts). */
  confirmed?: { capacity: boolean; firstBad: boolean };
  steps: CapacityStep[];
  search: Omit<SearchOptions, 'now'> & { minSamples: number; stepS: number };
  elapsedMs: number;
  budgetMs: number;
  generatorWarnings: string[];
  k6Version?: string;
  target: string;
  /** The one voice every step spoke with: made by the first step (and deleted at the end) or given as VOICE_ID. */
  voice?: { id: string; source: 'made' | 'given' };
}

function n(v: number | undefined, digits = 1): string {
  return v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(digits);
}
function pct(v: number | undefined): string {
  return v === undefined ? '–' : `${(v * 100).toFixed(1)} %`;
}

/** "24 takes/s (bracket 24 – 28)" or why there is none. */
export function capacitySentence(r: CapacityReport): string {
  switch (r.end) {
    case 'found':
    case 'bracketed':
      return (
        `**${n(r.capacity)} ${r.unit}** holds the SLO; ${n(r.firstBad)} ${r.unit} breaks it` +
        (r.end === 'bracketed' ? ' (the budget ended the bisection before the bracket was narrow)' : '')
      );
    case 'holds-at-max':
      return `the SLO held at every step up to the search's maximum, ${n(r.capacity)} ${r.unit}: the capacity is at least that (raise --max)`;
    case 'breaks-at-min':
      return `the SLO broke even at the lowest load tried, ${n(r.firstBad)} ${r.unit}`;
    default:
      return `the budget ended before the SLO was bracketed (highest good ${n(r.capacity)}, lowest bad ${n(r.firstBad)} ${r.unit})`;
  }
}

function stepRow(s: CapacityStep, r: CapacityReport): string {
  return (
    `| ${s.index} | ${s.phase} | ${n(s.load)} | ${r.over === 'rate' ? n(s.achievedRate) : n(s.achievedRate)} | ${s.durationS} s | ${s.samples} | ` +
    `${n(s.p50Ms)} | ${n(s.p95Ms)} | ${n(s.p99Ms)} | ${pct(s.errorRate)} | ${pct(s.generatorShare)} | ` +
    `${s.holds ? 'holds' : `**broken**: ${s.broken.join('; ')}`} |`
  );
}

export function renderCapacityMarkdown(r: CapacityReport, exitCode: number): string {
  const figure = r.steps[0]?.figure ?? 'first_playable';
  const lines = [
    `# Capacity: ${r.mode} mode, over ${r.over === 'rate' ? 'the arrival rate' : 'concurrent streams'}`,
    '',
    `- Result: ${capacitySentence(r)}`,
    `- SLO: \`${r.slo}\` (every term must hold in a step)`,
    `- Target: ${r.target}; k6 ${r.k6Version ?? 'unknown'}`,
    `- Voice: ${r.voice ? `${r.voice.id} (${r.voice.source === 'given' ? 'given as VOICE_ID' : 'made by step 1, used by every step'})` : 'none recorded'}`,
    `- Search: start ${r.search.start}, ×${r.search.growth} up until the SLO breaks, then bisection to ${(r.search.precision * 100).toFixed(0)} % ` +
      `(granularity ${r.search.granularity}); each step held ≥ ${r.search.stepS} s and until ≥ ${r.search.minSamples} takes were offered (≤ 30 s), after its warm-up` +
      (r.search.confirm === false
        ? '; every step trusted once (--no-confirm)'
        : '; a breaking step, and the last good one, re-run (phase confirm) until two runs agree or three were made, the majority counts, a tie breaks'),
    `- ${r.steps.length} steps in ${(r.elapsedMs / 1000).toFixed(0)} s (budget ${(r.budgetMs / 1000).toFixed(0)} s); exit ${exitCode}`,
    '',
  ];
  if (r.bracket.good || r.bracket.bad) {
    lines.push('## Bracketing steps', '');
    const runsAt = (label: 'good' | 'bad', s: CapacityStep | undefined) =>
      r.bracketRuns?.[label] ?? (s ? [s] : []);
    for (const [label, key, s, settled] of [
      ['last good', 'good', r.bracket.good, r.confirmed?.capacity],
      ['first bad', 'bad', r.bracket.bad, r.confirmed?.firstBad],
    ] as const) {
      const runs = runsAt(key, s);
      if (runs.length === 0) continue;
      const verdicts = runs.map((x) => (x.holds ? 'held' : 'broke')).join(', ');
      lines.push(
        `- ${label}: ${n(runs[0]!.load)} ${r.unit}, ${runs.length} run${runs.length === 1 ? '' : 's'} (${verdicts}${settled ? ': settled' : runs.length === 1 ? ': not re-run' : ''}):`,
        ...runs.map(
          (x) =>
            `  - step ${x.index}: ${figure} p50 ${n(x.p50Ms)} / p95 ${n(x.p95Ms)} / p99 ${n(x.p99Ms)} ms over ${x.samples} takes in ${x.durationS} s, errors ${pct(x.errorRate)}, achieved ${n(x.achievedRate)} takes/s, k6 share ${pct(x.generatorShare)}${x.holds ? '' : ` (broken: ${x.broken.join('; ')})`}`,
        ),
      );
    }
    lines.push('');
  }
  lines.push(
    '## Steps',
    '',
    `Latencies: \`${figure}\` in ms. Achieved: takes ended per second. k6 share: the load generator's CPU share of the machine during the step.`,
    '',
    `| # | phase | offered (${r.unit}) | achieved (takes/s) | held | samples | p50 | p95 | p99 | errors | k6 share | SLO |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.steps.map((s) => stepRow(s, r)),
    '',
  );
  for (const w of r.generatorWarnings) lines.push(`**Warning:** ${w}.`, '');
  lines.push('The curve: summary.html (curve.svg, rates.svg).', '');
  return `${lines.join('\n')}\n`;
}

function sorted(r: CapacityReport): CapacityStep[] {
  return [...r.steps].sort((a, b) => a.load - b.load);
}

function kneeMarkers(r: CapacityReport) {
  return r.capacity === undefined
    ? []
    : [{ x: r.capacity, label: `capacity ${n(r.capacity)}`, color: '#188038' }];
}

/** Latency percentiles against the offered load (solid) and the achieved rate (dashed p95), the knee and the SLO limit marked. */
export function renderCurveSvg(r: CapacityReport): string {
  const steps = sorted(r);
  const figure = steps[0]?.figure ?? 'first_playable';
  const limit = /_p\d+<(\d+(?:\.\d+)?)(ms|s)/.exec(r.slo);
  const limitMs = limit ? Number(limit[1]) * (limit[2] === 's' ? 1000 : 1) : undefined;
  const at = (pick: (s: CapacityStep) => number | undefined, x: (s: CapacityStep) => number) =>
    steps.flatMap((s) => (pick(s) === undefined ? [] : [{ x: x(s), y: pick(s)! }]));
  const series = [
    {
      name: 'p50 (offered)',
      color: '#9aa0a6',
      points: at(
        (s) => s.p50Ms,
        (s) => s.load,
      ),
    },
    {
      name: 'p95 (offered)',
      color: '#1a73e8',
      points: at(
        (s) => s.p95Ms,
        (s) => s.load,
      ),
    },
    {
      name: 'p99 (offered)',
      color: '#a142f4',
      points: at(
        (s) => s.p99Ms,
        (s) => s.load,
      ),
    },
  ];
  if (r.over === 'rate') {
    series.push({
      name: 'p95 (achieved)',
      color: '#1a73e8',
      points: at(
        (s) => s.p95Ms,
        (s) => s.achievedRate,
      ),
      dashed: true,
    } as (typeof series)[0]);
  }
  return renderXYChart({
    title: `${figure} against load (${r.mode}, ${r.over})`,
    xLabel: r.over === 'rate' ? 'takes per second (offered; dashed: achieved)' : 'concurrent streams',
    yLabel: 'milliseconds',
    series,
    vMarkers: kneeMarkers(r),
    hMarkers: limitMs === undefined ? [] : [{ y: limitMs, label: `SLO ${limitMs} ms` }],
  });
}

/** Error rate and achieved rate against the offered load. */
export function renderRatesSvg(r: CapacityReport): string {
  const steps = sorted(r);
  return renderXYChart({
    title: `Errors and achieved rate against load (${r.mode}, ${r.over})`,
    xLabel: r.over === 'rate' ? 'takes per second offered' : 'concurrent streams',
    yLabel: 'percent / takes per second',
    series: [
      {
        name: 'errors (%)',
        color: '#d93025',
        points: steps.map((s) => ({ x: s.load, y: s.errorRate * 100 })),
      },
      {
        name: 'achieved (takes/s)',
        color: '#188038',
        points: steps.map((s) => ({ x: s.load, y: s.achievedRate })),
      },
      {
        name: 'k6 share (%)',
        color: '#f9ab00',
        points: steps.flatMap((s) =>
          s.generatorShare === undefined ? [] : [{ x: s.load, y: s.generatorShare * 100 }],
        ),
      },
    ],
    vMarkers: kneeMarkers(r),
  });
}

export function renderCapacityHtml(r: CapacityReport, curveSvg: string): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>Capacity: ${escapeXml(r.mode)} over ${escapeXml(r.over)}</title>`,
    '<style>body{font-family:sans-serif;max-width:900px;margin:2em auto;color:#202124}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 6px;font-size:13px}</style>',
    '</head><body>',
    `<h1>Capacity: ${escapeXml(r.mode)} mode, over ${r.over === 'rate' ? 'the arrival rate' : 'concurrent streams'}</h1>`,
    `<p>${escapeXml(capacitySentence(r).replace(/\*\*/g, ''))}. SLO <code>${escapeXml(r.slo)}</code>.</p>`,
    curveSvg,
    renderRatesSvg(r),
    '<table><tr><th>#</th><th>phase</th><th>offered</th><th>achieved</th><th>held s</th><th>samples</th><th>p50</th><th>p95</th><th>p99</th><th>errors</th><th>k6 share</th><th>SLO</th></tr>',
    ...r.steps.map(
      (s) =>
        `<tr><td>${s.index}</td><td>${s.phase}</td><td>${n(s.load)}</td><td>${n(s.achievedRate)}</td><td>${s.durationS}</td><td>${s.samples}</td><td>${n(s.p50Ms)}</td><td>${n(s.p95Ms)}</td><td>${n(s.p99Ms)}</td><td>${pct(s.errorRate)}</td><td>${pct(s.generatorShare)}</td><td>${s.holds ? 'holds' : `broken: ${escapeXml(s.broken.join('; '))}`}</td></tr>`,
    ),
    '</table>',
    ...r.generatorWarnings.map((w) => `<p><strong>Warning:</strong> ${escapeXml(w)}.</p>`),
    '</body></html>',
    '',
  ].join('\n');
}
