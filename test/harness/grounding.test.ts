/**
 * Fair: every MUST and SHOULD rests on a sentence of speak-v1.md that requires it. Each carries that
 * sentence (or table row) verbatim as its `quote`, and this finds each one in the contract (markdown
 * emphasis, backticks and table pipes aside, whitespace normalised). A requirement without one is
 * INFO; a quote for an INFO requirement (or an unknown id) is a leftover.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { QUOTES } from '../../src/requirements/catalogue/grounding.ts';
import { catalogue } from '../../src/requirements/index.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const SPEC = readFileSync(join(REPO_ROOT, '..', 'shared', 'spec', 'speak-v1.md'), 'utf8');

/** Markdown to plain words: `**bold**`, `code` and table pipes go, whitespace collapses. */
function plain(text: string): string {
  return text.replace(/\*\*/g, '').replace(/`/g, '').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
}

const spec = plain(SPEC);
// A requirement grounded on a named standard only (the security area: OWASP API Security Top 10
// 2023) carries that standard's words; the rest quote speak-v1.md.
const judged = catalogue.filter((r) => r.level !== 'INFO' && !(r.standards && r.quote === undefined));
const onStandards = catalogue.filter((r) => r.standards !== undefined);

describe('grounding: every MUST and SHOULD quotes speak-v1.md', () => {
  test.each(judged.map((r) => [r.id, r] as const))('%s', (_id, r) => {
    expect(r.quote, `${r.id} (${r.level}) has no quote: ground it in speak-v1.md or make it INFO`).toBeTypeOf(
      'string',
    );
    expect(spec, `${r.id}: its quote is not in speak-v1.md`).toContain(plain(r.quote!));
  });

  test.each(onStandards.map((r) => [r.id, r] as const))('%s quotes its named standard', (_id, r) => {
    for (const g of r.standards!) {
      expect(g.name, `${r.id} names its standard with its year`).toMatch(/\b20\d\d\b/);
      expect(g.clause.trim(), `${r.id} names the clause`).not.toBe('');
      expect(g.url, `${r.id}: where to read it`).toMatch(/^https:\/\//);
      expect(g.quote.split(/\s+/).length, `${r.id} carries the standard's words`).toBeGreaterThanOrEqual(5);
    }
  });

  test('quotes belong to judged requirements only', () => {
    const judgedIds = new Set(judged.map((r) => r.id));
    expect(Object.keys(QUOTES).filter((id) => !judgedIds.has(id))).toEqual([]);
  });

  test('the normalisation keeps the words: a sentence not in the contract is not found', () => {
    expect(spec).toContain(plain('A failed login returns status 401.'));
    expect(spec).not.toContain(plain('A failed login returns status 403.'));
    expect(spec).toContain(plain('| length | integer | Page size. |'));
  });
});
