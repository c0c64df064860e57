/** conformance.md: the summary and every verdict, readable in a pull request or a terminal. */
import { type ConformanceReport, selectionText } from './model.ts';

const ICON: Record<string, string> = {
  passed: '✅',
  failed: '❌',
  blocked: '⛔',
  skipped: '⏭️',
  info: 'ℹ️',
  'not-concluded': '⏳',
};

/** A table cell: no line breaks, no pipes, no raw HTML (markdown viewers render it). */
export function mdCell(text: string, max = 400): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max)}…` : flat;
  return cut.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');
}

export function renderMarkdown(report: ConformanceReport): string {
  const { summary, run } = report;
  const lines: string[] = [];
  lines.push('# Speak v1 conformance report', '');
  lines.push(
    `- Server: ${mdCell(run.baseUrl)} (${run.target})${run.serverVersion === undefined ? '' : `, /version ${mdCell(run.serverVersion)}`}`,
  );
  lines.push(`- speakcheck ${mdCell(run.harness)}`);
  lines.push(`- Profile: ${run.profile}${mdCell(selectionText(run))}`);
  lines.push(
    `- Run ${run.runId}: ${run.startedAt} → ${run.finishedAt} (${(run.durationMs / 1000).toFixed(1)} s)`,
  );
  lines.push(
    `- Verdict: **${run.exitCode === 0 ? 'conforms' : 'does not conform'}** (exit code ${run.exitCode})`,
  );
  if (summary.notConcluded > 0)
    lines.push(`- Not concluded (timeout): ${summary.notConcluded} requirement(s): the run was stopped`);
  lines.push(`- Characters synthesized: ${summary.characters}`, '');
  lines.push(
    '| Requirements | Passed | Failed | Blocked | Skipped | Info | Uncovered | MUST failed | SHOULD failed | MUST blocked | SHOULD blocked |',
  );
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  lines.push(
    `| ${summary.requirements} | ${summary.passed} | ${summary.failed} | ${summary.blocked} | ${summary.skipped} | ${summary.info} | ${summary.uncovered} | ${summary.mustFailed} | ${summary.shouldFailed} | ${summary.mustBlocked} | ${summary.shouldBlocked} |`,
    '',
  );

  const failed = report.requirements.filter((r) => r.status === 'failed');
  if (failed.length > 0) {
    lines.push('## Failed', '', '| Id | Level | Section | What went wrong |', '|---|---|---|---|');
    for (const r of failed)
      lines.push(`| ${r.id} | ${r.level} | ${mdCell(r.section)} | ${mdCell(r.message)} |`);
    lines.push('');
  }
  lines.push(...reproductionSection(report));
  const blocked = report.requirements.filter((r) => r.status === 'blocked');
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
      '| | Id | Level | Requirement | speak-v1.md says | Result |',
      '|---|---|---|---|---|---|',
    );
    for (const r of report.requirements.filter((x) => x.area === area)) {
      const quote = r.quote ? `“${mdCell(r.quote, 300)}”` : '';
      lines.push(
        `| ${ICON[r.status] ?? ''} | ${r.id} | ${r.level} | ${mdCell(r.text, 200)} | ${quote} | ${mdCell(r.message, 300)} |`,
      );
    }
    lines.push('');
  }
  if (report.uncovered.length > 0) {
    lines.push('## Not covered by any test', '', report.uncovered.map((id) => `\`${id}\``).join(', '), '');
  }
  return `${lines.join('\n')}\n`;
}

/** "Reading a failure": per failed requirement the commands that show the failure again. */
function reproductionSection(report: ConformanceReport): string[] {
  const failed = report.requirements.filter((r) => r.reproduction);
  if (failed.length === 0) return [];
  const lines = [
    '## Reproduction',
    '',
    'Set `SPEAK_TOKEN` (or `SPEAK_PASSWORD` / `SPEAK_REFRESH_TOKEN` where a command uses them) first; secrets are never written here.',
    '',
  ];
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
