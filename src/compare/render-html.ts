/**
 * compare.html: conformance runs side by side on one self-contained page (inline CSS, no script, no
 * request), like conformance.html. Order: how it came out (regression or not); each run's header
 * (verdict, MUST/SHOULD/SECURITY judged and failed, profile, server /version, date, harness); what
 * changed against the baseline, worst first; then the matrix, requirements by area × runs, each
 * requirement's sentence and each cell's finding one click away, and the rows the same in every
 * run folded under their area. A requirement a run does not have says so in that run's cell.
 */
import { groundingLines } from '../report/grounding.ts';
import { escapeHtml as esc } from '../report/render-html.ts';
import { type Cell, type Change, type Comparison, isSteady, type Row, type Servers } from './diff.ts';
import {
  changedCounts,
  changeFinding,
  changeText,
  headerFacts,
  outcomeLine,
  regressionWord,
  shortFinding,
} from './words.ts';

// Colours as conformance.html's (white on each, WCAG AA); a change's pill by its direction.
const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:.5rem 2rem 2rem;color:#1b1f24;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.4rem 0}h2{font-size:1.15rem;margin:1.4rem 0 .4rem}h1,h2,th,summary b,nav{overflow-wrap:normal;word-break:normal}
a{color:#0550ae}nav a{margin-right:1rem}
.outcome{font-size:1.1rem;font-weight:700}.outcome.bad{color:#a40e26}.outcome.good{color:#116329}
table{border-collapse:collapse;margin:.4rem 0;width:100%}table.matrix{table-layout:fixed}table.matrix th:first-child{width:30%}#changed th[scope=row]{width:17rem}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f6f8fa}table.runs th[scope=row]{width:10rem;background:#f6f8fa}table.runs code{font-size:.8rem}
.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;padding:0 .3rem;font-size:.8rem;color:#fff}
.passed{background:#1a7f37}.failed{background:#cf222e}.blocked{background:#9a6700}.skipped{background:#57606a}.info{background:#0969da}.not-concluded{background:#8250df}.expected-failure{background:#bc4c00}.non-strict{background:#7d4e00}.not-applicable{background:#57606a}.not-observed{background:#57606a}.harness-error{background:#24292f}
.pill{display:inline-block;border-radius:9px;padding:0 .45rem;font-size:.8rem;color:#fff;overflow-wrap:normal}
.pill.worse{background:#cf222e}.pill.better{background:#1a7f37}.pill.neither{background:#57606a}.pill.regression{background:#82071e;font-weight:700}
.lvl{font-size:.75rem;border:1px solid #6e7781;border-radius:3px;padding:0 .25rem}
.absent{color:#57606a;font-style:italic}.finding{color:#3d444d;font-size:.85rem;margin:.3rem 0}
.spec{background:#fffbe6;padding:.4rem;margin:.3rem 0;font-size:.85rem}.file{color:#57606a;font-size:.8rem}.same-cell{color:#57606a;font-size:.8rem;overflow-wrap:normal}
td.changed{box-shadow:inset 4px 0 0 #cf222e}td.changed.better{box-shadow:inset 4px 0 0 #1a7f37}td.changed.neither{box-shadow:inset 4px 0 0 #57606a}
details>summary{cursor:pointer}details.area{margin:.5rem 0;border:1px solid #d0d7de;border-radius:6px;padding:.3rem .6rem}
details.area>summary{font-weight:600}details.same{margin:.3rem 0}.counts{color:#57606a;font-weight:400;font-size:.85rem}
ul.obs{margin:.2rem 0;padding-left:1.2rem;font-size:.8rem}.none{color:#116329;font-weight:600}
@media print{details{break-inside:avoid}.badge,.pill{-webkit-print-color-adjust:exact;print-color-adjust:exact}}`;

function badge(status: string): string {
  return `<span class="badge ${esc(status)}">${esc(status)}</span>`;
}

function pill(change: Change, servers: Servers): string {
  const cls = change.regression ? 'regression' : change.direction;
  const prefix = change.regression ? `${regressionWord(servers)}: ` : '';
  return `<span class="pill ${esc(cls)}">${esc(prefix + changeText(change, servers))}</span>`;
}

function runName(c: Comparison, index: number): string {
  return `${c.runs[index]!.label}${index === 0 ? ' (baseline)' : ''}`;
}

function runsSection(c: Comparison): string {
  const facts = c.runs.map(headerFacts);
  const rows = facts[0]!.map(([label], i) => {
    const cells = facts
      .map((f) => {
        const value = f[i]![1];
        return label === 'server /version' || label === 'server'
          ? `<td><code>${esc(value)}</code></td>`
          : `<td>${esc(value)}</td>`;
      })
      .join('');
    return `<tr><th scope="row">${esc(label)}</th>${cells}</tr>`;
  });
  const why = c.runs.map((r) => `<td>${esc(r.verdictReasons.join('; ') || '—')}</td>`).join('');
  return `<section id="runs"><h2>The runs</h2>
<table class="runs"><thead><tr><th scope="col">run</th>${c.runs.map((_, i) => `<th scope="col">${esc(runName(c, i))}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}
<tr><th scope="row">why not CONFORMS</th>${why}</tr>
<tr><th scope="row">report</th>${c.runs.map((r) => `<td><code>${esc(r.file)}</code></td>`).join('')}</tr></tbody></table></section>`;
}

function changedSection(c: Comparison): string {
  if (c.changed.length === 0) {
    return `<section id="changed"><h2>Changed against the baseline</h2><p class="none">Nothing: every requirement has the same verdict (and every INFO the same observations) in every run.</p></section>`;
  }
  const later = c.runs.slice(1).map((_, i) => i + 1);
  const rows = c.changed.map((row) => {
    const cells = later
      .map((i) => {
        const change = row.changes.find((x) => x.run === i);
        if (!change) return '<td class="same-cell">the same</td>';
        const finding = changeFinding(row, change, 300);
        return `<td>${pill(change, c.servers)}${finding ? `<div class="finding">${esc(finding)}</div>` : ''}</td>`;
      })
      .join('');
    return `<tr><th scope="row"><a href="#m-${esc(row.id)}"><b>${esc(row.id)}</b></a> <span class="lvl">${esc(row.level)}</span> <span class="file">${esc(row.area)}</span></th>${cells}</tr>`;
  });
  return `<section id="changed"><h2>Changed against the baseline, worst first</h2><p>${esc(changedCounts(c))}</p>
<table><thead><tr><th scope="col">requirement</th>${later.map((i) => `<th scope="col">${esc(runName(c, i))}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}

/** The requirement and what it rests on, one click away: its words, the contract's sentence, standards. */
function requirementCell(row: Row): string {
  const grounds = groundingLines(row)
    .map(
      (g) =>
        `<br><q>${esc(g.quote)}</q> <span class="file">(${g.url ? `<a href="${esc(g.url)}">${esc(g.source)}</a>` : esc(g.source)})</span>`,
    )
    .join('');
  return `<th scope="row" id="m-${esc(row.id)}"><details><summary><b>${esc(row.id)}</b> <span class="lvl">${esc(row.level)}</span></summary>
<p class="spec"><b>${esc(row.source)} · ${esc(row.section)}</b><br>${esc(row.text)}${grounds}</p></details></th>`;
}

function verdictCell(row: Row, cell: Cell, index: number, servers: Servers): string {
  if (cell.status === undefined) {
    const where = index === 0 ? 'not in the baseline' : 'not in this run';
    return `<td class="absent">${where}</td>`;
  }
  const change = row.changes.find((x) => x.run === index);
  const observations = cell.observations?.length
    ? `<ul class="obs">${cell.observations.map((o) => `<li>${esc(shortFinding(o.text, 600))}</li>`).join('')}</ul>`
    : '';
  const finding = shortFinding(cell.message, 300);
  return `<td${change ? ` class="changed ${esc(change.direction)}"` : ''}><details><summary title="${esc(finding)}">${badge(cell.status)}${
    change ? ` ${pill(change, servers)}` : ''
  }</summary><p class="finding">${esc(cell.message ?? '')}</p>${observations}</details></td>`;
}

function matrixTable(c: Comparison, rows: readonly Row[], caption: string): string {
  const head = `<thead><tr><th scope="col">requirement</th>${c.runs.map((_, i) => `<th scope="col">${esc(runName(c, i))}</th>`).join('')}</tr></thead>`;
  const body = rows
    .map(
      (row) =>
        `<tr>${requirementCell(row)}${row.cells.map((cell, i) => verdictCell(row, cell, i, c.servers)).join('')}</tr>`,
    )
    .join('\n');
  return `<table class="matrix"><caption class="file">${esc(caption)}</caption>${head}<tbody>${body}</tbody></table>`;
}

function matrixSection(c: Comparison): string {
  const areas = [...new Set(c.rows.map((r) => r.area))];
  const groups = areas.map((area) => {
    const rows = c.rows.filter((r) => r.area === area);
    const moved = rows.filter((r) => !isSteady(r));
    const same = rows.filter(isSteady);
    const sameBlock = same.length
      ? `<details class="same"><summary>${same.length} the same in every run</summary>${matrixTable(c, same, `${area}: the same in every run`)}</details>`
      : '';
    return `<details class="area" id="area-${esc(area)}"${moved.length ? ' open' : ''}><summary>${esc(area)} <span class="counts">${rows.length} requirement(s)${
      moved.length ? `, ${moved.length} changed` : ', all the same'
    }</span></summary>
${moved.length ? matrixTable(c, moved, `${area}: changed`) : ''}${sameBlock}</details>`;
  });
  return `<section id="matrix"><h2>Every requirement, by area</h2>
<p>Each cell is the run's verdict; open it for the finding, open a requirement for its sentence. Rows the same in every run are folded.</p>
${groups.join('\n')}</section>`;
}

export function renderCompareHtml(c: Comparison): string {
  const bad = c.regressions.length > 0;
  const title = `Speak v1 conformance: ${c.runs.map((r) => r.label).join(' vs ')}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head><body>
<header><h1>Speak v1 conformance: ${c.runs.length} runs compared</h1>
<p class="outcome ${bad ? 'bad' : 'good'}">${esc(outcomeLine(c))}</p>
<nav aria-label="Sections"><a href="#runs">The runs</a><a href="#changed">Changed (${c.changed.length})</a><a href="#matrix">Every requirement</a></nav></header>
<main>
${runsSection(c)}
${changedSection(c)}
${matrixSection(c)}
</main>
</body></html>
`;
}
