/** conformance.md: the summary and every verdict, readable in a pull request or a terminal. */

import { isBlocked, isFailed, isGatingFailure, isHarnessBug, isUnconcluded } from '../verdict/standing.ts';
import { judgedText, notJudgedList } from '../verdict/verdict.ts';
import { groundingLines } from './grounding.ts';
import { type ConformanceReport, selectionText, targetWords } from './model.ts';
import { REPRODUCTION_USAGE } from './reproduction.ts';
import { notJudgedStatus, securityLine } from './summary-table.ts';
import { verdictDetail, verdictWords } from './verdict-line.ts';

const ICON: Record<string, string> = {
  passed: '✅',
  failed: '❌',
  blocked: '⛔',
  skipped: '⏭️',
  info: 'ℹ️',
  'not-concluded': '⏳',
  'expected-failure': '🔶',
  'non-strict': '⚠️',
  'not-applicable': '➖',
  'not-observed': '👁️',
  'harness-error': '🐞',
};

/**
 * A table cell: no line breaks, no pipes, no raw HTML, and escapes only where markdown needs them
 * (issue 41): inside a code span markdown shows every character as it is, so `&lt;` there is read
 * literally (GitHub showed `Bearer &lt;ACCESS_TOKEN&gt;`); only the table's pipe is escaped there.
 * Outside, only what would open markup: `<` before a tag's first character, `&` of an entity.
 */
export function mdCell(text: string, max = 400): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max)}…` : flat;
  return cut
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? part : escapeMarkup(part)).replace(/\|/g, '\\|'))
    .join('')
    .replace(/^>/, '\\>');
}

/** Text outside a code span: `<` that could start a tag, comment or autolink, `&` of an entity. */
function escapeMarkup(text: string): string {
  return text.replace(/&(?=#?\w+;)/g, '&amp;').replace(/<(?=[A-Za-z/!?])/g, '&lt;');
}

export function renderMarkdown(report: ConformanceReport): string {
  const { summary, run } = report;
  const lines: string[] = [];
  lines.push('# Speak v1 conformance report', '');
  lines.push(
    `- Server: ${mdCell(run.baseUrl)} (${targetWords(run.target)})${run.serverVersion === undefined ? '' : `, /version ${mdCell(run.serverVersion)}`}`,
  );
  lines.push(`- speakcheck ${mdCell(run.harness)}`);
  lines.push(`- Profile: ${run.profile}${mdCell(selectionText(run))}`);
  lines.push(
    `- Run ${run.runId}: ${run.startedAt} → ${run.finishedAt} (${(run.durationMs / 1000).toFixed(1)} s)`,
  );
  // The same sentence as the terminal's verdict line (the gate's reasons, MUSTs first); the words bold.
  const detail = verdictDetail(run);
  lines.push(`- Verdict: **${mdCell(verdictWords(run))}**${detail ? ` (${mdCell(detail)})` : ''}`);
  if (summary.judged) lines.push(`- ${judgedText(summary.judged)}`);
  const notConcluded = report.requirements.filter(isUnconcluded).length;
  if (notConcluded > 0)
    lines.push(`- Not concluded (timeout): ${notConcluded} requirement(s): the run was stopped`);
  const security = securityLine(report.requirements, run.profile);
  if (security) lines.push(`- ${mdCell(security.replace(/^security/, 'Security'))}`);
  lines.push(`- Characters synthesized: ${summary.characters}`, '');
  lines.push(
    '| Requirements | Passed | Failed | Blocked | Expected failures | Skipped | Info | Uncovered | MUST failed | SHOULD failed | MUST blocked | SHOULD blocked |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  lines.push(
    `| ${summary.requirements} | ${summary.passed} | ${summary.failed} | ${summary.blocked} | ${summary.expectedFailures ?? 0} | ${summary.skipped} | ${summary.info} | ${summary.uncovered} | ${summary.mustFailed} | ${summary.shouldFailed} | ${summary.mustBlocked} | ${summary.shouldBlocked} |`,
    '',
  );

  const failed = report.requirements.filter((r) => isFailed(r) && isGatingFailure(r, run.profile));
  if (failed.length > 0) {
    lines.push('## Failed', '', '| Id | Level | Section | What went wrong |', '|---|---|---|---|');
    for (const r of failed)
      lines.push(`| ${r.id} | ${r.level} | ${mdCell(r.section)} | ${mdCell(r.message)} |`);
    lines.push('');
  }
  lines.push(...reproductionSection(report));
  const blocked = report.requirements.filter((r) => isBlocked(r) && !r.expected);
  if (blocked.length > 0) {
    lines.push(
      '## Blocked (not judged: a step before their checks failed; a blocked MUST does not conform)',
      '',
      '| Id | Level | Section | Blocked by |',
      '|---|---|---|---|',
    );
    for (const r of blocked)
      lines.push(`| ${r.id} | ${r.level} | ${mdCell(r.section)} | ${mdCell(r.message)} |`);
    lines.push('');
  }
  lines.push(...notJudgedMarkdown(report));
  lines.push(...expectMarkdown(report));
  const harness = report.requirements.filter(isHarnessBug);
  if (harness.length > 0) {
    lines.push(
      '## Harness errors (a bug of speakcheck, not of the server: please report it; exit 3)',
      '',
      '| Id | Level | What broke |',
      '|---|---|---|',
    );
    for (const r of harness) lines.push(`| ${r.id} | ${r.level} | ${mdCell(r.message)} |`);
    lines.push('');
  }
  if (report.problems.length > 0 || run.errors.length > 0) {
    lines.push('## Problems of the run itself', '');
    for (const p of report.problems) lines.push(`- ${mdCell(p.where)}: ${mdCell(p.message)}`);
    for (const e of run.errors) lines.push(`- ${mdCell(e)}`);
    lines.push('');
  }

  const areas = [...new Set(report.requirements.map((r) => r.area))];
  lines.push('## All requirements', '');
  for (const area of areas) {
    lines.push(
      `### ${area}`,
      '',
      '| | Id | Level | Requirement | Grounded on (speak-v1.md, or a named standard) | Result |',
      '|---|---|---|---|---|---|',
    );
    for (const r of report.requirements.filter((x) => x.area === area)) {
      const quote = groundingLines(r)
        .map((g) => `${g.source === 'speak-v1.md' ? '' : `${g.source}: `}“${mdCell(g.quote, 300)}”`)
        .join(' ');
      lines.push(
        `| ${ICON[r.status] ?? ''} | ${r.id} | ${r.level} | ${mdCell(r.text, 500)} | ${quote} | ${mdCell(r.message, 300)} |`,
      );
    }
    lines.push('');
  }
  if (report.uncovered.length > 0) {
    lines.push('## Not covered by any test', '', report.uncovered.map((id) => `\`${id}\``).join(', '), '');
  }
  return `${lines.join('\n')}\n`;
}

/** Every MUST and SHOULD without a verdict: why, and what would judge it. */
function notJudgedMarkdown(report: ConformanceReport): string[] {
  const open = notJudgedList(report.requirements);
  if (open.length === 0) return [];
  const lines = [
    `## Not judged (${open.length}): no verdict either way; CONFORMS needs them judged`,
    '',
    '| Id | Level | Status | Why | What would judge it |',
    '|---|---|---|---|---|',
  ];
  for (const r of open)
    lines.push(
      `| ${r.id} | ${r.level} | ${notJudgedStatus(r)} | ${mdCell(r.notJudged?.reason ?? r.message, 300)} | ${mdCell(r.notJudged?.wouldJudgeIt ?? '', 300)} |`,
    );
  lines.push('');
  return lines;
}

/** Expected failures apart (with their original failure), unexpected passes and expired entries. */
function expectMarkdown(report: ConformanceReport): string[] {
  const { expect } = report.run;
  if (!expect) return [];
  const lines = [`## Expected failures (${mdCell(expect.file)})`, ''];
  for (const e of expect.unexpectedPasses)
    lines.push(`- **Unexpected pass: ${e.requirement}** passed: remove it from ${mdCell(expect.file)}`);
  for (const e of expect.expired)
    lines.push(
      `- **Expired: ${e.requirement}** expired on ${e.expires ?? ''} (the run fails): fix it, or renew or remove the entry`,
    );
  if (expect.unexpectedPasses.length + expect.expired.length > 0) lines.push('');
  const expected = report.requirements.filter((r) => r.expected !== undefined);
  if (expected.length > 0) {
    lines.push('| Id | Level | Section | Expected; what went wrong |', '|---|---|---|---|');
    for (const r of expected)
      lines.push(`| ${r.id} | ${r.level} | ${mdCell(r.section)} | ${mdCell(r.message)} |`);
  } else lines.push("None of this run's failures is listed.");
  lines.push('');
  return lines;
}

/** "Reading a failure": per failed requirement the commands that show the failure again. */
function reproductionSection(report: ConformanceReport): string[] {
  const failed = report.requirements.filter((r) => r.reproduction);
  if (failed.length === 0) return [];
  const lines = ['## Reproduction', '', `${REPRODUCTION_USAGE} Secrets are never written here.`, ''];
  for (const r of failed) {
    const repro = r.reproduction!;
    lines.push(`### ${r.id}`, '');
    if (repro.curl.length > 0) lines.push('```sh', ...repro.curl, '```', '');
    if (repro.websocket.length > 0)
      lines.push(
        `Websocket requests sent (replay: \`SPEAK_WS_URL=… node repro/${r.id}.mjs\`):`,
        '',
        '```json',
        ...repro.websocket,
        '```',
        '',
        'Transcript:',
        '',
        ...repro.transcript.map((line) => `- ${mdCell(line, 600)}`),
        '',
      );
    if (repro.curl.length === 0 && repro.websocket.length === 0) lines.push('No exchange was recorded.', '');
    for (const note of repro.notes) lines.push(`- ${mdCell(note)}`);
    if (repro.notes.length > 0) lines.push('');
  }
  return lines;
}
