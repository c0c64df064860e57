/**
 * conformance.html: one self-contained page (inline CSS and JS, no external request) for acceptance
 * testers. Rendered on the server side with everything escaped, so it reads fine without JS; the
 * small script only filters by area and verdict. Evidence is capped per test and bodies are cut,
 * so a server answering megabytes cannot make the page unusable.
 */
import type { EvidenceEntry } from '../client/evidence.ts';
import { judgedText, notJudgedList, type TestOutcome } from '../requirements/verdict.ts';
import { securityLine } from '../run/summary-table.ts';
import { groundingLines } from './grounding.ts';
import { type ConformanceReport, type ReportedRequirement, selectionText, verdictOf } from './model.ts';

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
<pre>${escapeHtml(requestHeaders)}${e.requestBody ? `\n\n${escapeHtml(cut(e.requestBody, HTML_MAX_BODY_CHARS))}` : ''}</pre>
<pre>${escapeHtml(headers)}${e.body ? `\n\n${escapeHtml(cut(e.body, HTML_MAX_BODY_CHARS))}` : ''}</pre></details>`;
}

function renderTest(t: TestOutcome | undefined, key: string): string {
  if (!t) return `<li><code>${escapeHtml(key)}</code></li>`;
  // The start shows the setup, the end shows the failure (polling tests make many exchanges).
  const half = HTML_MAX_EXCHANGES_PER_TEST / 2;
  const tooMany = t.evidence.length > HTML_MAX_EXCHANGES_PER_TEST;
  const head = tooMany ? t.evidence.slice(0, half) : t.evidence;
  const tail = tooMany ? t.evidence.slice(-half) : [];
  const hidden = t.evidence.length - head.length - tail.length + t.droppedEvidence;
  return `<li class="t-${escapeHtml(t.state)}"><span class="badge ${escapeHtml(t.state)}">${escapeHtml(t.state)}</span> ${escapeHtml(
    t.name,
  )} <span class="file">${escapeHtml(t.file)}</span> <span class="ms">${escapeHtml(Math.round(t.durationMs))} ms</span>
${t.errors.map((e) => `<pre class="err">${escapeHtml(cut(e, 4_000))}</pre>`).join('')}
${t.observations.length ? `<ul class="obs">${t.observations.map((o) => `<li>${escapeHtml(cut(o, 1_000))}</li>`).join('')}</ul>` : ''}
${head.map(renderExchange).join('\n')}${hidden > 0 ? `<p class="more">${hidden} more exchanges not shown.</p>` : ''}${tail
  .map(renderExchange)
  .join('\n')}</li>`;
}

/** The commands that show a failure again (src/report/reproduction.ts); secrets as shell variables. */
function renderReproduction(r: ReportedRequirement): string {
  const repro = r.reproduction;
  if (!repro) return '';
  const ws = repro.websocket.length
    ? `<p>Websocket requests sent (replay: <code>SPEAK_WS_URL=… node repro/${escapeHtml(r.id)}.mjs</code>):</p><pre class="repro">${escapeHtml(repro.websocket.join('\n'))}</pre><p>Transcript:</p><pre class="repro">${escapeHtml(repro.transcript.join('\n'))}</pre>`
    : '';
  const curl = repro.curl.length ? `<pre class="repro">${escapeHtml(repro.curl.join('\n'))}</pre>` : '';
  const notes = repro.notes.length
    ? `<ul>${repro.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`
    : '';
  return `<div class="repro"><b>Reproduction</b> (set <code>SPEAK_TOKEN</code> first)${curl}${ws}${notes}</div>`;
}

// overflow-wrap: a server's unbroken tokens (URLs, bodies, messages) wrap instead of widening the page.
const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 2rem;color:#1b1f24;overflow-wrap:anywhere}
h1{font-size:1.5rem}table.sum{border-collapse:collapse}table.sum td,table.sum th{border:1px solid #ccd;padding:.3rem .7rem;text-align:right}
.bar{position:sticky;top:0;background:#fff;padding:.5rem 0;border-bottom:1px solid #ddd;z-index:1}
details.req{border:1px solid #dde;border-radius:6px;margin:.35rem 0;padding:.3rem .6rem}
details.req>summary{cursor:pointer}details.req[hidden]{display:none}
.badge{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;padding:0 .3rem;font-size:.8rem;color:#fff}
.passed{background:#1a7f37}.failed{background:#cf222e}.blocked{background:#9a6700}.skipped{background:#6e7781}.info{background:#0969da}.not-concluded{background:#8250df}.expected-failure{background:#bc4c00}.non-strict{background:#bf8700}.not-applicable{background:#8c959f}.harness-error{background:#24292f}
.jbar{display:inline-block;width:8rem;height:.7rem;background:#d0d7de;vertical-align:middle}.jbar>i{display:block;height:100%;background:#1a7f37}table.jar td{padding:.1rem .5rem}
.lvl{font-size:.75rem;border:1px solid #999;border-radius:3px;padding:0 .25rem}.msg{color:#444}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:.4rem;border-radius:4px;max-height:24rem;overflow:auto}
pre.err,.err{color:#a40e26}.file,.ms{color:#777;font-size:.8rem}.ex{margin:.2rem 0 .2rem 1rem}.spec{background:#fffbe6;padding:.4rem}`;

const JS = `(function(){var a=document.getElementById('f-area'),s=document.getElementById('f-status'),q=document.getElementById('f-text');
function apply(){var n=0;document.querySelectorAll('details.req').forEach(function(d){var ok=(!a.value||d.dataset.area===a.value)&&(!s.value||d.dataset.status===s.value)&&(!q.value||d.textContent.toLowerCase().indexOf(q.value.toLowerCase())>=0);d.hidden=!ok;if(ok)n++});document.getElementById('f-count').textContent=n+' shown'}
a.onchange=s.onchange=apply;q.oninput=apply;apply()})();`;

/** The security area's counts, apart from the contract's (src/run/summary-table.ts securityLine). */
function securityHtml(report: ConformanceReport): string {
  const line = securityLine(report.requirements, report.run.profile);
  return line ? `<p class="security"><b>Security</b>${escapeHtml(line.replace(/^security/, ''))}</p>\n` : '';
}

export function renderHtml(report: ConformanceReport): string {
  const { summary, run } = report;
  const tests = new Map(report.tests.map((t) => [t.key, t]));
  const areas = [...new Set(report.requirements.map((r) => r.area))];
  const verdict = verdictOf(run);
  const rows = report.requirements
    .map(
      (r) => `<details class="req" data-area="${escapeHtml(r.area)}" data-status="${escapeHtml(r.status)}">
<summary><span class="badge ${escapeHtml(r.status)}">${escapeHtml(r.status)}</span> <b>${escapeHtml(r.id)}</b> <span class="lvl">${escapeHtml(
        r.level,
      )}</span> <span class="msg">${escapeHtml(cut(r.message, 300))}</span></summary>
<p class="spec"><b>${escapeHtml(r.source)} · ${escapeHtml(r.section)}</b><br>${escapeHtml(r.text)}${groundingLines(
        r,
      )
        .map(
          (g) =>
            `<br><q class="quote">${escapeHtml(g.quote)}</q> <span class="file">(${
              g.url ? `<a href="${escapeHtml(g.url)}">${escapeHtml(g.source)}</a>` : escapeHtml(g.source)
            })</span>`,
        )
        .join('')}</p>
<p>${r.status === 'blocked' ? '<b>Blocked, not judged</b> (a step before its checks failed; a blocked MUST or SHOULD counts against conformance): ' : r.status === 'expected-failure' ? '<b>Expected failure</b> (listed in the expect file; does not gate the run): ' : ''}${escapeHtml(cut(r.message, 4_000))}</p>
${r.notJudged ? `<p><b>Not judged</b> (${escapeHtml(r.notJudged.status)}). What would judge it: ${escapeHtml(r.notJudged.wouldJudgeIt)}</p>` : ''}
${renderReproduction(r)}
${r.tests.length ? `<ul>${r.tests.map((k) => renderTest(tests.get(k), k)).join('\n')}</ul>` : '<p><i>No test covers this requirement.</i></p>'}
</details>`,
    )
    .join('\n');
  const problems =
    report.problems.length || run.errors.length
      ? `<h2>Problems of the run itself</h2><ul>${report.problems
          .map((p) => `<li><code>${escapeHtml(p.where)}</code>: ${escapeHtml(cut(p.message, 2_000))}</li>`)
          .join('')}${run.errors.map((e) => `<li>${escapeHtml(cut(e, 2_000))}</li>`).join('')}</ul>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Speak v1 conformance: ${escapeHtml(verdict)}</title><style>${CSS}</style></head><body>
<h1>Speak v1 conformance report: ${escapeHtml(verdict)}</h1>
<p>Server <code>${escapeHtml(run.baseUrl)}</code> (${escapeHtml(run.target)})${
    run.serverVersion === undefined ? '' : `, /version <code>${escapeHtml(run.serverVersion)}</code>`
  }; speakcheck ${escapeHtml(run.harness)}; profile ${escapeHtml(run.profile)}${escapeHtml(
    selectionText(run),
  )}; run ${escapeHtml(run.runId)} from ${escapeHtml(run.startedAt)} to ${escapeHtml(run.finishedAt)}; exit code ${escapeHtml(
    run.exitCode,
  )}; ${escapeHtml(summary.characters)} characters synthesized.</p>
<table class="sum"><tr><th>Requirements</th><th>Passed</th><th>Failed</th><th>Blocked</th><th>Expected failures</th><th>Skipped</th><th>Info</th><th>Uncovered</th><th>MUST failed</th><th>SHOULD failed</th><th>MUST / SHOULD blocked</th><th>Tests passed / failed / skipped</th></tr>
<tr><td>${summary.requirements}</td><td>${summary.passed}</td><td>${summary.failed}</td><td>${summary.blocked}</td><td>${summary.expectedFailures ?? 0}</td><td>${summary.skipped}</td><td>${summary.info}</td><td>${summary.uncovered}</td><td>${summary.mustFailed}</td><td>${summary.shouldFailed}</td><td>${summary.mustBlocked} / ${summary.shouldBlocked}</td><td>${summary.tests.passed} / ${summary.tests.failed} / ${summary.tests.skipped}</td></tr></table>
${summary.judged ? `<p><b>${escapeHtml(judgedText(summary.judged))}</b></p>` : ''}${judgedPerArea(report)}
${securityHtml(report)}${problems}${notJudgedHtml(report)}${expectHtml(run.expect)}
<div class="bar">Area <select id="f-area"><option value="">all</option>${areas
    .map((a) => `<option>${escapeHtml(a)}</option>`)
    .join(
      '',
    )}</select> Verdict <select id="f-status"><option value="">all</option><option>failed</option><option>blocked</option><option>expected-failure</option><option>non-strict</option><option>not-applicable</option><option>harness-error</option><option>passed</option><option>info</option><option>skipped</option><option>not-concluded</option></select>
Search <input id="f-text" type="search"> <span id="f-count"></span></div>
${rows}
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
    const gated = report.requirements.filter((r) => r.area === area && r.level !== 'INFO');
    const judged = gated.filter((r) => r.notJudged === undefined).length;
    const pct = gated.length === 0 ? 100 : Math.round((100 * judged) / gated.length);
    const open = gated.length - judged;
    return `<tr><td>${escapeHtml(area)}</td><td><span class="jbar" title="${pct}% judged"><i style="width:${pct}%"></i></span></td><td>${judged}/${gated.length} judged${open > 0 ? `, <b>${open} not</b>` : ''}</td></tr>`;
  });
  return `<table class="jar"><caption>MUST and SHOULD judged per area</caption>${rows.join('')}</table>`;
}

/** The MUSTs and SHOULDs without a verdict, each with what would judge it (empty when none). */
function notJudgedHtml(report: ConformanceReport): string {
  const open = notJudgedList(report.requirements);
  if (open.length === 0) return '';
  const items = open.map(
    (r) =>
      `<li><b>${escapeHtml(r.id)}</b> <span class="lvl">${escapeHtml(r.level)}</span> ${escapeHtml(r.notJudged!.status)}: ${escapeHtml(cut(r.notJudged!.reason, 600))}<br>What would judge it: ${escapeHtml(r.notJudged!.wouldJudgeIt)}</li>`,
  );
  return `<h2>Not judged (${open.length}): no verdict either way</h2><ul>${items.join('')}</ul>`;
}
