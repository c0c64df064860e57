/**
 * The verdict model (issue 48): what the run concluded about one requirement, as data. A check
 * produces `Conclusion`s (src/verdict/conclusion.ts); one fold (src/verdict/fold.ts) turns every
 * covering test's conclusions into one `Verdict` per requirement; one function (`standing`,
 * src/verdict/standing.ts) says what it means: held, failed, blocked, not judged or observed, and
 * whether it keeps the run from CONFORMS in a profile; the words are written from it in one place
 * (src/verdict/words.ts). A verdict carries no status string and no message: nothing reads a
 * sentence back.
 */

import type { EvidenceEntry } from '../evidence/evidence.ts';
import type { Observation } from '../evidence/observation.ts';
import type { Requirement } from '../requirements/types.ts';
import type { Conclusion, Conclusions, StopReason } from './conclusion.ts';

export type { RunStopped, StopReason } from './conclusion.ts';

/** The expect file's entry that applied to a failed or blocked requirement (`run --expect`). */
export interface AppliedExpectation {
  reason: string;
  link?: string;
}

/** The test whose conclusion decided the verdict, and how many covering tests concluded the same. */
export interface DecidedIn {
  /** The test's name (`<describe> <name>`). */
  test: string;
  /** Covering tests with a conclusion of the deciding kind (e.g. 3 failing tests; 2 passed). */
  tests: number;
}

export interface Verdict extends Requirement {
  /** Keys of the tests that cover the requirement. */
  tests: string[];
  covered: boolean;
  /** What the covering tests noted (INFO: the observation is the verdict). */
  observations: Observation[];
  /** The conclusion that decided it (precedence fold); absent: nothing was concluded about it. */
  decided?: Conclusion;
  decidedIn?: DecidedIn;
  /** The expect file listed its failure or block: it does not gate the run. */
  expected?: AppliedExpectation;
  /** The run was stopped before it could conclude this requirement. */
  stop?: StopReason;
}

export type TestState = 'passed' | 'failed' | 'skipped' | 'not-concluded';

/** What one test did, as the reporter collected it from vitest. */
export interface TestOutcome {
  /** Unique within a run: `<file> > <describe> > <name>`. */
  key: string;
  file: string;
  name: string;
  state: TestState;
  durationMs: number;
  errors: string[];
  requirements: string[];
  unknownRequirements: string[];
  observations: Observation[];
  evidence: EvidenceEntry[];
  droppedEvidence: number;
  characters: number;
  /** What the test concluded about each of its requirement ids (src/verdict/conclusion.ts). */
  conclusions: Conclusions;
  /** It left no conclusions of its own: the reporter made them from its state (conclusionsOfState). */
  concludedByState?: boolean;
}
