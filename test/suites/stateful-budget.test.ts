/**
 * The sequences' line in the run's output (suites/stateful/budget.ts): how many sequences ran and how
 * long the longest was (issue 50). That it reaches a whole run's output: test/run/run-hosted.int.test.ts.
 */
import { expect, test } from 'vitest';
import { sequencesLine } from '../../suites/stateful/budget.ts';

/** The line as a whole run shows it (test/run/run-hosted.int.test.ts matches the same shape). */
const SEQUENCES_LINE =
  /^\[speakcheck\] sequences: (\d+) sequence\(s\) ran, the longest (\d+) ms \((\d+) steps\); seed (\d+)/m;

test('names the count, the longest in ms and steps, and the seed', () => {
  const line = sequencesLine({
    count: 14,
    longestMs: 350.6,
    longestSteps: 37,
    seed: 7,
    witnessed: false,
    shrunk: false,
  });
  expect(line).toBe('[speakcheck] sequences: 14 sequence(s) ran, the longest 351 ms (37 steps); seed 7');
  expect(SEQUENCES_LINE.exec(line)?.slice(1)).toEqual(['14', '351', '37', '7']);
});

test('says when the witness followed and when a failing one was shrunk', () => {
  const line = sequencesLine({
    count: 5,
    longestMs: 1200,
    longestSteps: 15,
    seed: 1,
    witnessed: true,
    shrunk: true,
  });
  expect(line).toBe(
    '[speakcheck] sequences: 5 sequence(s) ran, the longest 1200 ms (15 steps); seed 1, then the witness sequence (a failing one was shrunk)',
  );
});
