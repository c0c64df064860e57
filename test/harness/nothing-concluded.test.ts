/**
 * A test that concluded nothing (issue 48) concludes "not observed" for every id it covers, never
 * "held" — whether it returned before it reached the server or after its exchanges: a pass is an
 * observation a check made, so an early `return` added to a test later cannot pass a MUST. A test
 * that concluded some ids leaves the rest not observed.
 *
 * The covers() tests of the last block run first (a file's tests run in order); its last test reads
 * what each left in its task meta, and what the fold makes of it.
 */
import { describe, expect, type RunnerTestCase, test, vi } from 'vitest';
import { type EvidenceEntry, evidenceFor, recordEvidence } from '../../src/evidence/evidence.ts';
import { check } from '../../src/harness/check.ts';
import { concludeFinished, covers, observe } from '../../src/harness/covers.ts';
import { catalogue, type RequirementId } from '../../src/requirements/index.ts';
import type { Conclusions } from '../../src/verdict/conclusion.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { testOutcome } from '../support/test-outcome.ts';

// Allure labels are a reporting aid with no Allure runtime here (it would only print that it has none).
vi.mock('allure-js-commons');

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

  test('that made exchanges: still not observed for each id, never held', () => {
    const conclusions: Conclusions = {};
    concludeFinished(['DOCS-OPENAPI-VALID'], conclusions, exchange);
    expect(conclusions['DOCS-OPENAPI-VALID']).toEqual([
      expect.objectContaining({ kind: 'not-observed', reason: expect.stringMatching(/without a check/) }),
    ]);
  });

  test('a test that concluded some ids leaves the others not observed', () => {
    const conclusions: Conclusions = { 'DOCS-OPENAPI-VALID': [{ kind: 'held' }] };
    concludeFinished(['DOCS-OPENAPI-VALID', 'DOCS-OPENAPI-PATHS'], conclusions, exchange);
    expect(conclusions['DOCS-OPENAPI-PATHS']![0]!.kind).toBe('not-observed');
  });
});

const [MUST] = catalogue.filter((r) => r.level === 'MUST').map((r) => r.id) as [RequirementId];

/** What a client records for one exchange with the server (src/client/ does this for every request). */
function anExchange(): void {
  recordEvidence(
    evidenceFor({
      method: 'GET',
      url: 'http://127.0.0.1:1/v1/speak/models',
      requestHeaders: {},
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('[]'),
      ms: 1,
    }),
  );
}

describe('covers(): an early return after exchanges', () => {
  covers([MUST], 'returns before its check', () => {
    anExchange();
    observe('test.models', 'the models answered {status}', { values: { status: 200 } });
    // An early `return` added later, before the check below could run.
    const early = true;
    if (early) return;
    check(MUST, () => undefined);
  });

  covers([MUST], 'reaches its check', () => {
    anExchange();
    check(MUST, () => undefined);
  });

  test('concludes not observed, and the MUST is not judged; the test that reached its check held', ({
    task,
  }) => {
    const byName = (name: string) => {
      const found = task.suite?.tasks.find((t) => t.name === name) as RunnerTestCase | undefined;
      expect(found?.result?.state, name).toBe('pass');
      return found!.meta;
    };
    const early = byName('returns before its check');
    expect(early.evidence).toHaveLength(1);
    expect(early.conclusions).toEqual({
      [MUST]: [expect.objectContaining({ kind: 'not-observed' })],
    });
    expect(byName('reaches its check').conclusions).toEqual({ [MUST]: [{ kind: 'held' }] });

    const requirement = catalogue.filter((r) => r.id === MUST);
    const v = computeVerdicts(requirement, [
      testOutcome('returns before its check', 'passed', [MUST], { conclusions: early.conclusions! }),
    ]);
    expect(v.requirements[0]).toMatchObject({ status: 'not-observed' });
    expect(v.summary.judged.mustJudged).toBe(0);
  });
});
