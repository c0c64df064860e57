/** A failed requirement whose test left a shrunk sequence's script is reproduced by that script (src/report/reproduction-sequence.ts). */
import { expect, test } from 'vitest';
import { sequenceReproduction } from '../../src/report/reproduction-sequence.ts';

test("the shrunk sequence's script is the reproduction, its first line the note", () => {
  const repro = sequenceReproduction([
    { observations: ['sequences: fast-check seed 1'] },
    {
      observations: [
        "Shrunk sequence (2 steps; replay: speakcheck run --seed 1 --replay-path '0:1'):\n  1. a\n  2. b",
        '#!/bin/sh\necho one\necho two',
      ],
    },
  ]);
  expect(repro?.curl).toEqual(['#!/bin/sh', 'echo one', 'echo two']);
  expect(repro?.notes[1]).toBe(
    "Shrunk sequence (2 steps; replay: speakcheck run --seed 1 --replay-path '0:1'):",
  );
});

test('a test without a sequence script leaves the reproduction to the evidence', () => {
  expect(sequenceReproduction([{ observations: ['Observed: 200'] }])).toBeUndefined();
});
