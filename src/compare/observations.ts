/**
 * When two runs observed the same thing: an observation is keyed data (src/evidence/observation.ts),
 * so two runs saw the same when they have the same keys with the same values, in any order (tests run
 * concurrently). The run's particulars (ids, origins, timings, sizes, counts, seeds) and what one run
 * merely happened to catch (a poll's snapshot, a retry, a race of two timings) are shown, never
 * compared. No sentence is read: nothing is masked.
 *
 * Only an INFO requirement's observations are compared: there the observation is the verdict. A
 * judged requirement's verdict is the comparison; its observations (timings of the exchanges behind
 * a pass) stay in the finding, shown on expand.
 *
 * A report written before observations were keyed (version < 3) holds sentences only: its
 * observations are not compared (`keyed: false`), and compare says so.
 */
import { comparedForm, type Observation } from '../evidence/observation.ts';
import type { RequirementLevel } from '../requirements/types.ts';

/** The observations as compared: key and values, one line each, without repeats, in a fixed order. */
export function comparableObservations(observations: readonly Observation[]): string[] {
  const lines = observations.map(comparedForm).filter((line): line is string => line !== undefined);
  return [...new Set(lines)].sort();
}

/** Whether the observations of a requirement at `level` are compared at all (INFO only, see above). */
export function observationsCompared(level: RequirementLevel): boolean {
  return level === 'INFO';
}

/** Why observations were not compared, when a run's report predates keyed observations. */
export const OBSERVATIONS_NOT_COMPARED =
  'observations not compared: an older report predates keyed observations (speakcheck before report version 3)';
