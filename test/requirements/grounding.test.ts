/**
 * Fair: every MUST and SHOULD rests on a sentence of speak-v1.md that requires it, or on a named
 * external standard in its own words (src/requirements/grounding-rule.ts). Each quote is found in
 * the contract (markdown emphasis, backticks and table pipes aside, whitespace normalised); a quote
 * that leaves the matter open ("not shown") grounds nothing, and a MUST or SHOULD sourced from the
 * wire facts is refused. The rule is proven on fabricated bad requirements first, so a catalogue
 * that passes it passes a rule that can fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RFC_9110_CLIENT_ERROR } from '../../src/requirements/catalogue/standards.ts';
import { groundingProblems, plainWords } from '../../src/requirements/grounding-rule.ts';
import { catalogue, type Requirement } from '../../src/requirements/index.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import { fabricated } from '../support/fabricated-id.ts';

const SPEC = readFileSync(join(REPO_ROOT, 'spec', 'speak-v1.md'), 'utf8');

const judged = catalogue.filter((r) => r.level !== 'INFO');

/** A well-grounded MUST to break one way at a time. */
const GOOD: Requirement = {
  id: fabricated('TEST-GOOD'),
  area: 'auth',
  section: 'Authentication 2',
  level: 'MUST',
  source: 'speak-v1',
  text: 'A failed login returns status 401.',
  quote: 'A failed login returns status 401.',
};

describe('the grounding rule refuses what cannot ground a verdict', () => {
  test('a well-grounded MUST passes', () => {
    expect(groundingProblems(GOOD, SPEC)).toEqual([]);
    expect(
      groundingProblems({ ...GOOD, quote: undefined, standards: [RFC_9110_CLIENT_ERROR] }, SPEC),
    ).toEqual([]);
  });

  test('a quote containing "not shown" is refused, though it is verbatim in the contract', () => {
    const leftOpen =
      'Other status codes, codes per condition, and the error for unknown identifiers or invalid bodies: not shown.';
    expect(plainWords(SPEC)).toContain(plainWords(leftOpen));
    const problems = groundingProblems({ ...GOOD, quote: leftOpen }, SPEC);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('not shown');
  });

  test('a MUST or SHOULD sourced from the wire facts is refused, whatever it quotes', () => {
    for (const level of ['MUST', 'SHOULD'] as const) {
      const problems = groundingProblems({ ...GOOD, level, source: 'wire-facts' }, SPEC);
      expect(problems, level).toHaveLength(1);
      expect(problems[0]).toContain('wire facts');
    }
    // The same statement as INFO is fine: the wire facts are reported, never judged.
    expect(
      groundingProblems({ ...GOOD, level: 'INFO', source: 'wire-facts', quote: undefined }, SPEC),
    ).toEqual([]);
  });

  test('a MUST without grounding, or with a quote the contract does not hold, is refused', () => {
    expect(groundingProblems({ ...GOOD, quote: undefined }, SPEC)[0]).toContain('has no grounding');
    expect(groundingProblems({ ...GOOD, quote: 'A failed login returns status 403.' }, SPEC)[0]).toContain(
      'not in speak-v1.md',
    );
  });

  test('a standard must be named, have a clause, a URL and its own words, and not leave things open', () => {
    const bad = (standard: Partial<typeof RFC_9110_CLIENT_ERROR>) =>
      groundingProblems(
        { ...GOOD, quote: undefined, standards: [{ ...RFC_9110_CLIENT_ERROR, ...standard }] },
        SPEC,
      );
    expect(bad({ name: 'wire-facts' })[0]).toContain('not a named external standard');
    expect(bad({ name: ' ' })[0]).toContain('not a named external standard');
    expect(bad({ clause: '' })[0]).toContain('names no clause');
    expect(bad({ url: '' })[0]).toContain('no https URL');
    expect(bad({ quote: '4xx means client error' })[0]).toContain('quotes no sentence');
    expect(bad({ quote: 'What a server answers to a bad body is not shown here.' })[0]).toContain(
      'not shown',
    );
  });

  test('an INFO requirement carrying a grounding is a leftover', () => {
    expect(groundingProblems({ ...GOOD, level: 'INFO' }, SPEC)[0]).toContain('leftover');
  });
});

describe('grounding: every MUST and SHOULD of the catalogue', () => {
  test.each(judged.map((r) => [r.id, r] as const))('%s', (_id, r) => {
    expect(groundingProblems(r, SPEC)).toEqual([]);
  });

  test('INFO requirements carry no grounding', () => {
    const leftovers = catalogue.filter((r) => r.level === 'INFO').flatMap((r) => groundingProblems(r, SPEC));
    expect(leftovers).toEqual([]);
  });

  test('the normalisation keeps the words: a sentence not in the contract is not found', () => {
    const spec = plainWords(SPEC);
    expect(spec).toContain(plainWords('A failed login returns status 401.'));
    expect(spec).not.toContain(plainWords('A failed login returns status 403.'));
    expect(spec).toContain(plainWords('| length | integer | Page size. |'));
  });
});
