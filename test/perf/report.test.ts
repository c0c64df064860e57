import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { niceTicks, renderBarChart } from '../../src/figures/svg-chart.ts';
import { comparisonCharts } from '../../src/perf/charts.ts';
import { compareRuns } from '../../src/perf/compare.ts';
import { perfCompare } from '../../src/perf/perf-compare.ts';
import { renderComparisonHtml } from '../../src/perf/report-html.ts';
import { renderComparisonMarkdown } from '../../src/perf/report-markdown.ts';
import { DEFAULT_TOLERANCE } from '../../src/perf/tracked.ts';
import { counter, errorRate, run, trend } from '../load/helpers.ts';

/** Four runs a side (the fewest with which p < 0.05 is possible), jittered by ±0.1. */
const JITTER = [-0.1, 0, 0.05, 0.1];
const baseline = JITTER.map((d) =>
  run(
    'ttfc-websocket',
    trend('speak_ws_ttfc{mode:chunks}', { med: 8, 'p(95)': 12 + d, 'p(99)': 15 }),
    trend('speak_ws_ttfc{mode:parts}', { med: 90, 'p(95)': 120 + d, 'p(99)': 140 }),
    counter('speak_ws_takes', 20),
    errorRate('speak_ws_errors', 0),
  ),
);
const current = JITTER.map((d) =>
  run(
    'ttfc-websocket',
    trend('speak_ws_ttfc{mode:chunks}', { med: 8, 'p(95)': 30 + d, 'p(99)': 35 }),
    trend('speak_ws_ttfc{mode:parts}', { med: 85, 'p(95)': 118 + d, 'p(99)': 139 }),
    counter('speak_ws_takes', 19.5),
    errorRate('speak_ws_errors', 0.002),
  ),
);
const sources = { baseline: 'load/baselines/x', current: 'reports/load/y', baselineRuns: 4, currentRuns: 4 };

/** Anything that would make a browser fetch something, or run code. */
const EXTERNAL = [
  /<script/i,
  /<link/i,
  /<img/i,
  /<iframe/i,
  /\ssrc=/i,
  /\shref=/i,
  /url\(/i,
  /@import/i,
  /https?:\/\//i,
];

function tagBalance(xml: string, tag: string): number {
  return (
    (xml.match(new RegExp(`<${tag}[\\s>]`, 'g')) ?? []).length -
    (xml.match(new RegExp(`</${tag}>`, 'g')) ?? []).length
  );
}

describe('SVG bar chart', () => {
  it('labels both axes, shows each value, and colours a regression', () => {
    const svg = renderBarChart({
      title: 'Latency <percentiles>',
      axisLabel: 'milliseconds (lower is better)',
      rows: [
        { label: 'ttfc p50', baseline: 8, current: 9 },
        { label: 'ttfc p95', baseline: 12, current: 30, regressed: true },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('Latency &lt;percentiles&gt;'); // escaped, never raw markup
    expect(svg).toContain('>milliseconds (lower is better)</text>');
    expect(svg).toContain('>ttfc p95</text>');
    expect(svg).toContain('>30</text>');
    expect(svg).toContain('fill="#d93025"/>'); // the regressed current bar
    expect(tagBalance(svg, 'svg')).toBe(0);
    expect(tagBalance(svg, 'text')).toBe(0);
  });

  it('scales bars to the axis: the largest value ends at the top tick or before it', () => {
    const svg = renderBarChart({
      title: 't',
      axisLabel: 'a',
      rows: [{ label: 'x', baseline: 50, current: 100 }],
    });
    const widths = [...svg.matchAll(/<rect x="330" y="\d+" width="([\d.]+)" height="9"/g)].map((m) =>
      Number(m[1]),
    );
    expect(widths).toHaveLength(2);
    expect(widths[1]).toBeCloseTo(2 * widths[0]!, 0);
    expect(widths[1]).toBeLessThanOrEqual(430);
  });

  it('says so when there is nothing to draw', () => {
    expect(renderBarChart({ title: 't', axisLabel: 'a', rows: [] })).toContain('no figures to compare');
  });

  it('chooses round ticks that cover the maximum', () => {
    expect(niceTicks(9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(230)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});

describe('comparison reports', () => {
  const comparison = compareRuns(baseline, current, DEFAULT_TOLERANCE, {
    chartStats: ['med', 'p(95)', 'p(99)'],
  });

  it('HTML is one self-contained page with the three charts and the verdict table', () => {
    const html = renderComparisonHtml(comparison, comparisonCharts(comparison), sources);
    for (const pattern of EXTERNAL) expect(html, `must not match ${pattern}`).not.toMatch(pattern);
    // The three charts, besides the key-figure panel's whiskers.
    expect(html.match(/<svg (?!class="whiskers")/g)).toHaveLength(3);
    for (const label of [
      'milliseconds (lower is better)',
      'per second of test run (higher is better)',
      'percent of requests (lower is better)',
    ]) {
      expect(html).toContain(label);
    }
    expect(html).toContain('REGRESSION: 1 figure(s)');
    expect(html).toMatch(
      /<tr class="bad"><td>ttfc-websocket<\/td><td><code>speak_ws_ttfc\{mode:chunks\}<\/code> p95/,
    );
    expect(tagBalance(html, 'table')).toBe(0);
    expect(tagBalance(html, 'figure')).toBe(0);
  });

  it('Markdown has the verdict, the tolerance used and one row per judged figure', () => {
    const md = renderComparisonMarkdown(comparison, sources);
    expect(md).toContain('**REGRESSION: 1 figure(s) significantly worse (p < 0.05)**');
    expect(md).toContain('two-sided Mann-Whitney U over the runs');
    expect(md).toMatch(
      /\| ttfc-websocket \| `speak_ws_ttfc\{mode:chunks\}` p95 \| 12\.03 ms \[11\.90 ms, 12\.10 ms\] \| 30\.0[23] ms \[29\.90 ms, 30\.10 ms\] \| \+18\.00 ms \(\+149\.7 %\) \| 0\.029 \| \*\*worse\*\* \|/,
    );
    // Significant (every run lower) but under 10 %: "~".
    expect(md).toMatch(
      /\| ttfc-websocket \| `speak_ws_takes` rate \| 20\.000\/s \[20\.000\/s, 20\.000\/s\] \| 19\.500\/s .* \| ~ \|/,
    );
    expect(md).not.toContain(' p99 |'); // charted, not judged
    expect(md).toContain('![Latency percentiles](latency.svg)');
  });

  it('perfCompare reads directories of repeated runs and writes md, html and svg files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perf-compare-'));
    const write = (side: string, i: number, p95: number) => {
      const runDir = join(dir, side, `run-${i}`);
      const raw = {
        metrics: {
          'speak_ws_ttfc{mode:chunks}': {
            type: 'trend',
            contains: 'time',
            values: { med: 5, 'p(95)': p95, 'p(99)': p95, count: 50 },
          },
        },
        speakcheck: { scenario: 'ttfc-websocket' },
      };
      mkdirSync(runDir, { recursive: true });
      writeFileSync(join(runDir, 'summary.json'), JSON.stringify(raw));
    };
    for (const [i, p95] of [10, 11, 12].entries()) write('base', i, p95);
    // One outlier run: the median absorbs it.
    for (const [i, p95] of [11, 40, 12].entries()) write('cur', i, p95);
    const out = join(dir, 'out');
    const { comparison: c, files } = perfCompare(join(dir, 'base'), join(dir, 'cur'), DEFAULT_TOLERANCE, out);
    expect(c.regressions).toHaveLength(0);
    const p95 = c.figures.find((f) => f.stat === 'p(95)')!;
    expect(p95.baselineRuns).toEqual([10, 11, 12]);
    expect(p95.current).toBe(12);
    expect(readFileSync(files.markdown, 'utf8')).toContain('(3 run(s))');
    expect(readFileSync(files.markdown, 'utf8')).toContain(
      '**Warning**: ttfc-websocket: 3 baseline and 3 current run(s)',
    );
    expect(readFileSync(files.html, 'utf8')).toContain('<svg ');
    expect(files.svgs.map((f) => readFileSync(f, 'utf8').slice(0, 4))).toEqual(['<svg', '<svg', '<svg']);
  });
});
