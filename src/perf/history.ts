/**
 * `speakcheck perf history DIR...`: every stored run in order (each DIR is a run or a directory of
 * runs; run directories start with an ISO timestamp, so path order is time order), a trend chart per
 * tracked figure, and the change points E-Divisive finds in each series (change-points.ts), each
 * named by the run where the new level starts. Writes history.md and history.html (self-contained).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { escapeXml as esc, inlineSvg, perfPage, renderLineChart } from '../figures/svg-chart.ts';
import { statLabel } from '../load/summary.ts';
import { type ChangePoint, type EDivisiveOptions, eDivisive } from './change-points.ts';
import { runFigures } from './compare.ts';
import { isKeyFigure } from './key-figures.ts';
import { loadRunSet } from './run-set.ts';
import type { MetricKind } from './tracked.ts';

export interface HistoryRun {
  /** The run directory's name (or the file's path when it has none). */
  label: string;
  file: string;
}

export interface FigureHistory {
  id: string;
  scenario: string;
  metric: string;
  stat: string;
  kind: MetricKind;
  better: 'lower' | 'higher';
  /** One value per run (undefined where the run lacks the figure, e.g. another scenario). */
  values: (number | undefined)[];
  changes: (ChangePoint & { run: string; direction: 'worse' | 'better' })[];
}

export interface History {
  runs: HistoryRun[];
  figures: FigureHistory[];
}

/** The series of every tracked figure over `runs`, and its change points. */
export function buildHistory(
  runs: { label: string; file: string; summary: Parameters<typeof runFigures>[0] }[],
  o: EDivisiveOptions = {},
): History {
  const series = new Map<string, FigureHistory>();
  runs.forEach((run, index) => {
    for (const f of runFigures(run.summary)) {
      let s = series.get(f.id);
      if (!s) {
        s = {
          id: f.id,
          scenario: f.key.scenario,
          metric: f.key.metric,
          stat: f.key.stat,
          kind: f.key.rule.kind,
          better: f.key.rule.better,
          values: new Array(runs.length).fill(undefined),
          changes: [],
        };
        series.set(f.id, s);
      }
      s.values[index] = f.value;
    }
  });
  for (const s of series.values()) {
    // Change points are searched among the runs that have the figure; reported by run.
    const at = s.values.flatMap((v, i) => (v === undefined ? [] : [i]));
    const found = eDivisive(
      at.map((i) => s.values[i]!),
      o,
    );
    s.changes = found.map((c) => {
      const up = c.after > c.before;
      const worse = s.better === 'lower' ? up : !up;
      return {
        ...c,
        index: at[c.index]!,
        run: runs[at[c.index]!]!.label,
        direction: worse ? 'worse' : 'better',
      };
    });
  }
  return {
    runs: runs.map(({ label, file }) => ({ label, file })),
    figures: [...series.values()].sort((a, b) => a.id.localeCompare(b.id)),
  };
}

function runLabel(file: string): string {
  const dir = basename(dirname(file));
  return dir && dir !== '.' ? dir : file;
}

export function loadHistory(dirs: string[], o: EDivisiveOptions = {}): History {
  const runs = dirs.flatMap((dir) => {
    const set = loadRunSet(dir);
    return set.runs.map((summary, i) => ({ label: runLabel(set.files[i]!), file: set.files[i]!, summary }));
  });
  return buildHistory(runs, o);
}

function fmt(kind: MetricKind, v: number): string {
  if (kind === 'errors') return `${(v * 100).toFixed(2)} %`;
  if (kind === 'latency') return `${v.toFixed(2)} ms`;
  if (kind === 'ratio') return `${v.toFixed(2)}×`;
  return `${v.toFixed(3)}/s`;
}

const title = (f: FigureHistory) => `${f.scenario} · ${f.metric} ${statLabel(f.stat)}`;

export function renderHistoryMarkdown(h: History): string {
  const changes = h.figures.flatMap((f) => f.changes.map((c) => ({ f, c })));
  return [
    '# Performance history',
    '',
    `${h.runs.length} run(s), ${h.figures.length} tracked figure(s); change points by E-Divisive (Matteson & James 2014) with a permutation test (p < 0.05). Charts: history.html.`,
    '',
    '## Change points',
    '',
    changes.length === 0
      ? 'None found.'
      : [
          '| figure | from run | before → after (medians) | p | direction |',
          '|---|---|---|---|---|',
          ...changes.map(
            ({ f, c }) =>
              `| ${title(f)} | \`${c.run}\` (#${c.index + 1}) | ${fmt(f.kind, c.before)} → ${fmt(f.kind, c.after)} | ${c.p.toFixed(3)} | ${c.direction} |`,
          ),
        ].join('\n'),
    '',
    '## Runs',
    '',
    ...h.runs.map((r, i) => `${i + 1}. \`${r.label}\` (${r.file})`),
    '',
  ].join('\n');
}

/**
 * Key figures first (first playable audio p50/p95, throughput, error rate: key-figures.ts), each
 * trend drawn with its change points; every other figure after them, collapsed and grouped by
 * metric (a group with a change point opens).
 */
export function renderHistoryHtml(h: History): string {
  // Per scenario: first playable audio, then throughput, then errors (as compare.html's panel).
  const rank = (f: FigureHistory) => ['latency', 'throughput', 'errors'].indexOf(f.kind);
  const scenarios = [...new Set(h.figures.map((f) => f.scenario))];
  const key = h.figures
    .filter((f) => isKeyFigure(f, h.figures))
    .sort((a, b) => scenarios.indexOf(a.scenario) - scenarios.indexOf(b.scenario) || rank(a) - rank(b));
  const rest = h.figures.filter((f) => !key.includes(f));
  const metrics = [...new Set(rest.map((f) => f.metric))];
  const grouped = metrics
    .map((m) => {
      const figures = rest.filter((f) => f.metric === m);
      const changed = figures.some((f) => f.changes.length > 0);
      return `<details class="group"${changed ? ' open' : ''}><summary><code>${esc(m)}</code> (${figures.length} figure(s)${
        changed ? ', with change points' : ''
      })</summary>
${trendSections(figures)}</details>`;
    })
    .join('\n');
  return perfPage(
    'speakcheck performance history',
    `li.worse { color: #d93025; }
li.better { color: #188038; }
details.group { margin: .4em 0; }
details.group > summary { cursor: pointer; font-weight: bold; }`,
    `<h1>Performance history</h1>
<p>${h.runs.length} run(s); dashed red lines: change points (E-Divisive, permutation test p &lt; 0.05).</p>
<h2>Key figures</h2>
<div class="key-trends">${trendSections(key)}</div>
<h2>Every other figure, by metric</h2>
${grouped}
<h2>Runs</h2>
<ol>${h.runs.map((r) => `<li><code>${esc(r.label)}</code></li>`).join('')}</ol>`,
  );
}

function trendSections(figures: readonly FigureHistory[]): string {
  return figures
    .map((f) => {
      const svg = renderLineChart({
        title: title(f),
        values: f.values,
        changes: f.changes.map((c) => c.index),
        format: (v) => fmt(f.kind, v),
      });
      const notes = f.changes
        .map(
          (c) =>
            `<li class="${c.direction}">from run ${c.index + 1} (<code>${esc(c.run)}</code>): ${esc(fmt(f.kind, c.before))} → ${esc(fmt(f.kind, c.after))}, p ${c.p.toFixed(3)}, ${c.direction}</li>`,
        )
        .join('');
      return `<section><figure>${inlineSvg(svg)}</figure>${notes ? `<ul>${notes}</ul>` : ''}</section>`;
    })
    .join('\n');
}

export function writeHistory(h: History, outDir: string): { markdown: string; html: string } {
  mkdirSync(outDir, { recursive: true });
  const files = { markdown: join(outDir, 'history.md'), html: join(outDir, 'history.html') };
  writeFileSync(files.markdown, renderHistoryMarkdown(h));
  writeFileSync(files.html, renderHistoryHtml(h));
  return files;
}
