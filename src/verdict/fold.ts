/**
 * The one fold (issue 48): from what every covering test concluded (src/verdict/conclusion.ts) to
 * one `Verdict` per requirement (src/verdict/model.ts), with the expect file's entries applied and
 * the run's stop recorded. Pure. Within one test, a requirement's result is its own: the checks
 * attributed to it (src/harness/check.ts), or "blocked" by a step outside every check that failed
 * first. Across tests, the precedence of conclusion.ts decides: a violation fails it whatever held
 * elsewhere; a pass needs at least one `held` and nothing stronger.
 *
 * INFO judges nothing: its verdict is what the covering tests saw. A test the server's back-pressure
 * kept from finishing is an observation missed, not a run left unconcluded (a run stopped by
 * --max-time or Ctrl-C still is one).
 */
import type { Expectation } from '../config/types.ts';
import type { Observation } from '../evidence/observation.ts';
import type { Requirement } from '../requirements/types.ts';
import { type Conclusion, decisive } from './conclusion.ts';
import { isExpired } from './expectations.ts';
import type { StopReason, TestOutcome, Verdict } from './model.ts';
import { infoBlocked, infoStopped } from './noted.ts';
import {
  isAgainst,
  isBlock,
  isNotConcluded,
  isObserved,
  isStoppedByRun,
  isViolation,
  testRan,
  testUnconcluded,
} from './standing.ts';

export interface FoldOptions {
  /** Why the run was stopped early: what never ran is not concluded. */
  stop?: StopReason;
  /** Observations the run itself adds to an INFO requirement (figures only the whole run knows). */
  runObservations?: Record<string, Observation[]>;
  /** The expect file's entries (`run --expect`) and the day they are read on. */
  expectations?: readonly Expectation[];
  now?: Date;
}

/** One conclusion and the test it came from. */
interface Found {
  test: TestOutcome;
  c: Conclusion;
}

export function foldVerdict(
  requirement: Requirement,
  tests: readonly TestOutcome[],
  o: FoldOptions,
): Verdict {
  const base: Verdict = {
    ...requirement,
    tests: tests.map((t) => t.key),
    covered: tests.length > 0,
    observations: tests.flatMap((t) => t.observations),
  };
  const folded = tests.length === 0 ? untested(base, o.stop) : decide(base, tests, o.stop);
  const withRun =
    isObserved(folded) && (o.runObservations?.[folded.id]?.length ?? 0) > 0
      ? { ...folded, observations: [...folded.observations, ...o.runObservations![folded.id]!] }
      : folded;
  return expect(withRun, o);
}

/** No test covers it, or none of its tests ran before the run was stopped. */
function untested(base: Verdict, stop: StopReason | undefined): Verdict {
  if (!stop) return base;
  return {
    ...base,
    decided: {
      kind: 'not-concluded',
      cause: 'stopped',
      reason: 'the run was stopped before any covering test ran',
      wouldJudge: '',
    },
    stop,
  };
}

function decide(base: Verdict, tests: readonly TestOutcome[], stop: StopReason | undefined): Verdict {
  const found: Found[] = tests.flatMap((test) => (test.conclusions[base.id] ?? []).map((c) => ({ test, c })));
  if (base.level === 'INFO') return decideInfo(base, tests, found, stop);
  const top = decisive(found.map((f) => f.c));
  if (top === undefined) return base;
  const first = found.find((f) => f.c === top)!;
  const same = new Set(found.filter((f) => f.c.kind === top.kind).map((f) => f.test)).size;
  const stopped = isStoppedByRun(top);
  return {
    ...base,
    decided: top,
    decidedIn: { test: first.test.name, tests: same },
    ...(stopped && stop ? { stop } : {}),
  };
}

function decideInfo(
  base: Verdict,
  tests: readonly TestOutcome[],
  found: Found[],
  stop: StopReason | undefined,
): Verdict {
  const ran = tests.filter(testRan);
  const unfinished = tests.filter(testUnconcluded);
  const cause = (t: TestOutcome) => Object.values(t.conclusions).flat().find(isNotConcluded);
  if (ran.length === 0 && unfinished.length > 0) {
    const first = unfinished[0]!;
    const throttled = unfinished.every((t) => cause(t)?.cause === 'throttled');
    const decided: Conclusion = throttled
      ? cause(first)!
      : {
          kind: 'not-concluded',
          cause:
            unfinished.map(cause).find((c) => c !== undefined && c.cause !== 'throttled')?.cause ?? 'timeout',
          reason: 'did not finish',
          wouldJudge: '',
        };
    const stopped = isStoppedByRun(decided) && stop;
    return {
      ...base,
      decided,
      decidedIn: { test: first.name, tests: unfinished.length },
      ...(stopped ? { stop } : {}),
    };
  }
  if (ran.length === 0)
    return {
      ...base,
      decided: {
        kind: 'not-observed',
        reason: 'every covering test was skipped',
        wouldJudge: 'a run where its test is not skipped (see the reason)',
      },
    };
  const notSeen = found.flatMap(({ test, c }) => (isBlock(c) ? [infoBlocked(test.name, c.by)] : []));
  // covers() notes an INFO violation as an observation; a test that left no conclusions of its own
  // (a hook failed first) did not: its failure is noted here, an observation, not a verdict.
  const unnoted = found.flatMap(({ test, c }) =>
    isViolation(c) && test.concludedByState ? [infoStopped(c.message)] : [],
  );
  return { ...base, decided: { kind: 'held' }, observations: [...base.observations, ...unnoted, ...notSeen] };
}

/**
 * The expect file's entry for a failed or blocked requirement, when it has not expired: the failure
 * no longer gates the run (its standing says so); an expired entry is not applied.
 */
function expect(v: Verdict, o: FoldOptions): Verdict {
  const entry = o.expectations?.find((e) => e.requirement === v.id);
  if (!entry || v.level === 'INFO' || isExpired(entry, o.now ?? new Date())) return v;
  if (v.decided === undefined || !isAgainst(v.decided)) return v;
  return { ...v, expected: { reason: entry.reason, ...(entry.link ? { link: entry.link } : {}) } };
}
