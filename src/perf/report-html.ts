/**
 * compare.html: one self-contained page (inline CSS and SVG; no scripts, fonts, images or links),
 * so it can be attached to a CI run and opened offline. Key figures first (src/perf/key-figures.ts),
 * then every figure's chart and the judged figures' table, collapsed and grouped by metric.
 */

import { escapeXml as esc, inlineSvg, perfPage } from '../figures/svg-chart.ts';
import { statLabel } from '../load/summary.ts';
import type { ComparisonCharts } from './charts.ts';
import type { Comparison } from './compare.ts';
import { KEY_PANEL_CSS, renderKeyPanel } from './key-figures.ts';
import {
  changeText,
  methodLine,
  pText,
  type ReportSources,
  verdictLine,
  withInterval,
} from './report-markdown.ts';

/** The judged figures' table, one collapsed group per metric (a regressed metric's group opens). */
function groupedTable(c: Comparison): string {
  const judged = c.figures.filter((f) => f.judged);
  const metrics = [...new Set(judged.map((f) => f.metric))];
  return metrics
    .map((m) => {
      const figures = judged.filter((f) => f.metric === m);
      const worse = figures.filter((f) => f.verdict === 'worse').length;
      return `<details class="group metric"${worse ? ' open' : ''}><summary><code>${esc(m)}</code> (${figures.length} figure(s)${
        worse ? `, ${worse} worse` : ''
      })</summary>
<table>
<thead><tr><th>scenario</th><th>figure</th><th>baseline [95 % CI]</th><th>current [95 % CI]</th><th>change</th><th>p</th><th>verdict</th></tr></thead>
<tbody>
${tableRows(figures)}
</tbody>
</table></details>`;
    })
    .join('\n');
}

function tableRows(figures: Comparison['figures']): string {
  return figures
    .map(
      (f) =>
        `<tr class="${f.verdict === 'worse' || f.verdict === 'likely worse' ? 'bad' : f.verdict === 'better' ? 'good' : ''}"><td>${esc(f.scenario)}</td>` +
        `<td><code>${esc(f.metric)}</code> ${esc(statLabel(f.stat))}</td><td>${esc(withInterval(f, f.baseline, f.baselineCI))}</td>` +
        `<td>${esc(withInterval(f, f.current, f.currentCI))}</td><td>${esc(changeText(f))}</td>` +
        `<td>${esc(pText(f))}</td><td>${esc(f.verdict)}</td></tr>`,
    )
    .join('\n');
}

export function renderComparisonHtml(
  c: Comparison,
  charts: ComparisonCharts,
  s: ReportSources,
  /** Sections added after the figures (the capacity comparison). */
  extraHtml = '',
): string {
  return perfPage(
    'speakcheck performance comparison',
    `.verdict { font-size: 1.2em; font-weight: bold; }
.verdict.bad, tr.bad td { color: #d93025; }
.warning { color: #b06000; font-weight: bold; }
tr.good td { color: #188038; }
table { border-collapse: collapse; margin-top: 1em; }
th, td { border: 1px solid #dadce0; padding: 4px 8px; text-align: left; font-size: 0.9em; }
figure { margin: 1.5em 0; }
${KEY_PANEL_CSS}`,
    `<h1>Performance comparison</h1>
<p class="verdict ${c.regressions.length || c.likelyRegressions.length ? 'bad' : ''}">${esc(verdictLine(c))}</p>
${c.warnings.map((w) => `<p class="warning">Warning: ${esc(w)}</p>`).join('\n')}
${renderKeyPanel(c)}
<ul>
<li>Baseline: <code>${esc(s.baseline)}</code> (${s.baselineRuns} run(s))</li>
<li>Current: <code>${esc(s.current)}</code> (${s.currentRuns} run(s))</li>
<li>Method: ${esc(methodLine(c))}</li>
</ul>
<h2>Every figure</h2>
<details class="group chart"><summary>Latency percentiles, every figure</summary><figure>${inlineSvg(charts.latency)}</figure></details>
<details class="group chart"><summary>Throughput, every figure</summary><figure>${inlineSvg(charts.throughput)}</figure></details>
<details class="group chart"><summary>Error rate, every figure</summary><figure>${inlineSvg(charts.errors)}</figure></details>
<h2>Judged figures, by metric</h2>
${groupedTable(c)}
${extraHtml}`,
  );
}
