/**
 * The sdk profile: every wire fact it judges rests on a sentence of wire-facts.md (found there,
 * markdown aside), names an INFO requirement of the catalogue, and is SHOULD in that profile only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { catalogue, findRequirement } from '../../src/requirements/index.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';
import { gate } from '../../src/verdict/gate.ts';
import { inProfile, SDK_WIRE_FACTS } from '../../src/verdict/sdk-profile.ts';
import { computeVerdicts } from '../../src/verdict/verdict.ts';
import { testOutcome } from '../support/test-outcome.ts';

const plain = (text: string) =>
  text.replace(/\*\*/g, '').replace(/`/g, '').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
const WIRE_FACTS = plain(readFileSync(join(REPO_ROOT, 'spec', 'wire-facts.md'), 'utf8'));

describe('sdk profile', () => {
  test.each(Object.entries(SDK_WIRE_FACTS))('%s quotes wire-facts.md and is INFO elsewhere', (id, quote) => {
    expect(WIRE_FACTS, `${id}: its quote is not in wire-facts.md`).toContain(plain(quote));
    const requirement = findRequirement(id);
    expect(requirement?.level).toBe('INFO');
    expect(inProfile(requirement!, 'strict').level).toBe('INFO');
    expect(inProfile(requirement!, 'sdk')).toMatchObject({ level: 'SHOULD', quote });
  });

  test('a failed wire fact gates the sdk profile only', () => {
    const failed = testOutcome('suites/takes.spec.ts > batch', 'failed', ['TAKE-BATCH'], {
      errors: ['batch answer texts (same order)'],
    });
    const strict = computeVerdicts(catalogue, [failed], { requirements: ['TAKE-BATCH'], profile: 'strict' });
    expect(strict.requirements[0]!.status).toBe('info');
    expect(gate(strict, 'strict').exitCode).toBe(0);
    const sdk = computeVerdicts(catalogue, [failed], { requirements: ['TAKE-BATCH'], profile: 'sdk' });
    expect(sdk.requirements[0]).toMatchObject({ status: 'failed', level: 'SHOULD' });
    expect(gate(sdk, 'sdk').exitCode).toBe(1);
  });
});
