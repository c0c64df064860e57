/**
 * A test that concluded nothing (issue 48): it returned before any check and before it observed
 * anything of the server, so it concludes "not observed" for every id it covers, never "held" —
 * an early `return` added to a test later cannot pass a MUST. A test whose body made exchanges
 * with the server and returned without a failure is the check of its ids (its assertions are its
 * body); a test that concluded some ids leaves the rest not observed.
 */
import { describe, expect, test } from 'vitest';
import type { EvidenceEntry } from '../../src/evidence/evidence.ts';
import { concludeFinished } from '../../src/harness/covers.ts';
import { catalogue } from '../../src/requirements/index.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { testOutcome } from '../support/test-outcome.ts';

const nothing = { evidence: [], droppedEvidence: 0, observations: [] };
const exchange = { evidence: [{} as EvidenceEntry], droppedEvidence: 0, observations: [] };

describe('a test that concluded nothing', () => {
  test('that returned before observing anything: not observed for each id, never held', () => {
    const conclusions: Conclusions = {};
    concludeFinished(['DOCS-INTERACTIVE-HTML', 'DOCS-REDOC-HTML'], conclusions, nothing);
    for (const id of ['DOCS-INTERACTIVE-HTML', 'DOCS-REDOC-HTML']) {
      expect(conclusions[id]).toHaveLength(1);
      expect(conclusions[id]![0]!.kind).toBe('not-observed');
    }
    // And the verdict a MUST gets from it: not judged, with why.
    const docs = catalogue.filter((r) => r.id === 'DOCS-INTERACTIVE-HTML');
    const v = computeVerdicts(docs, [
      testOutcome('returned early', 'passed', ['DOCS-INTERACTIVE-HTML'], { conclusions }),
    ]);
    expect(v.requirements[0]).toMatchObject({ status: 'not-observed' });
    expect(v.requirements[0]!.notJudged?.reason).toMatch(/without a check and without an exchange/);
    expect(v.summary.judged.mustJudged).toBe(0);
  });

  test('that made exchanges and did not fail: its body is the check of its ids', () => {
    const conclusions: Conclusions = {};
    concludeFinished(['DOCS-OPENAPI-VALID'], conclusions, exchange);
    expect(conclusions['DOCS-OPENAPI-VALID']).toEqual([{ kind: 'held' }]);
  });

  test('a test that concluded some ids leaves the others not observed', () => {
    const conclusions: Conclusions = { 'DOCS-OPENAPI-VALID': [{ kind: 'held' }] };
    concludeFinished(['DOCS-OPENAPI-VALID', 'DOCS-OPENAPI-PATHS'], conclusions, exchange);
    expect(conclusions['DOCS-OPENAPI-PATHS']![0]!.kind).toBe('not-observed');
  });
});
