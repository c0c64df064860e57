/**
 * Each requirement is declared once (its entry in src/requirements/catalogue/<area>.ts) and named
 * everywhere else by the RequirementId type generated from the catalogue into
 * schemas/requirement-ids.ts. The committed file must be what the catalogue makes now, or a new id
 * would not type-check and a removed one would still be accepted
 * (test/lint/requirement-ids.int.test.ts proves a misspelled id fails to compile).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REQUIREMENT_IDS } from '../../schemas/requirement-ids.ts';
import { requirementIdsSource } from '../../src/requirements/id-union.ts';
import {
  catalogue,
  declarations,
  READY_BOUND_REQUIREMENT,
  SDK_WIRE_FACTS,
} from '../../src/requirements/index.ts';

const FILE = join(import.meta.dirname, '..', '..', 'schemas', 'requirement-ids.ts');

describe('schemas/requirement-ids.ts', () => {
  test('is what the catalogue makes now (else: npm run requirements:ids)', () => {
    expect(
      readFileSync(FILE, 'utf8') === requirementIdsSource(catalogue.map((r) => r.id)),
      'schemas/requirement-ids.ts is stale: run npm run requirements:ids',
    ).toBe(true);
  });

  test('lists every catalogue id once, in catalogue order', () => {
    expect([...REQUIREMENT_IDS]).toEqual(catalogue.map((r) => r.id));
    expect(new Set(REQUIREMENT_IDS).size).toBe(REQUIREMENT_IDS.length);
  });

  test('the generator writes what it is given, so a stale file cannot pass the first test', () => {
    const source = requirementIdsSource(['AUTH-ONE', 'TAKE-TWO']);
    expect(source).toContain("  'AUTH-ONE',\n  'TAKE-TWO',\n] as const;");
    expect(source).not.toBe(requirementIdsSource(['AUTH-ONE']));
  });
});

describe('what the declarations say besides the requirement', () => {
  test('the catalogue carries the requirement only: sdk quote and ready bound are read apart', () => {
    for (const r of catalogue) {
      expect(r).not.toHaveProperty('sdkQuote');
      expect(r).not.toHaveProperty('readyBoundOf');
    }
    expect(catalogue).toHaveLength(declarations.length);
  });

  test('each kind of item has one ready bound, declared by the requirement it proves', () => {
    for (const kind of ['voice', 'take'] as const) {
      const declaring = declarations.filter((d) => d.readyBoundOf === kind).map((d) => d.id);
      expect(declaring).toEqual([READY_BOUND_REQUIREMENT[kind]]);
    }
    expect(READY_BOUND_REQUIREMENT).toEqual({ voice: 'VOICE-READY-BOUND', take: 'TAKE-READY-BOUND' });
  });

  test('the sdk wire facts are the declarations that carry an sdk quote', () => {
    const withQuote = declarations.filter((d) => d.sdkQuote !== undefined);
    expect(Object.keys(SDK_WIRE_FACTS).sort()).toEqual(withQuote.map((d) => d.id).sort());
    expect(withQuote.length).toBeGreaterThan(0);
  });
});
