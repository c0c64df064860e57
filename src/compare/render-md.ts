/**
 * compare.md: the comparison for a CI job summary or a release note. The runs' headers as one table,
 * then one line per changed requirement (worst first), then how many stayed the same. The matrix of
 * every requirement is compare.html's; the markdown names only what changed.
 */
import type { Comparison } from './diff.ts';
import {
  changedCounts,
  changeFinding,
  changeText,
  headerFacts,
  outcomeLine,
  regressionWord,
} from './words.ts';

/** A table cell: no pipe or line break may end the cell early. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

export function renderCompareMarkdown(c: Comparison): string {
  const names = c.runs.map((r, i) => (i === 0 ? `${r.label} (baseline)` : r.label));
  const facts = c.runs.map(headerFacts);
  const header = [
    `| | ${names.map(cell).join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...facts[0]!.map(
      ([label], row) => `| ${cell(label)} | ${facts.map((f) => cell(f[row]![1])).join(' | ')} |`,
    ),
  ];
  const lines = c.changed.flatMap((row) =>
    row.changes.map((change) => {
      const run = c.runs[change.run]!;
      const finding = changeFinding(row, change);
      const mark = change.regression ? ` **${regressionWord(c.servers)}**` : '';
      return `- **${row.id}** (${row.level}, ${row.area}), ${run.label}: ${changeText(change, c.servers)}${mark}${finding ? ` — ${finding}` : ''}`;
    }),
  );
  const steady = c.rows.length - c.changed.length;
  return `${[
    `# Speak v1 conformance: ${c.runs.length} runs compared`,
    '',
    `**${outcomeLine(c)}**`,
    '',
    ...header,
    '',
    `## Changed against the baseline`,
    '',
    changedCounts(c),
    '',
    ...(lines.length ? [...lines, ''] : []),
    `${steady} requirement(s) the same in every run (compare.html lists every requirement).`,
  ].join('\n')}\n`;
}
