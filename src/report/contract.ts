/**
 * The contract beside the verdict: speak-v1.md rendered to HTML with an anchor on every statement
 * (paragraph, list item, table row), each marked with the verdicts of the requirements that quote it.
 * A minimal renderer for exactly the constructs the contract uses (headings, tables, lists, code
 * fences, code spans, bold and italics): no dependency, and every statement keeps its source line
 * as its anchor (`#spec-L<line>`), which a general markdown library would not give us.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Standable } from '../verdict/standing.ts';
import { outcomeLabel, outcomeOf, worstOutcome } from '../verdict/words.ts';

/** Where the contract lives in the repository (spec/, as test/requirements/grounding.test.ts reads it). */
export const CONTRACT_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'spec', 'speak-v1.md');

/** The contract's markdown, or undefined when this copy has none (an image or package built without spec/). */
export function readContract(path = CONTRACT_PATH): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

export interface CitingRequirement extends Standable {
  id: string;
  quote?: string;
}

/** One anchored statement of the contract. */
export interface Statement {
  /** The anchor: `spec-L<first source line>`. */
  anchor: string;
  /** Its markdown as written. */
  raw: string;
  kind: 'paragraph' | 'item' | 'row';
}

export interface RenderedContract {
  html: string;
  /** Requirement id → the anchor of the statement its quote stands in. */
  anchors: Map<string, string>;
}

/** Markdown to plain words, as grounding.test.ts matches quotes: no emphasis, backticks, pipes. */
export function plainWords(text: string): string {
  return text.replace(/\*\*/g, '').replace(/`/g, '').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Code spans, bold and italics; everything else escaped. */
export function inlineMarkdown(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length >= 2) {
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      }
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>')
        .replace(/(^|[^\w*])\*([^*\s][^*]*)\*(?!\w)/g, '$1<i>$2</i>')
        .replace(/(^|\W)_([^_\s][^_]*)_(?!\w)/g, '$1<i>$2</i>');
    })
    .join('');
}

function slug(text: string): string {
  return `spec-${plainWords(text)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}`;
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
}

/** Which statement each requirement's quote stands in (the first that holds all its words). */
export function locateQuotes(
  statements: readonly Statement[],
  requirements: readonly CitingRequirement[],
): Map<string, string> {
  const plain = statements.map((s) => ({ anchor: s.anchor, words: plainWords(s.raw) }));
  const anchors = new Map<string, string>();
  for (const r of requirements) {
    if (!r.quote) continue;
    const quote = plainWords(r.quote);
    const hit = plain.find((s) => s.words.includes(quote));
    if (hit) anchors.set(r.id, hit.anchor);
  }
  return anchors;
}

interface Block {
  html: (mark: (s: Statement, inner: string) => string) => string;
  statements: Statement[];
}

/** Splits the markdown into blocks, each with the statements it anchors. */
export function parseContract(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const statement = (line: number, raw: string, kind: Statement['kind']): Statement => ({
    anchor: `spec-L${line + 1}`,
    raw,
    kind,
  });
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      const text = code.join('\n');
      blocks.push({ statements: [], html: () => `<pre tabindex="0">${escapeHtml(text)}</pre>` });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const text = heading[2]!;
      // h1 of the contract is h2 in the report, and so on down: the report has its own h1.
      const tag = `h${Math.min(level + 1, 6)}`;
      blocks.push({
        statements: [],
        html: () => `<${tag} id="${slug(text)}">${inlineMarkdown(text)}</${tag}>`,
      });
      i++;
      continue;
    }
    if (line.trimStart().startsWith('|')) {
      const start = i;
      const rows: string[] = [];
      for (; i < lines.length && lines[i]!.trimStart().startsWith('|'); i++) rows.push(lines[i]!);
      const [header = '', , ...body] = rows;
      const bodyStatements = body.map((row, k) => statement(start + 2 + k, row, 'row'));
      blocks.push({
        statements: bodyStatements,
        html: (mark) =>
          `<table><thead><tr>${cells(header)
            .map((c) => `<th>${inlineMarkdown(c)}</th>`)
            .join('')}</tr></thead><tbody>${bodyStatements
            .map((s) =>
              mark(
                s,
                cells(s.raw)
                  .map((c) => `<td>${inlineMarkdown(c)}</td>`)
                  .join(''),
              ),
            )
            .join('')}</tbody></table>`,
      });
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+/;
    if (item.test(line)) {
      const ordered = /\d+\./.test(item.exec(line)![2]!);
      const items: Statement[] = [];
      while (i < lines.length && lines[i]!.trim() !== '') {
        const m = item.exec(lines[i]!);
        if (m) items.push(statement(i, lines[i]!.slice(m[0].length), 'item'));
        else if (items.length) items[items.length - 1]!.raw += ` ${lines[i]!.trim()}`;
        i++;
      }
      const tag = ordered ? 'ol' : 'ul';
      blocks.push({
        statements: items,
        html: (mark) => `<${tag}>${items.map((s) => mark(s, inlineMarkdown(s.raw))).join('')}</${tag}>`,
      });
      continue;
    }
    const start = i;
    const para: string[] = [];
    for (; i < lines.length && lines[i]!.trim() !== '' && !/^(#|\||```)/.test(lines[i]!); i++) {
      para.push(lines[i]!.trim());
    }
    const s = statement(start, para.join(' '), 'paragraph');
    blocks.push({ statements: [s], html: (mark) => mark(s, inlineMarkdown(s.raw)) });
  }
  return blocks;
}

/**
 * The contract as HTML: every statement has its anchor; a statement some requirement quotes is
 * marked with the worst outcome among them and lists them, each a link back to its verdict.
 */
export function renderContract(
  markdown: string,
  requirements: readonly CitingRequirement[],
): RenderedContract {
  const blocks = parseContract(markdown);
  const anchors = locateQuotes(
    blocks.flatMap((b) => b.statements),
    requirements,
  );
  const citing = new Map<string, CitingRequirement[]>();
  for (const r of requirements) {
    const anchor = anchors.get(r.id);
    if (anchor) citing.set(anchor, [...(citing.get(anchor) ?? []), r]);
  }
  const mark = (s: Statement, inner: string): string => {
    const by = citing.get(s.anchor) ?? [];
    const tag = s.kind === 'row' ? 'tr' : s.kind === 'item' ? 'li' : 'p';
    if (by.length === 0) return `<${tag} id="${s.anchor}">${inner}</${tag}>`;
    const worst = worstOutcome(by);
    const refs = by
      .map(
        (r) =>
          `<a class="cite-ref o-${outcomeOf(r)}" href="#req-${escapeHtml(r.id)}">${escapeHtml(r.id)}: ${outcomeLabel(outcomeOf(r))}</a>`,
      )
      .join(' ');
    const note = `<span class="cites">${refs}</span>`;
    const body = s.kind === 'row' ? inner.replace(/<\/td>$/, ` ${note}</td>`) : `${inner} ${note}`;
    return `<${tag} id="${s.anchor}" class="cited o-${worst}" data-outcome="${worst}">${body}</${tag}>`;
  };
  return { html: blocks.map((b) => b.html(mark)).join('\n'), anchors };
}
