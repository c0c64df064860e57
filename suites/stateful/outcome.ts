/**
 * What the sequences' errors and observations conclude (suites/sequences.spec.ts), kept apart so a
 * unit test can hold them: which error is a counterexample of a sequence requirement (shrunk and
 * reported as that requirement failing), and what each sequence id concludes at the end, also when
 * something that is not a counterexample (a request without an answer, back-pressure, a bug of
 * speakcheck) stopped the sequences.
 */
import {
  missingOperation,
  type Offered,
  SEQUENCE_IDS,
  sequenceConclusion,
} from '../../src/checks/stateful/model.ts';
import { classify, markSetupFailure, type RequirementId } from '../../src/harness/index.ts';

/**
 * Whether a sequence's error is a counterexample: a Finding whose requirement is one of the sequence
 * ids. Anything else is not, though it may be a finding of its own requirement (a POST without an
 * answer: TAKE-GENERATE-RETURNS-TAKE; a websocket upgrade that timed out: WS-CONNECT-NO-BEARER; a
 * route that answered 500 outside a sequence check): shrunk, it would be reported as a sequence
 * requirement failing.
 */
export function isCounterexample(error: unknown): boolean {
  if (causeOf(error, 'SPEAKCHECK_HUNG') !== undefined || causeOf(error, 'SPEAKCHECK_WS_CLIENT') !== undefined)
    return false;
  const d = classify(error);
  return d.kind === 'finding' && isSequenceId(d.requirement);
}

/** The sequence requirement a counterexample (isCounterexample) is evidence against. */
export function requirementOf(counterexample: unknown): RequirementId {
  const d = classify(counterexample);
  const id = 'requirement' in d ? d.requirement : undefined;
  if (!isSequenceId(id))
    throw new Error(`not a counterexample of a sequence requirement: ${String(counterexample)}`);
  return id;
}

function isSequenceId(id: string | undefined): id is RequirementId {
  return id !== undefined && (SEQUENCE_IDS as readonly string[]).includes(id);
}

/** The error of `code` in `error`'s cause chain (fast-check may wrap what a command threw). */
export function causeOf(error: unknown, code: string): unknown {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === code) return e;
  return undefined;
}

/** What one sequence id concludes at the end of the sequences. */
export type SequenceEnd =
  | { kind: 'failed' }
  | { kind: 'held' }
  | { kind: 'not-applicable'; operation: NonNullable<ReturnType<typeof missingOperation>> }
  | { kind: 'not-concluded'; reason: string; wouldJudge: string }
  | { kind: 'not-observed'; reason: string; wouldJudge: string }
  /** Left to the error that stopped the sequences (blocked by it: see stopAsBlock). */
  | { kind: 'open' };

/** The ids a run without a password (a token-only run) cannot bring about: it cannot log in again. */
const NEEDS_LOGIN: readonly RequirementId[] = ['SEQ-REFRESH-CHAIN-ANY-DEPTH', 'SEQ-LOGOUT-ONE-SESSION'];

export function sequenceEnd(
  id: RequirementId,
  o: {
    observed: ReadonlySet<RequirementId>;
    offered: Offered;
    failed: ReadonlySet<RequirementId>;
    /** Something that is not a counterexample stopped the sequences. */
    stopped: boolean;
    /** A websocket request reached the harness's bound, with no evidence against the server. */
    timedOut: string | undefined;
    /** The run has an email and password (not only a token). */
    logins: boolean;
  },
): SequenceEnd {
  if (o.failed.has(id)) return { kind: 'failed' };
  const conclusion = sequenceConclusion(id, o.observed, o.offered);
  if (conclusion === 'observed') return { kind: 'held' };
  // What stopped the sequences also stopped them before they could bring this about: not observed
  // would say more sequences judge it, a failure would blame a sequence requirement for it.
  if (o.stopped) return { kind: 'open' };
  if (id === 'SEQ-WS-REQUESTS-ANY-COUNT' && o.timedOut !== undefined)
    return {
      kind: 'not-concluded',
      reason: `a websocket request timed out (${o.timedOut})`,
      wouldJudge: 'a run with a longer --request-timeout / --ready-timeout',
    };
  const missing = missingOperation(id, o.offered);
  if (conclusion === 'not-applicable' && missing !== undefined)
    return { kind: 'not-applicable', operation: missing };
  if (!o.logins && NEEDS_LOGIN.includes(id))
    return {
      kind: 'not-observed',
      reason:
        'the run uses a permanent token (--token): no email and password to log in a session of its own with',
      wouldJudge: '--email and --password instead of --token',
    };
  return {
    kind: 'not-observed',
    reason: `no sequence of this run brought about the state ${id} speaks of`,
    wouldJudge: 'more sequences (--sequences N, or --profile acceptance)',
  };
}

/**
 * The error that stopped the sequences, made to block the ids still open when the test rethrows it
 * (covers() would otherwise take a finding that stopped a test before any check as the failure of
 * every id): an outage or a hang is a block of the sequence requirements, never their failure. The
 * requirement it is evidence against is judged where its own checks meet it.
 */
export function stopAsBlock(error: unknown): unknown {
  markSetupFailure(error);
  return error;
}

/**
 * The command that replays a failing sequence: the run's seed, the shrunk sequence's path (a random
 * one's), the requirement, and what else decides what the run explores and judges — its profile
 * when not the default (the sdk profile judges the wire facts' ids, INFO in strict) and its
 * --sequences when given (how many sequences the seed's exploration runs).
 */
export function replayCommand(o: {
  seed: number;
  path?: string | undefined;
  id: RequirementId;
  profile: string;
  sequences?: number | undefined;
}): string {
  return [
    'speakcheck run',
    ...(o.profile !== 'strict' ? [`--profile ${o.profile}`] : []),
    ...(o.sequences !== undefined ? [`--sequences ${o.sequences}`] : []),
    `--seed ${o.seed}`,
    ...(o.path ? [`--replay-path '${o.path}'`] : []),
    `--requirement ${o.id}`,
  ].join(' ');
}
