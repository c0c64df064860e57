/**
 * conformance.html: one self-contained page (inline CSS and JS, no external request) for acceptance
 * testers and buyers. Rendered on the server side with everything escaped, so it reads fine without
 * JS; the small script filters and opens linked blocks. Order: the verdict and its badge, what to act
 * on first (failed, blocked, not judged, each with finding, reproduction and exchanges one click
 * away), per-area bars, the full list collapsed by area, and the contract with each statement marked
 * by the verdicts of the requirements that quote it. Evidence is capped per test and bodies are cut,
 * so a server answering megabytes cannot make the page unusable; a passed requirement's exchanges
 * stay in conformance.json.
 */

import type { EvidenceEntry } from '../evidence/evidence.ts';
import { isFine, isToActOn } from '../verdict/standing.ts';
import { judgedText, type TestOutcome } from '../verdict/verdict.ts';
import {
  ACT_GROUPS,
  labelNote,
  OUTCOMES,
  type OutageWords,
  type Outcome,
  outcomeLabel,
  outcomeOf,
  outcomeRank,
} from '../verdict/words.ts';
import { badgeOf, renderBadgeSvg } from './badge.ts';
import { renderContract } from './contract.ts';
import { groundingLines } from './grounding.ts';
import { type ConformanceReport, type ReportedRequirement, selectionText, targetWords } from './model.ts';
import { REPRODUCTION_USAGE } from './reproduction.ts';
import { judgedOf, notJudgedStatus, securityLine } from './summary-table.ts';
import { verdictDetail, verdictSentence, verdictWords } from './verdict-line.ts';

export const HTML_MAX_EXCHANGES_PER_TEST = 12;
export const HTML_MAX_BODY_CHARS = 1_500;

export function escapeHtml(text: unknown): string {
  return String(text ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters not shown)` : text;
}

function renderExchange(e: EvidenceEntry): string {
  const requestHeaders = Object.entries(e.requestHeaders)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const headers = Object.entries(e.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return `<details class="ex"><summary><code>${escapeHtml(e.method)} ${escapeHtml(cut(e.url, 300))}</code> → <b>${escapeHtml(
    e.status ?? 'no answer',
  )}</b> <span class="ms">${escapeHtml(e.ms)} ms</span>${e.error ? ` <span class="err">${escapeHtml(cut(e.error, 300))}</span>` : ''}</summary>
<pre tabindex="0">${escapeHtml(requestHeaders)}${e.requestBody ? `\n\n${escapeHtml(cut(e.requestBody, HTML_MAX_BODY_CHARS))}` : ''}</pre>
<pre tabindex="0">${escapeHtml(headers)}${e.body ? `\n\n${escapeHtml(cut(e.body, HTML_MAX_BODY_CHARS))}` : ''}</pre></details>`;
}

/**
 * A test with its errors and observations; its exchanges only where a reader needs them (a
 * requirement to act on, or one that did not pass). A passing run's exchanges stay in
 * conformance.json: rendered for every requirement they made the page 1.8 MB, most of it repeated
 * (one test covers several requirements).
 */
function renderTest(t: TestOutcome | undefined, key: string, withExchanges = true): string {
  if (!t) return `<li><code>${escapeHtml(key)}</code></li>`;
  if (!withExchanges) {
    const count = t.evidence.length + t.droppedEvidence;
    const exchanges = count
      ? ` <span class="file">· ${count} exchange${count === 1 ? '' : 's'} in conformance.json</span>`
      : '';
    return `<li class="t-${escapeHtml(t.state)}"><span class="badge ${escapeHtml(t.state)}">${escapeHtml(t.state)}</span> ${escapeHtml(
      t.name,
    )} <span class="file">${escapeHtml(t.file)}</span> <span class="ms">${escapeHtml(Math.round(t.durationMs))} ms</span>${exchanges}
${t.errors.map((e) => `<pre tabindex="0" class="err">${escapeHtml(cut(e, 1_000))}</pre>`).join('')}
${t.observations.length ? `<ul class="obs">${t.observations.map((o) => `<li>${escapeHtml(cut(o.text, 500))}</li>`).join('')}</ul>` : ''}</li>`;
  }
  // The start shows the setup, the end shows the failure (polling tests make many exchanges).
  const half = HTML_MAX_EXCHANGES_PER_TEST / 2;
  const tooMany = t.evidence.length > HTML_MAX_EXCHANGES_PER_TEST;
  const head = tooMany ? t.evidence.slice(0, half) : t.evidence;
  const tail = tooMany ? t.evidence.slice(-half) : [];
  const hidden = t.evidence.length - head.length - tail.length + t.droppedEvidence;
  return `<li class="t-${escapeHtml(t.state)}"><span class="badge ${escapeHtml(t.state)}">${escapeHtml(t.state)}</span> ${escapeHtml(
    t.name,
  )} <span class="file">${escapeHtml(t.file)}</span> <span class="ms">${escapeHtml(Math.round(t.durationMs))} ms</span>
${t.errors.map((e) => `<pre tabindex="0" class="err">${escapeHtml(cut(e, 4_000))}</pre>`).join('')}
${t.observations.length ? `<ul class="obs">${t.observations.map((o) => `<li>${escapeHtml(cut(o.text, 1_000))}</li>`).join('')}</ul>` : ''}
${head.map(renderExchange).join('\n')}${hidden > 0 ? `<p class="more">${hidden} more exchanges not shown.</p>` : ''}${tail
  .map(renderExchange)
  .join('\n')}</li>`;
}

/** The commands that show a failure again (src/report/reproduction.ts); secrets as shell variables. */
function renderReproduction(r: ReportedRequirement): string {
  const repro = r.reproduction;
  if (!repro) return '';
  const ws = repro.websocket.length
    ? `<p>Websocket requests sent (replay: <code>SPEAK_WS_URL=… node repro/${escapeHtml(r.id)}.mjs</code>):</p><pre tabindex="0" class="repro">${escapeHtml(repro.websocket.join('\n'))}</pre><p>Transcript:</p><pre tabindex="0" class="repro">${escapeHtml(repro.transcript.join('\n'))}</pre>`
    : '';
  const curl = repro.curl.length
    ? `<pre tabindex="0" class="repro">${escapeHtml(repro.curl.join('\n'))}</pre>`
    : '';
  const notes = repro.notes.length
    ? `<ul>${repro.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`
    : '';
  return `<div class="repro"><b>Reproduction</b> <span class="usage">${escapeHtml(REPRODUCTION_USAGE)}</span>${curl}${ws}${notes}</div>`;
}

// Every <pre> carries tabindex="0": it scrolls past 24rem, and a box that scrolls must be reachable by
// keyboard (WCAG 2.1.1; axe-core's scrollable-region-focusable, checked by test/browser).
// overflow-wrap: a server's unbroken tokens (URLs, bodies, messages) wrap instead of widening the page;
// headers and labels keep their words whole (overflow-wrap:normal), they only wrap between words.
const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:.5rem 2rem 2rem;color:#1b1f24;overflow-wrap:anywhere}
h1{font-size:1.4rem;margin:.4rem 0}h2{font-size:1.15rem;margin:1.2rem 0 .4rem}h1,h2,h3,th,summary b,.lbl,nav{overflow-wrap:normal;word-break:normal;hyphens:none}
a{color:#0550ae}nav{margin:.2rem 0 .4rem}nav a{margin-right:1rem}
.head{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}.head svg{flex:none}
.run{color:#444;font-size:.85rem;margin:.2rem 0}
table.sum{border-collapse:collapse;font-size:.85rem}table.sum td,table.sum th{border:1px solid #ccd;padding:.25rem .5rem;text-align:right}
.bar{position:sticky;top:0;background:#fff;padding:.5rem 0;border-bottom:1px solid #ddd;z-index:1}
details.req{border:1px solid #dde;border-radius:6px;margin:.3rem 0;padding:.3rem .6rem}
details.req>summary,details.area>summary{cursor:pointer}details.req[hidden],details.area[hidden]{display:none}
details.area{margin:.3rem 0}details.area>summary{font-weight:600;padding:.2rem 0}
.act-group h3{font-size:1rem;margin:.8rem 0 .2rem}.none{color:#1a7f37;font-weight:600}
.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;padding:0 .3rem;font-size:.8rem;color:#fff}
.passed{background:#1a7f37}.failed{background:#cf222e}.blocked{background:#9a6700}.skipped{background:#57606a}.info{background:#0969da}.not-concluded{background:#8250df}.expected-failure{background:#bc4c00}.non-strict{background:#7d4e00}.not-applicable{background:#57606a}.not-observed{background:#57606a}.harness-error{background:#24292f}
.jbar{display:inline-block;width:8rem;height:.7rem;background:#d0d7de;vertical-align:middle}.jbar>i{display:block;height:100%;background:#1a7f37}table.jar td{padding:.1rem .5rem}
.lvl{font-size:.75rem;border:1px solid #999;border-radius:3px;padding:0 .25rem}.msg{color:#444}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.4rem;border-radius:4px;max-height:24rem;overflow:auto}
pre.err,.err{color:#a40e26}.file,.ms{color:#59636e;font-size:.8rem}.ex{margin:.2rem 0 .2rem 1rem}.spec{background:#fffbe6;padding:.4rem}
.areas{display:grid;grid-template-columns:max-content 1fr max-content;gap:.25rem .8rem;align-items:center;margin:.4rem 0 .8rem}
.stack{display:flex;height:14px;border-radius:3px;overflow:hidden;background:#eee;min-width:8rem}.stack span{display:block;height:100%}
.o-passed{--c:#1a7f37}.o-failed{--c:#cf222e}.o-blocked{--c:#9a6700}.o-not-judged{--c:#57606a}.o-info{--c:#0969da}
.stack span,.key i{background:var(--c)}.key{font-size:.8rem;color:#444}.key i{display:inline-block;width:.8em;height:.8em;margin:0 .25em 0 .7em;vertical-align:-1px}
.counts{font-size:.8rem;color:#444;overflow-wrap:normal}
#contract table{border-collapse:collapse;margin:.4rem 0}#contract td,#contract th{border:1px solid #dde;padding:.2rem .45rem;text-align:left;vertical-align:top}
.cited{border-left:4px solid var(--c);background:#f6f8fa}p.cited,li.cited{padding-left:.4rem}
.cites{font-size:.75rem;white-space:normal}.cite-ref{color:var(--c);margin-right:.4rem;font-weight:600;text-decoration:none;overflow-wrap:normal}
:target{outline:3px solid #0969da;outline-offset:2px;scroll-margin-top:4rem}
@media print{body{max-width:none;padding:0;font-size:10pt}.bar,nav,.nop{display:none}pre{max-height:none;overflow:visible}details.req,tr,li{break-inside:avoid}a{color:inherit;text-decoration:none}.stack,.badge,.cited{-webkit-print-color-adjust:exact;print-color-adjust:exact}}`;

// Filters apply to the full list; while one is set, the areas with a match open. A link into a
// collapsed block (from the contract or the bars) opens it. Printing opens what to act on.
const JS = `(function(){var a=document.getElementById('f-area'),s=document.getElementById('f-status'),q=document.getElementById('f-text');
function apply(){var n=0,any=a.value||s.value||q.value;document.querySelectorAll('#all details.area').forEach(function(g){var m=0;g.querySelectorAll('details.req').forEach(function(d){var ok=(!a.value||d.dataset.area===a.value)&&(!s.value||d.dataset.status===s.value)&&(!q.value||d.textContent.toLowerCase().indexOf(q.value.toLowerCase())>=0);d.hidden=!ok;if(ok){n++;m++}});g.hidden=m===0;if(any)g.open=m>0;else if(g.dataset.auto)g.open=false;g.dataset.auto=any?'1':''});document.getElementById('f-count').textContent=n+' shown'}
function reveal(){var id=decodeURIComponent(location.hash.slice(1));var e=id&&document.getElementById(id);if(!e)return;for(var p=e;p;p=p.parentElement)if(p.tagName==='DETAILS'){p.hidden=false;p.open=true}e.scrollIntoView()}
a.onchange=s.onchange=apply;q.oninput=apply;apply();addEventListener('hashchange',reveal);reveal();
addEventListener('beforeprint',function(){document.querySelectorAll('#act details.req').forEach(function(d){d.open=true})})})();`;

interface Tally {
  total: number;
  counts: Record<Outcome, number>;
  /** Of each outcome (failed, blocked), those the expect file lists: the counts say so (issue 41). */
  expected: Record<Outcome, number>;
}

function tally(requirements: readonly ReportedRequirement[]): Tally {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const expected = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of requirements) {
    counts[outcomeOf(r)]++;
    if (r.expected !== undefined) expected[outcomeOf(r)]++;
  }
  return { total: requirements.length, counts, expected };
}

function countsText(t: Tally): string {
  return OUTCOMES.filter((o) => t.counts[o] > 0)
    .map((o) => `${t.counts[o]} ${outcomeLabel(o)}${t.expected[o] > 0 ? ` (${t.expected[o]} expected)` : ''}`)
    .join(' · ');
}

/** One stacked bar: passed / failed / blocked / not judged / INFO, widths by share. */
function stackedBar(t: Tally, label: string): string {
  const parts = OUTCOMES.filter((o) => t.counts[o] > 0)
    .map(
      (o) =>
        `<span class="o-${o}" style="width:${((100 * t.counts[o]) / Math.max(t.total, 1)).toFixed(2)}%" title="${t.counts[o]} ${outcomeLabel(o)}"></span>`,
    )
    .join('');
  return `<div class="stack" role="img" aria-label="${escapeHtml(`${label}: ${countsText(t)}`)}">${parts}</div>`;
}

function areaBars(report: ConformanceReport, areas: string[]): string {
  const rows = areas
    .map((area) => {
      const t = tally(report.requirements.filter((r) => r.area === area));
      return `<a class="lbl" href="#area-${escapeHtml(area)}">${escapeHtml(area)}</a>${stackedBar(t, area)}<span class="counts">${escapeHtml(countsText(t))}</span>`;
    })
    .join('\n');
  const key = OUTCOMES.map((o) => `<span class="o-${o}"><i></i>${outcomeLabel(o)}</span>`).join('');
  return `<p class="key">${key}</p><div class="areas">${rows}</div>`;
}

/** Most urgent first: failed, blocked, not judged; within each MUST before SHOULD before INFO. */
const LEVEL_ORDER = ['MUST', 'SECURITY', 'SHOULD', 'INFO'];
function actOrder(a: ReportedRequirement, b: ReportedRequirement): number {
  return (
    outcomeRank(outcomeOf(a)) - outcomeRank(outcomeOf(b)) ||
    LEVEL_ORDER.indexOf(a.level) - LEVEL_ORDER.indexOf(b.level)
  );
}

/** What to act on: failed (not the expected ones), blocked, not judged; INFO judges nothing to act on. */
export function toActOn(requirements: readonly ReportedRequirement[]): ReportedRequirement[] {
  return requirements.filter(isToActOn).sort(actOrder);
}

/** The words before a requirement's message that say what its label means (src/verdict/words.ts). */
function statusNote(r: ReportedRequirement): string {
  const note = labelNote(r.status);
  return note ? `<b>${escapeHtml(note.name)}</b> (${escapeHtml(note.why)}): ` : '';
}

interface RenderContext {
  tests: Map<string, TestOutcome>;
  anchors: Map<string, string>;
  acted: Set<string>;
}

function specBlock(r: ReportedRequirement, ctx: RenderContext): string {
  const anchor = ctx.anchors.get(r.id);
  const lines = groundingLines(r)
    .map((g) => {
      // The contract's own sentence links to it in the contract view; a standard to where it is read.
      const where =
        g.source === 'speak-v1.md' && anchor
          ? `<a class="to-spec" href="#${anchor}">speak-v1.md, in the contract below</a>`
          : `<span class="file">(${g.url ? `<a href="${escapeHtml(g.url)}">${escapeHtml(g.source)}</a>` : escapeHtml(g.source)})</span>`;
      return `<br><q class="quote">${escapeHtml(g.quote)}</q> ${where}`;
    })
    .join('');
  return `<p class="spec"><b>${escapeHtml(r.source)} · ${escapeHtml(r.section)}</b><br>${escapeHtml(r.text)}${lines}</p>`;
}

function requirementSummary(r: ReportedRequirement): string {
  return `<summary><span class="badge ${escapeHtml(r.status)}">${escapeHtml(r.status)}</span> <b>${escapeHtml(r.id)}</b> <span class="lvl">${escapeHtml(
    r.level,
  )}</span> <span class="msg">${escapeHtml(cut(r.message, 300))}</span></summary>`;
}

/** A requirement without a verdict of its own: what would judge it (an option, a budget, a reachable sink). */
function wouldJudgeHtml(r: ReportedRequirement): string {
  return r.notJudged
    ? `<p><b>Not judged</b> (${escapeHtml(notJudgedStatus(r))}). What would judge it: ${escapeHtml(r.notJudged.wouldJudgeIt)}</p>`
    : '';
}

/** The security area's counts, apart from the contract's (src/report/summary-table.ts securityLine). */
function securityHtml(report: ConformanceReport): string {
  const line = securityLine(report.requirements, report.run.profile);
  return line ? `<p class="security"><b>Security</b>${escapeHtml(line.replace(/^security/, ''))}</p>\n` : '';
}

/** A requirement with everything needed to act on it: finding, reproduction, exchanges. */
function renderActionable(r: ReportedRequirement, ctx: RenderContext): string {
  return `<details class="req" id="req-${escapeHtml(r.id)}" data-area="${escapeHtml(r.area)}" data-status="${escapeHtml(r.status)}">
${requirementSummary(r)}
${specBlock(r, ctx)}
<p>${statusNote(r)}${escapeHtml(cut(r.message, 4_000))}</p>
${wouldJudgeHtml(r)}
${renderReproduction(r)}
${r.tests.length ? `<ul>${r.tests.map((k) => renderTest(ctx.tests.get(k), k)).join('\n')}</ul>` : '<p><i>No test covers this requirement.</i></p>'}
</details>`;
}

/** A requirement in the full list: its sentence and tests; the acted-on ones point up to their evidence. */
function renderListed(r: ReportedRequirement, ctx: RenderContext): string {
  const acted = ctx.acted.has(r.id);
  const body = acted
    ? `<p>${escapeHtml(cut(r.message, 1_000))}</p><p><a href="#req-${escapeHtml(r.id)}">Finding, reproduction and exchanges: under “Act on first”</a></p>`
    : `<p>${statusNote(r)}${escapeHtml(cut(r.message, 2_000))}</p>
${r.tests.length ? `<ul>${r.tests.map((k) => renderTest(ctx.tests.get(k), k, !isFine(r))).join('\n')}</ul>` : '<p><i>No test covers this requirement.</i></p>'}`;
  return `<details class="req" id="${acted ? 'list' : 'req'}-${escapeHtml(r.id)}" data-area="${escapeHtml(r.area)}" data-status="${escapeHtml(r.status)}">
${requirementSummary(r)}
${specBlock(r, ctx)}
${body}
</details>`;
}

/** Each route the run learned to be unavailable, once, with what would judge what it kept from being concluded. */
function outagesBlock(outages: readonly OutageWords[]): string {
  if (outages.length === 0) return '';
  const items = outages
    .map(
      (o) =>
        `<li>${escapeHtml(o.sentence)}: what it kept from being concluded would be judged with ${escapeHtml(o.wouldJudge)}.</li>`,
    )
    .join('');
  return `<div class="act-group"><h3>Outages (a route that never served): ${outages.length}</h3><ul>${items}</ul></div>`;
}

function actSection(
  act: ReportedRequirement[],
  ctx: RenderContext,
  outages: readonly OutageWords[] = [],
  expected = 0,
): string {
  if (act.length === 0 && outages.length === 0) {
    // Expected failures are still failures: "none failed" would hide them (issue 41).
    const none =
      expected > 0
        ? `Nothing new: the run's ${expected} failure${expected === 1 ? ' is' : 's are'} expected (listed in the expect file; see “Expected failures”).`
        : 'Nothing: every requirement of the run was judged, and none failed.';
    return `<section id="act"><h2>Act on first</h2><p class="none">${none}</p></section>`;
  }
  const html = ACT_GROUPS.map(({ outcome, title }) => {
    const list = act.filter((r) => outcomeOf(r) === outcome);
    return list.length
      ? `<div class="act-group"><h3>${escapeHtml(title)}: ${list.length}</h3>${list.map((r) => renderActionable(r, ctx)).join('\n')}</div>`
      : '';
  }).join('\n');
  return `<section id="act"><h2>Act on first</h2>${outagesBlock(outages)}${html}</section>`;
}

export interface HtmlOptions {
  /** speak-v1.md's markdown: rendered beside the verdict, each requirement linked to its sentence. */
  contract?: string;
}

export function renderHtml(report: ConformanceReport, o: HtmlOptions = {}): string {
  const { summary, run } = report;
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const verdict = verdictWords(run);
  const contract = o.contract === undefined ? undefined : renderContract(o.contract, report.requirements);
  const act = toActOn(report.requirements);
  const ctx: RenderContext = {
    tests: new Map(report.tests.map((t) => [t.key, t])),
    anchors: contract?.anchors ?? new Map(),
    acted: new Set(act.map((r) => r.id)),
  };
  const list = areas
    .map((area) => {
      const reqs = report.requirements.filter((r) => r.area === area);
      return `<details class="area" id="area-${escapeHtml(area)}" data-area="${escapeHtml(area)}"><summary>${escapeHtml(area)} <span class="counts">${escapeHtml(
        countsText(tally(reqs)),
      )}</span></summary>
${reqs.map((r) => renderListed(r, ctx)).join('\n')}
</details>`;
    })
    .join('\n');
  const problems =
    report.problems.length || run.errors.length
      ? `<h2>Problems of the run itself</h2><ul>${report.problems
          .map((p) => `<li><code>${escapeHtml(p.where)}</code>: ${escapeHtml(cut(p.message, 2_000))}</li>`)
          .join('')}${run.errors.map((e) => `<li>${escapeHtml(cut(e, 2_000))}</li>`).join('')}</ul>`
      : '';
  const contractSection = contract
    ? `<section id="contract"><h2>The contract: speak-v1.md, marked with the verdicts</h2>
<p class="key">Each statement a requirement rests on is marked with the worst verdict among them:${OUTCOMES.map(
        (x) => `<span class="o-${x}"><i></i>${outcomeLabel(x)}</span>`,
      ).join('')}</p>
<div class="spec-doc">${contract.html}</div></section>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Speak v1 conformance: ${escapeHtml(verdict)}</title><style>${CSS}</style></head><body>
<header><div class="head">${renderBadgeSvg(badgeOf(report))}<h1>Speak v1 conformance report: ${escapeHtml(verdict)}</h1></div>${
    // The same sentence as the terminal's verdict line and conformance.md.
    verdictDetail(run) ? `<p class="why">Verdict: ${escapeHtml(verdictSentence(run))}</p>` : ''
  }
<p class="run">Server <code>${escapeHtml(run.baseUrl)}</code> (${escapeHtml(targetWords(run.target))})${
    run.serverVersion === undefined ? '' : `, /version <code>${escapeHtml(run.serverVersion)}</code>`
  }; speakcheck ${escapeHtml(run.harness)}; profile ${escapeHtml(run.profile)}${escapeHtml(
    selectionText(run),
  )}; run ${escapeHtml(run.runId)} from ${escapeHtml(run.startedAt)} to ${escapeHtml(run.finishedAt)}; exit code ${escapeHtml(
    run.exitCode,
  )}; ${escapeHtml(summary.characters)} characters synthesized.</p>
<nav aria-label="Sections"><a href="#act">Act on first (${act.length})</a><a href="#areas">By area</a><a href="#all">All requirements</a>${
    contract ? '<a href="#contract">The contract</a>' : ''
  }</nav></header>
<main>
${summary.judged ? `<p><b>${escapeHtml(judgedText(summary.judged))}</b></p>` : ''}${securityHtml(report)}${problems}${expectHtml(run.expect)}
${actSection(act, ctx, report.outages ?? [], summary.expectedFailures ?? 0)}
<section id="areas"><h2>By area</h2>${areaBars(report, areas)}
${judgedPerArea(report)}
<table class="sum"><tr><th>Requirements</th><th>Passed</th><th>Failed</th><th>Blocked</th><th>Expected failures</th><th>Skipped</th><th>Info</th><th>Uncovered</th><th>MUST failed</th><th>SHOULD failed</th><th>MUST / SHOULD blocked</th><th>Tests passed / failed / skipped</th></tr>
<tr><td>${summary.requirements}</td><td>${summary.passed}</td><td>${summary.failed}</td><td>${summary.blocked}</td><td>${summary.expectedFailures ?? 0}</td><td>${summary.skipped}</td><td>${summary.info}</td><td>${summary.uncovered}</td><td>${summary.mustFailed}</td><td>${summary.shouldFailed}</td><td>${summary.mustBlocked} / ${summary.shouldBlocked}</td><td>${summary.tests.passed} / ${summary.tests.failed} / ${summary.tests.skipped}</td></tr></table></section>
<section id="all"><h2>All requirements, by area</h2>
<div class="bar"><label>Area <select id="f-area"><option value="">all</option>${areas
    .map((a) => `<option>${escapeHtml(a)}</option>`)
    .join(
      '',
    )}</select></label> <label>Verdict <select id="f-status"><option value="">all</option><option>failed</option><option>blocked</option><option>expected-failure</option><option>non-strict</option><option>not-applicable</option><option>not-observed</option><option>harness-error</option><option>passed</option><option>info</option><option>skipped</option><option>not-concluded</option></select></label>
<label>Search <input id="f-text" type="search"></label> <span id="f-count" aria-live="polite"></span></div>
${list}</section>
${contractSection}
</main>
<script>${JS}</script>
</body></html>
`;
}

/** The expect file's effect: unexpected passes and expired entries, prominently (empty without one). */
function expectHtml(expect: ConformanceReport['run']['expect']): string {
  if (!expect) return '';
  const items = [
    ...expect.unexpectedPasses.map(
      (e) =>
        `<li><b>Unexpected pass: ${escapeHtml(e.requirement)}</b> passed: remove it from ${escapeHtml(expect.file)}</li>`,
    ),
    ...expect.expired.map(
      (e) =>
        `<li><b>Expired: ${escapeHtml(e.requirement)}</b> expired on ${escapeHtml(e.expires)} (the run fails): fix it, or renew or remove the entry</li>`,
    ),
  ];
  return `<h2>Expected failures (${escapeHtml(expect.file)}): ${expect.expected.length}</h2>${items.length ? `<ul>${items.join('')}</ul>` : ''}`;
}

/** Judged / not judged MUSTs and SHOULDs per area at a glance: a count and a bar per area. */
function judgedPerArea(report: ConformanceReport): string {
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const rows = areas.map((area) => {
    // The terminal table's judged column: the security area counts its checks, not "0/0".
    const { judged, of } = judgedOf(report.requirements.filter((r) => r.area === area));
    const pct = of === 0 ? 100 : Math.round((100 * judged) / of);
    const open = of - judged;
    return `<tr><td>${escapeHtml(area)}</td><td><span class="jbar" title="${pct}% judged"><i style="width:${pct}%"></i></span></td><td>${judged}/${of} judged${open > 0 ? `, <b>${open} not</b>` : ''}</td></tr>`;
  });
  return `<table class="jar"><caption>MUSTs, SHOULDs and security checks judged per area</caption>${rows.join('')}</table>`;
}
