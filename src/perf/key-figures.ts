/**
 * The key-figure panel of compare.html: the figures a reader opens the page for, per scenario —
 * first playable audio p50 and p95, throughput, error rate — each row with both sides' medians and
 * their bootstrap 95 % intervals drawn as whiskers on one shared axis, and the verdict as a coloured
 * word ("worse" red, "better" green, "~" grey: no significant or no material change).
 */

import { escapeXml as esc } from '../figures/svg-chart.ts';
import { statLabel } from '../load/summary.ts';
import type { Comparison, FigureComparison, Verdict } from './compare.ts';
import { changeText, pText, withInterval } from './report-markdown.ts';

/** Latency metrics that time the first audio a listener can play, per scenario. */
const FIRST_PLAYABLE = /^speak_(ws_first_samples|ws_ttfc|wav_ttfb|ramp_ttfc|take_latency)(\{.*\})?$/;
const KEY_STATS = new Set(['med', 'p(95)']);

/** What a key figure is, for a comparison and for a history alike. */
export interface FigureKey {
  scenario: string;
  metric: string;
  stat: string;
  kind: FigureComparison['kind'];
}

/** First playable audio p50/p95, throughput or error rate: what a reader opens the page for. */
export function isKeyFigure(f: FigureKey, all: readonly FigureKey[]): boolean {
  return isFirstPlayable(f, all) || f.kind === 'throughput' || f.kind === 'errors';
}

function isFirstPlayable(f: FigureKey, all: readonly FigureKey[]): boolean {
  if (f.kind !== 'latency' || !KEY_STATS.has(f.stat) || !FIRST_PLAYABLE.test(f.metric)) return false;
  // The untagged figure when a scenario has one; its tagged parts (per mode, per rate) otherwise.
  if (!f.metric.includes('{')) return true;
  const parent = f.metric.slice(0, f.metric.indexOf('{'));
  return !all.some((g) => g.scenario === f.scenario && g.metric === parent);
}

/** The key figures in reading order: per scenario, first playable audio, throughput, errors. */
export function keyFigures(c: Comparison): FigureComparison[] {
  const rank = (f: FigureComparison) =>
    f.kind === 'latency' ? 0 : f.kind === 'throughput' ? 1 : f.kind === 'errors' ? 2 : 3;
  const picked = c.figures.filter((f) => f.verdict !== 'charted only' && isKeyFigure(f, c.figures));
  const scenarios = [...new Set(picked.map((f) => f.scenario))];
  const metricOrder = [...new Set(picked.map((f) => f.metric))];
  const statRank = (f: FigureComparison) => (f.stat === 'med' ? 0 : 1);
  return scenarios.flatMap((s) =>
    picked
      .filter((f) => f.scenario === s)
      .sort(
        (a, b) =>
          rank(a) - rank(b) ||
          metricOrder.indexOf(a.metric) - metricOrder.indexOf(b.metric) ||
          statRank(a) - statRank(b),
      ),
  );
}

export const VERDICT_STYLE: Record<Verdict, { cls: string; word: string }> = {
  worse: { cls: 'v-worse', word: 'worse' },
  better: { cls: 'v-better', word: 'better' },
  '~': { cls: 'v-same', word: '~ no significant change' },
  // Too few runs for a test: the caveat is in the word itself.
  'likely worse': { cls: 'v-worse', word: 'likely worse (too few runs to test)' },
  'likely better': { cls: 'v-better', word: 'likely better (too few runs to test)' },
  inconclusive: { cls: 'v-missing', word: 'inconclusive: more runs would decide' },
  'missing in current': { cls: 'v-missing', word: 'missing in current' },
  'new in current': { cls: 'v-missing', word: 'new in current' },
  'charted only': { cls: 'v-same', word: 'charted only' },
};

const W = 260;
const H = 34;
const PAD = 8;

/** Both sides on one axis: a dot at the median, a whisker over its interval (none with one run). */
export function whiskerSvg(f: FigureComparison): string {
  const scale = f.kind === 'errors' ? 100 : 1;
  const points = [
    f.baseline,
    f.current,
    f.baselineCI?.low,
    f.baselineCI?.high,
    f.currentCI?.low,
    f.currentCI?.high,
  ]
    .filter((v): v is number => v !== undefined && Number.isFinite(v))
    .map((v) => v * scale);
  if (points.length === 0) return '';
  let lo = Math.min(...points);
  let hi = Math.max(...points);
  const span = hi - lo || Math.abs(hi) || 1;
  lo -= span * 0.1;
  hi += span * 0.1;
  const x = (v: number) => PAD + ((v * scale - lo) / (hi - lo)) * (W - 2 * PAD);
  const currentColour = f.verdict === 'worse' ? '#d93025' : f.verdict === 'better' ? '#188038' : '#1a73e8';
  const side = (
    name: string,
    value: number | undefined,
    ci: FigureComparison['baselineCI'],
    y: number,
    colour: string,
  ) => {
    if (value === undefined) return '';
    const whisker = ci
      ? `<line class="whisker" x1="${x(ci.low).toFixed(1)}" x2="${x(ci.high).toFixed(1)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>` +
        `<line x1="${x(ci.low).toFixed(1)}" x2="${x(ci.low).toFixed(1)}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>` +
        `<line x1="${x(ci.high).toFixed(1)}" x2="${x(ci.high).toFixed(1)}" y1="${y - 4}" y2="${y + 4}" stroke="${colour}" stroke-width="2"/>`
      : '';
    return `${whisker}<circle cx="${x(value).toFixed(1)}" cy="${y}" r="4" fill="${colour}"><title>${esc(`${name}: ${withInterval(f, value, ci)}`)}</title></circle>`;
  };
  return `<svg class="whiskers" width="${W}" height="${H}" role="img" aria-label="${esc(
    `baseline ${withInterval(f, f.baseline, f.baselineCI)}, current ${withInterval(f, f.current, f.currentCI)}`,
  )}"><line x1="${PAD}" x2="${W - PAD}" y1="${H / 2}" y2="${H / 2}" stroke="#e0e0e0"/>${side('baseline', f.baseline, f.baselineCI, 10, '#80868b')}${side(
    'current',
    f.current,
    f.currentCI,
    24,
    currentColour,
  )}</svg>`;
}

function figureName(f: FigureComparison): string {
  const what =
    f.kind === 'latency'
      ? `first playable audio ${f.stat === 'med' ? 'p50' : statLabel(f.stat)}`
      : f.kind === 'throughput'
        ? 'throughput'
        : 'error rate';
  return `${what} <code>${esc(f.metric)}</code>`;
}

export const KEY_PANEL_CSS = `
.key-panel { border: 1px solid #dadce0; border-radius: 8px; padding: .5em 1em; margin: 1em 0; }
.key-panel h2 { font-size: 1.1em; margin: .3em 0; }
.key-panel table { margin-top: .3em; }
.key-panel td { vertical-align: middle; padding: 2px 6px; }
.key-panel h3 { font-size: 1em; margin: .6em 0 0; }
.key-panel td.fig { white-space: nowrap; }
.pill { display: inline-block; padding: 1px 8px; border-radius: 10px; font-weight: bold; white-space: nowrap; }
.v-worse { background: #d93025; color: #fff; }
.v-better { background: #188038; color: #fff; }
.v-same { background: #e8eaed; color: #3c4043; }
.v-missing { background: #fde293; color: #3c4043; }
.legend-dot { display: inline-block; width: .7em; height: .7em; border-radius: 50%; margin: 0 .3em 0 .8em; }
details.group { margin: .4em 0; }
details.group > summary { cursor: pointer; font-weight: bold; }`;

/** The panel: one table per scenario; empty when the comparison has no key figure. */
export function renderKeyPanel(c: Comparison): string {
  const figures = keyFigures(c);
  if (figures.length === 0) return '';
  const scenarios = [...new Set(figures.map((f) => f.scenario))];
  const tables = scenarios
    .map((s) => {
      const rows = figures
        .filter((f) => f.scenario === s)
        .map((f) => {
          const v = VERDICT_STYLE[f.verdict];
          return `<tr class="key-row" data-verdict="${esc(f.verdict)}"><td class="fig">${figureName(f)}</td><td>${esc(
            withInterval(f, f.baseline, f.baselineCI),
          )}</td><td>${esc(withInterval(f, f.current, f.currentCI))}</td><td>${whiskerSvg(f)}</td><td>${esc(changeText(f))}</td><td>${esc(
            pText(f),
          )}</td><td><span class="pill ${v.cls}">${esc(v.word)}</span></td></tr>`;
        })
        .join('\n');
      return `<h3>${esc(s)}</h3><table><thead><tr><th>figure</th><th>baseline [95 % CI]</th><th>current [95 % CI]</th><th>intervals</th><th>change</th><th>p</th><th>verdict</th></tr></thead><tbody>
${rows}
</tbody></table>`;
    })
    .join('\n');
  return `<section class="key-panel" id="key-figures"><h2>Key figures</h2>
<p class="legend">Dots: median of each side's runs; whiskers: its bootstrap 95 % interval (none with one run); each row has its own scale.<span class="legend-dot" style="background:#80868b"></span>baseline<span class="legend-dot" style="background:#1a73e8"></span>current<span class="legend-dot" style="background:#d93025"></span>current, worse<span class="legend-dot" style="background:#188038"></span>current, better</p>
${tables}</section>`;
}
