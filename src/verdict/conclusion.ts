/**
 * What one test concluded about one requirement, as data (issue 40). A test leaves a list of these
 * per requirement id in its task meta (src/harness/covers.ts writes them, src/harness/check.ts and
 * src/harness/disposition.ts make them); the verdict of a requirement is a precedence fold over the
 * conclusions of every test that covers it (`foldConclusions`). Nothing here is parsed back from a
 * sentence: the words are written from these fields (src/verdict/verdict.ts, src/report).
 *
 * The rule this encodes: a requirement passes only on an observation. `held` is recorded only when
 * a check ran its assertions on what the server did; a test that could not bring about the state a
 * requirement speaks of says so with `not-observed` (src/harness/check.ts `notObserved`), and a
 * covered requirement no test concluded anything about is not judged either.
 */

/** Why the run stopped before its suites ended: its budget (--max-time) ran out, or a signal came. */
export type StopReason = 'budget' | 'signal';

/** A stopped run: why (typed, what the words and remedies decide on), and the sentence that says it. */
export interface RunStopped {
  reason: StopReason;
  /** e.g. "the run budget of 600 s (--max-time) ran out": shown, never read back. */
  sentence: string;
}

/** What would judge a requirement the stopped run did not conclude, by why it stopped. */
export function stoppedRemedy(stop: StopReason | undefined): string {
  return stop === 'budget'
    ? 'a longer --max-time (the run budget ran out before it finished)'
    : 'a run that is not stopped before it finishes';
}

export type Conclusion =
  /** A check of the requirement ran its assertions on an observation and they held. */
  | { kind: 'held' }
  /**
   * The server broke the requirement: the finding, in one sentence, and the ids of the exchanges it
   * rests on (the test's evidence entries, src/evidence/evidence.ts; a reproduction replays them).
   */
  | { kind: 'violated'; message: string; exchanges?: number[] }
  /**
   * A step the requirement depended on failed first (a generation, a stuck wait, a shared scenario),
   * and the ids of the exchanges that failure rests on, as for a violation.
   */
  | { kind: 'blocked'; by: string; exchanges?: number[] }
  /** The state the requirement speaks of did not occur in this run (a take ready too fast, an expiry not waited out). */
  | { kind: 'not-observed'; reason: string; wouldJudge: string }
  /** The server does not offer what the requirement needs (webhooks it cannot deliver to us). */
  | { kind: 'not-applicable'; reason: string; wouldJudge: string }
  /**
   * Nothing concluded for or against: the server's back-pressure outlasted its bound (`throttled`),
   * the harness's own time bound for the test ran out (`timeout`; `paced` when the run was paced
   * meanwhile, by --max-rps or the server's limit: then the pacing is what to change), the whole
   * server answered nothing, not even at its root (`outage`: src/client/server-silence.ts), or the
   * run was stopped (`stopped`).
   */
  | { kind: 'not-concluded'; cause: NotConcludedCause; reason: string; wouldJudge: string }
  /** speakcheck itself broke while judging it: never the server's fault. */
  | { kind: 'harness-bug'; message: string; bug: string };

export type ConclusionKind = Conclusion['kind'];
export type NotConcludedCause = 'throttled' | 'timeout' | 'paced' | 'outage' | 'stopped';

/** Per requirement id, what one test concluded (in the order it concluded it). */
export type Conclusions = Record<string, Conclusion[]>;

/**
 * The order in which conclusions decide a requirement, strongest first: one violation fails it
 * whatever held elsewhere; a harness bug, a block or an unfinished test keep a pass away (nothing
 * shows the requirement held where they stood); a hold then passes it; and only when nothing was
 * concluded at all does "not applicable" or "not observed" say why it was not judged.
 */
export const PRECEDENCE: readonly ConclusionKind[] = [
  'violated',
  'harness-bug',
  'blocked',
  'not-concluded',
  'held',
  'not-applicable',
  'not-observed',
];

/** The deciding conclusion among `all` (undefined when there is none: not judged, nothing said). */
export function decisive(all: readonly Conclusion[]): Conclusion | undefined {
  for (const kind of PRECEDENCE) {
    const found = all.find((c) => c.kind === kind);
    if (found) return found;
  }
  return undefined;
}

/**
 * The conclusions of a test that left none of its own (a hook failed before its body ran, it was
 * skipped, or the stopped run never let it finish): its state speaks for every id it covers.
 */
export function conclusionsOfState(
  state: 'passed' | 'failed' | 'skipped' | 'not-concluded',
  ids: readonly string[],
  o: { error?: string; note?: string; stopped?: RunStopped },
): Conclusions {
  const of: Record<typeof state, () => Conclusion> = {
    passed: () => ({ kind: 'held' }),
    failed: () => ({ kind: 'violated', message: o.error ?? 'failed' }),
    skipped: () => ({
      kind: 'not-observed',
      reason: o.note ? `skipped: ${o.note}` : 'the test was skipped',
      wouldJudge: 'a run where its test is not skipped (see the reason)',
    }),
    'not-concluded': () => ({
      kind: 'not-concluded',
      cause: 'stopped',
      reason: `the run was stopped${o.stopped ? ` (${o.stopped.sentence})` : ''} before the test finished`,
      wouldJudge: stoppedRemedy(o.stopped?.reason),
    }),
  };
  const one = of[state];
  return Object.fromEntries(ids.map((id) => [id, [one()]]));
}
