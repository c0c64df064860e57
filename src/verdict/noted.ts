/**
 * The observations the harness and the fold note themselves, about a requirement's checks rather
 * than about the server's answers (src/harness/covers.ts, ./fold.ts): keyed so compare sees whether
 * they occurred; the findings they quote are this run's words, shown and never compared.
 */
import { type Observation, observation } from '../evidence/observation.ts';

/**
 * An INFO check that did not hold: keyed by its requirement, so two runs compare by whether it held
 * (unless it compares two timings of one run, `caught`: then whether it held is the run's luck).
 */
export function infoViolated(id: string, finding: string, caught = false): Observation {
  return observation(`info-not-held.${id}`, 'Observed (not judged, INFO): {id}: {finding}', {
    values: { id },
    particulars: { finding },
    caught,
  });
}

/** An INFO-only test stopped by a finding (or a hook that failed first): what stopped it is noted. */
export function infoStopped(finding: string): Observation {
  return observation('info-test-stopped', 'Observed (not judged, INFO): {finding}', {
    particulars: { finding },
  });
}

/** An INFO requirement's covering test was blocked: the test is the value, what blocked it the run's. */
export function infoBlocked(test: string, by: string): Observation {
  return observation('info-blocked', 'Not observed in "{test}": blocked by: {by}', {
    values: { test },
    particulars: { by },
  });
}
