/**
 * Pacing and what it keeps from being observed (issue 41): a state that lasts only while a take is
 * generated ("before ready", listed while waiting) is seen only when the run asks quickly enough. Paced
 * by `--max-rps`, or by the server's own limit (429/503 halve the run's rate), every request waits
 * its turn behind the others of the run, and the take is done before the one that would see the state
 * is sent. The not-observed hint then says so, and what to change, instead of blaming the server's speed.
 */
import { runThrottle } from '../client/back-pressure.ts';
import type { RunConfig } from '../config/types.ts';
import type { Conclusion } from '../verdict/conclusion.ts';

/** What the run knows of its own pacing. */
export interface RunPacing {
  /** `--max-rps`, when given. */
  maxRps?: number;
  /** Throttled answers the run met so far (its pace then follows the server's limit). */
  answered429: number;
  answered503: number;
}

/** The pacing of this run so far: the option, and the back-pressure the run-wide throttle counted. */
export function runPacing(config: Pick<RunConfig, 'maxRps'>): RunPacing {
  const { answered429, answered503 } = runThrottle().stats();
  return { ...(config.maxRps === undefined ? {} : { maxRps: config.maxRps }), answered429, answered503 };
}

/** What would judge a "while in progress" requirement of an unpaced run: a slower take, seen sooner. */
export const TOO_FAST_BASE =
  'a server whose takes of a long text are not done within a round trip (a remote or busier server)';

/**
 * What would judge a "while in progress" requirement the run could not observe: when the run was
 * paced, that pacing likely hid the state, and how to pace it less (raise --max-rps, or run `area`
 * alone, so fewer requests share the pace); unpaced, a slower take.
 */
export function tooFastRemedyFor(pacing: RunPacing, area: string): string {
  const by = pacedBy(pacing);
  if (by.length === 0) return TOO_FAST_BASE;
  // Short enough for the terminal's not-judged line (240 characters): the cause first, then the change.
  const change =
    pacing.maxRps === undefined
      ? `run the area alone (\`--only ${area}\`), so fewer requests share the limit, or give the test account a higher limit`
      : `raise --max-rps, or run the area alone (\`--only ${area}\`), so fewer requests share the pace`;
  return `pacing likely hid it (${by.join('; ')}): requests queued while the take finished; ${change}`;
}

/** What paced the run: `--max-rps N`, the server's limit (429/503 counts); empty when nothing did. */
function pacedBy(pacing: RunPacing): string[] {
  const throttled = pacing.answered429 + pacing.answered503;
  return [
    ...(pacing.maxRps === undefined ? [] : [`--max-rps ${pacing.maxRps}`]),
    ...(throttled > 0
      ? [
          `the server's limit: ${[
            ...(pacing.answered429 > 0 ? [`429 on ${pacing.answered429}`] : []),
            ...(pacing.answered503 > 0 ? [`503 on ${pacing.answered503}`] : []),
          ].join(', ')} request${throttled === 1 ? '' : 's'}`,
        ]
      : []),
  ];
}

/** What would judge a test that ran out of its time bound in an unpaced run. */
export const TEST_BOUND_REMEDY =
  'a longer --ready-timeout or --max-time (the test ran out of the time speakcheck gives it)';

/**
 * A test that ran out of the time speakcheck gives it (issue 51 item 6): in a paced run the pacing,
 * not the server's speed, is the likely cause (every request waited its turn), so the conclusion
 * carries cause `paced` and names the pacing to change; unpaced, `timeout` and the longer bounds.
 */
export function testBoundConclusion(
  reason: string,
  pacing: RunPacing,
): Extract<Conclusion, { kind: 'not-concluded' }> {
  const by = pacedBy(pacing);
  if (by.length === 0)
    return { kind: 'not-concluded', cause: 'timeout', reason, wouldJudge: TEST_BOUND_REMEDY };
  const change =
    pacing.maxRps === undefined
      ? 'fewer requests sharing the limit (`--only AREA`, or an account with a higher limit), or a longer --max-time'
      : 'a higher --max-rps (or fewer areas sharing the pace: `--only AREA`), or a longer --max-time';
  return {
    kind: 'not-concluded',
    cause: 'paced',
    reason,
    wouldJudge: `less pacing (${by.join('; ')}: each request waited its turn): ${change}`,
  };
}
