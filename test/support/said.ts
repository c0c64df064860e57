/** Observations for the tests of verdicts and reports: a sentence under a key, or a skip's note. */
import { type Observation, observation } from '../../src/evidence/observation.ts';

/** An observation that says `text` (a particular: shown, not compared). */
export function said(text: string, key = 'test.said'): Observation {
  return observation(key, '{text}', { particulars: { text } });
}

/** The reporter's note of a skipped test (src/report/conformance-reporter.ts). */
export function skippedFor(note: string): Observation {
  return observation('test-skipped', 'Skipped: {note}', { values: { note } });
}
