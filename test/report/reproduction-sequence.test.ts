/** A failed requirement whose test left a shrunk sequence's script is reproduced by that script (src/report/reproduction-sequence.ts). */
import { expect, test } from 'vitest';
import { SEQUENCE_SCRIPT_KEY, SEQUENCE_SHRUNK_KEY } from '../../src/checks/stateful/script.ts';
import { observation } from '../../src/evidence/observation.ts';
import { sequenceReproduction } from '../../src/report/reproduction-sequence.ts';
import { said } from '../support/said.ts';

test("the shrunk sequence's script is the reproduction, its steps the notes", () => {
  const repro = sequenceReproduction(
    [
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
    ],
    'SEQ-TAKE-LISTED-AFTER-CHANGES',
  );
  expect(repro?.curl).toEqual(['#!/bin/sh', 'echo one', 'echo two']);
  expect(repro?.notes.slice(1)).toEqual([
    "Shrunk sequence (2 steps; replay: speakcheck run --seed 1 --replay-path '0:1'):",
    '1. a',
    '2. b',
  ]);
});

test('a test without a sequence script leaves the reproduction to the evidence', () => {
  expect(
    sequenceReproduction([{ observations: [said('Observed: 200')] }], 'SEQ-TAKE-LISTED-AFTER-CHANGES'),
  ).toBeUndefined();
});

test("two failed requirements of one sequence test: each gets its own failure's script", () => {
  const script = (requirement: string, text: string) =>
    observation(SEQUENCE_SCRIPT_KEY, '{script}', { particulars: { requirement, script: text } });
  const tests = [
    { observations: [script('SEQ-A', '#!/bin/sh\necho a'), script('SEQ-B', '#!/bin/sh\necho b')] },
  ];
  expect(sequenceReproduction(tests, 'SEQ-B')?.curl).toEqual(['#!/bin/sh', 'echo b']);
  expect(sequenceReproduction(tests, 'SEQ-A')?.curl).toEqual(['#!/bin/sh', 'echo a']);
  expect(sequenceReproduction(tests, 'SEQ-C')).toBeUndefined();
});
