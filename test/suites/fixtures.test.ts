import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidTakeArb, invalidVoiceArb } from '../../fixtures/invalid-bodies.ts';
import { outOfBoundsProsodyArb, simpleProsodyArb } from '../../fixtures/prosody.ts';
import { seededFaker, sentence, textArb } from '../../fixtures/texts.ts';
import { createAjv } from '../../schemas/index.ts';

const ajv = createAjv();
const takeValid = ajv.getSchema('TakeGenerate.json')!;
const voiceValid = ajv.getSchema('VoiceGenerate.json')!;
const prosodyValid = ajv.getSchema('SimpleProsody.json')!;
const ctx = {
  voiceId: 'v1',
  model: 'm1',
  gender: 'female',
  name: 'speakcheck-x-voice',
  text: 'speakcheck-x says hello.',
};

describe('fixtures', () => {
  it('invalid bodies break the shared schema (or name an unknown voice/model, which only the server can tell)', () => {
    fc.assert(
      fc.property(fc.oneof(invalidTakeArb(ctx), invalidVoiceArb(ctx)), (c) => {
        const schemaValid = c.endpoint.endsWith('takes/generate') ? takeValid(c.body) : voiceValid(c.body);
        if (schemaValid) expect(c.why).toMatch(/unknown voice_id|model the model list does not hold/);
      }),
      { seed: 11, numRuns: 400 },
    );
  });

  it('prosody in bounds is valid, out of bounds is not', () => {
    fc.assert(
      fc.property(simpleProsodyArb, (p) => prosodyValid(p) === true),
      { seed: 1, numRuns: 200 },
    );
    fc.assert(
      fc.property(outOfBoundsProsodyArb, (p) => prosodyValid(p) === false),
      { seed: 1, numRuns: 200 },
    );
  });

  it('texts are short and non-blank; faker is deterministic per seed', () => {
    fc.assert(
      fc.property(textArb, (t) => t.trim().length > 0 && t.length < 200),
      { seed: 5, numRuns: 200 },
    );
    expect(sentence(seededFaker(9))).toBe(sentence(seededFaker(9)));
  });
});
