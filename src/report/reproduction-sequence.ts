/**
 * The reproduction of a requirement a shrunk call sequence failed (suites/sequences.spec.ts): the
 * suite leaves the sequence's script (src/checks/stateful/script.ts) among its test's observations,
 * keyed SEQUENCE_SCRIPT_KEY (found by its key, never by its sentence);
 * the report shows that script as the reproduction instead of one request rebuilt from the evidence,
 * since the failure is the sequence, not its last request alone.
 */
import { SEQUENCE_SCRIPT_KEY, SEQUENCE_SHRUNK_KEY } from '../checks/stateful/script.ts';
import type { Observation } from '../evidence/observation.ts';
import type { Reproduction } from './reproduction.ts';

export function sequenceReproduction(
  tests: readonly { observations: readonly Observation[] }[],
  requirement: string,
): Reproduction | undefined {
  // The requirement's own: a random and a witness failure may each leave one (an older report's
  // observations name none: its one script stands for any).
  const of = (o: Observation, key: string) =>
    o.key === key && (o.particulars?.requirement ?? requirement) === requirement;
  for (const t of tests) {
    const script = t.observations.find((o) => of(o, SEQUENCE_SCRIPT_KEY))?.text;
    if (script === undefined) continue;
    const shrunk = t.observations.find((o) => of(o, SEQUENCE_SHRUNK_KEY))?.text;
    return {
      curl: script.split('\n'),
      websocket: [],
      transcript: [],
      notes: [
        'The shrunk sequence of the stateful suite, as one POSIX sh + curl script: it logs in, makes its voice, runs each step and prints every answer; the last is the failure.',
        // The header (its replay command), then each step and the failure: a bullet each in the pages.
        ...(shrunk ? shrunk.split('\n').map((line) => line.trim()) : []),
      ],
    };
  }
  return undefined;
}
