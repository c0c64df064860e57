/** A failed requirement whose test left a shrunk sequence's script is reproduced by that script (src/report/reproduction-sequence.ts). */
import { expect, test } from 'vitest';
import { SEQUENCE_SCRIPT_KEY, SEQUENCE_SHRUNK_KEY } from '../../src/checks/stateful/script.ts';
import { sequenceReproduction } from '../../src/report/reproduction-sequence.ts';
import { said } from '../support/said.ts';

test("the shrunk sequence's script is the reproduction, its first line the note", () => {
  const repro = sequenceReproduction([
    { observations: [said('sequences: fast-check seed 1')] },
    {
      observations: [
        said(
          "Shrunk sequence (2 steps; replay: speakcheck run --seed 1 --replay-path '0:1'):\n  1. a\n  2. b",
          SEQUENCE_SHRUNK_KEY,
        ),
        said('#!/bin/sh\necho one\necho two', SEQUENCE_SCRIPT_KEY),
      ],
    },
  ]);
  expect(repro?.curl).toEqual(['#!/bin/sh', 'echo one', 'echo two']);
  expect(repro?.notes[1]).toBe(
    "Shrunk sequence (2 steps; replay: speakcheck run --seed 1 --replay-path '0:1'):",
  );
});

test('a test without a sequence script leaves the reproduction to the evidence', () => {
  expect(sequenceReproduction([{ observations: [said('Observed: 200')] }])).toBeUndefined();
});
