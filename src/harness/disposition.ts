/**
 * The one classifier of what an error means for the requirements of a test (issue 40): check(),
 * checkStep() and covers() all ask it, and it branches on the errors' stable codes
 * (src/errors.ts), never on their messages. A disposition says what to record and whether the
 * error stops the test; the sentences are the errors' own messages, kept as data in the
 * conclusions (src/verdict/conclusion.ts).
 */
import type { ClientDiagnostic } from '../client/diagnostics.ts';
import { isIdempotent } from '../client/route.ts';
import type { WsClientError } from '../client/ws-client-error.ts';
import { redactText } from '../evidence/redact.ts';
import { harnessBug } from './harness-error.ts';
import { requirementOfRoute } from './route-requirement.ts';
import { stuckWaitRequirement } from './wait-ledger.ts';

export type Disposition =
  /** vitest's own skip: not ours to classify. */
  | { kind: 'skip' }
  /** The server's back-pressure outlasted a request's bound, or a route never served: nothing concluded. */
  | { kind: 'throttled'; message: string }
  /** A helper could not bring about the state the test needs (check.ts cannotObserve): not observed. */
  | { kind: 'cannot-observe'; reason: string; wouldJudge: string }
  /** A test's own time bound ran out (src/harness/covers.ts): the harness's limit, nothing concluded. */
  | { kind: 'test-bound'; message: string }
  /** A step that already recorded its own failure (checkStep): what it left open is blocked. */
  | { kind: 'step-failed'; message: string }
  /**
   * Evidence of a run-wide fact against one requirement (a voice or take that never got done, a
   * websocket silent after its first request): it fails that requirement where the test covers it and
   * blocks the test elsewhere.
   */
  | { kind: 'run-fact'; requirement: string; message: string }
  /** A bug of speakcheck (src/harness/harness-error.ts). */
  | { kind: 'harness-bug'; message: string; bug: string }
  /**
   * The whole server answered nothing, not even at its root (src/client/server-silence.ts): an
   * outage, named once by the run; what the test left open is not concluded, never failed.
   */
  | { kind: 'outage'; message: string }
  /** A failure a shared scenario (once()) threw: the tests that awaited it are blocked by it. */
  | { kind: 'setup'; message: string; requirement?: string }
  /** Anything else: a finding against the server, attributed to `requirement` when it names one. */
  | { kind: 'finding'; message: string; requirement?: string };

const setupFailures = new WeakSet<object>();

/** Marks an error as a shared scenario's (once()) failure: a test that merely awaited it is blocked by it. */
export function markSetupFailure(err: unknown): void {
  if (typeof err === 'object' && err !== null) setupFailures.add(err);
}

/** What `err` means for the requirements of the test it surfaced in. */
export function classify(err: unknown): Disposition {
  if (codeOf(err) === 'VITEST_PENDING') return { kind: 'skip' };
  const message = redactText(messageOf(err));
  const throttled = throttledBy(err);
  if (throttled !== undefined) return { kind: 'throttled', message: redactText(messageOf(throttled)) };
  if (codeOf(err) === 'SPEAKCHECK_TEST_BOUND') return { kind: 'test-bound', message };
  const unobservable = notObservedBy(err);
  if (unobservable !== undefined) {
    const { reason, wouldJudge } = unobservable as { reason: string; wouldJudge: string };
    return { kind: 'cannot-observe', reason, wouldJudge };
  }
  if (codeOf(err) === 'SPEAKCHECK_STEP_FAILED') return { kind: 'step-failed', message };
  if (
    inCauses(
      err,
      (e) => codeOf(e) === 'SPEAKCHECK_HUNG' && (e as { serverSilent?: unknown }).serverSilent === true,
    )
  )
    return { kind: 'outage', message };
  const fact =
    stuckWaitRequirement(err) ??
    runFactRequirement(err) ??
    runFactRequirement(causeOf(err)) ??
    unansweredRouteRequirement(err);
  if (fact !== undefined) return { kind: 'run-fact', requirement: fact, message };
  const bug = harnessBug(err);
  if (bug !== undefined) return { kind: 'harness-bug', message, bug: redactText(bug) };
  const requirement =
    namedRequirement(err) ?? namedRequirement(causeOf(err)) ?? unansweredOnceRequirement(err);
  const named = requirement === undefined ? {} : { requirement };
  if (typeof err === 'object' && err !== null && setupFailures.has(err))
    return { kind: 'setup', message, ...named };
  return { kind: 'finding', message, ...named };
}

/**
 * The throttled diagnostic (src/client/back-pressure.ts) behind `err`, also when a wrapper (a
 * property's failure, a step) keeps it as its cause: back-pressure is never a verdict.
 */
export function throttledBy(err: unknown): unknown {
  return inCauses(err, (e) => codeOf(e) === 'SPEAKCHECK_THROTTLED');
}

/**
 * The CannotObserve (src/harness/check.ts) behind `err`, also when a wrapper (a property's failure,
 * a step) keeps it as its cause: what could not be seen is no counterexample and no finding.
 */
export function notObservedBy(err: unknown): unknown {
  return inCauses(err, (e) => codeOf(e) === 'SPEAKCHECK_NOT_OBSERVED');
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A request to a route the run learned does not answer (src/client/route-silence.ts): evidence of
 * a run-wide fact against the MUST that says the call returns something
 * (src/harness/route-requirement.ts), a block for any other test that needed the route.
 */
function unansweredRouteRequirement(err: unknown): string | undefined {
  const hung = unansweredRoute(err);
  return hung?.learned ? requirementOfRoute(hung.route) : undefined;
}

/**
 * A request that got no answer while its route is not (yet) learned to be silent (one POST, which
 * is not sent again; one websocket upgrade): that request's own finding, against the MUST its
 * route's answer is required by.
 */
function unansweredOnceRequirement(err: unknown): string | undefined {
  const hung = unansweredRoute(err);
  // Only what cannot be asked again: a GET unanswered twice with the server's root silent too, or
  // a stream, is the whole server's stall or its own wait's bound, never a verdict on its route.
  if (!hung || hung.learned || !hung.sentOnce) return undefined;
  return requirementOfRoute(hung.route);
}

interface UnansweredRoute {
  route: string;
  /** The run learned the route does not answer: a run-wide fact. */
  learned: boolean;
  /** The request is not sent again after no answer: not idempotent (a POST), or a websocket upgrade. */
  sentOnce: boolean;
}

/** The route of a request without an answer behind `err` ('hung', or a websocket upgrade that timed out), if any. */
function unansweredRoute(err: unknown): UnansweredRoute | undefined {
  // By code, as everywhere here: an error is told by what it says it is, whichever copy made it.
  const hung = inCauses(
    err,
    (e) =>
      (codeOf(e) === 'SPEAKCHECK_HUNG' || codeOf(e) === 'SPEAKCHECK_WS_CLIENT') &&
      typeof (e as { route?: unknown }).route === 'string',
  ) as
    | Pick<ClientDiagnostic, 'code' | 'route' | 'routeLearned' | 'method'>
    | Pick<WsClientError, 'code' | 'route' | 'routeLearned'>
    | undefined;
  if (hung?.route === undefined) return undefined;
  return {
    route: hung.route,
    learned: hung.routeLearned === true,
    // A websocket upgrade is never sent again (src/client/ws-connect.ts); an HTTP request is when
    // its method is idempotent (src/client/http.ts, RFC 9110 §9.2.2).
    sentOnce:
      hung.code === 'SPEAKCHECK_WS_CLIENT' ||
      ('method' in hung && hung.method !== undefined && !isIdempotent(hung.method)),
  };
}

/**
 * Whether `err` is evidence of a run-wide fact (a stuck wait, a route that does not answer, a
 * fact-named Finding): a helper that gathers failures passes it through unwrapped, so it fails only
 * the requirement it is evidence against and blocks the rest.
 */
export function isRunFact(err: unknown): boolean {
  return classify(err).kind === 'run-fact';
}

/** The requirement a run-wide fact names in a Finding (`facts.runFact`). */
function runFactRequirement(err: unknown): string | undefined {
  const facts = (err as { facts?: { requirement?: unknown; runFact?: unknown } } | null)?.facts;
  return facts?.runFact === true && typeof facts.requirement === 'string' ? facts.requirement : undefined;
}

/** The requirement a Finding names as the one it is evidence against (`facts.requirement`). */
function namedRequirement(err: unknown): string | undefined {
  const named = (err as { facts?: { requirement?: unknown } } | null)?.facts?.requirement;
  return typeof named === 'string' ? named : undefined;
}

function codeOf(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

function causeOf(err: unknown): unknown {
  return (err as { cause?: unknown } | null)?.cause;
}

/** The first error in the chain of causes (a wrapper keeps what it wraps as its cause) that `test` accepts. */
function inCauses(err: unknown, test: (e: unknown) => boolean): unknown {
  let current = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (test(current)) return current;
    current = causeOf(current);
  }
  return undefined;
}
