/**
 * The kinds of run-wide fact (src/facts/run-facts.ts), one discriminated union: `type` names the
 * kind, and each kind says what its key looks like and what it carries, so a reader narrows on
 * `type` and reads typed fields, never casts a `data` bag or slices a key.
 *
 * Adding a kind: one member of `Fact` below (its key, its fields, its consequence if it limits
 * later waits), then its writer (`facts.record({ type: 'new-kind', ... })`) and its reader
 * (`facts.ofType('new-kind')` / `facts.find(key, 'new-kind')`): both are typed from the member.
 */
import type { ReadyBoundKind, RequirementId } from '../requirements/index.ts';

/** What a fact means for the requirements it touches. */
export type Consequence =
  /** What needed the thing (a take, a voice) cannot be judged: blocked by the fact's evidence. */
  | { kind: 'blocks' }
  /** Back-pressure: what needed it is not concluded, and `wouldJudge` says what would conclude it. */
  | { kind: 'not-concluded'; wouldJudge: string }
  /** The feature is absent: what needs it does not apply. */
  | { kind: 'not-applicable' }
  /** The fact is evidence that the server breaks `requirement`. */
  | { kind: 'evidence-against'; requirement: RequirementId };

/**
 * What every fact may carry. `key` is `group:what` (e.g. `take:<id>`, `route:GET /v1/speak/takes/{take_id}/flac`);
 * a fact with a consequence limits later waits of its key (see FactStore's allowance), and of its
 * whole group when it `spreads`. A fact without a consequence is an observation the policies count
 * (a success and how long it took, a throttled answer).
 */
interface FactBase {
  key: string;
  /** When it was recorded (epoch ms; record() fills it in). */
  atMs?: number;
  consequence?: Consequence;
  /** Whether a limiting fact also limits the other keys of its group (a stuck take: every take). */
  spreads?: boolean;
  /** The fact's evidence in one sentence, as later conclusions name it. */
  sentence?: string;
  /** For a success: how long it took (allowance's measure of the group). */
  tookMs?: number;
}

/** A fact that limits later waits: it has a consequence and names its evidence. */
interface Limiting {
  consequence: Consequence;
  sentence: string;
}

/** What kind of item a wait is for (a take, a voice): the group of its facts' keys. */
export type WaitKind = ReadyBoundKind;

/** The evidence of a wait that ran its whole bound (src/harness/wait-ledger.ts). */
export interface StuckWait {
  kind: WaitKind;
  id: string;
  /** The statuses polling saw, each run of equal ones once (e.g. ["waiting", "started"]). */
  statuses: string[];
  polls: number;
  /** The wait's own time: without the time the server asked it to wait (heldMs). */
  waitedMs: number;
  boundMs: number;
  /**
   * The server's back-pressure during the wait, not in waitedMs: the run-wide holds of its 429s'
   * Retry-After and the polls' own waits (a 503's Retry-After).
   */
  heldMs?: number;
}

/** What a route's unavailability found (src/client/route-patience.ts, src/facts/outages.ts). */
export interface RouteOutageData {
  /** "GET /v1/speak/takes/{take_id}/flac" */
  route: string;
  /** The statuses it answered, e.g. [429]. */
  statuses: number[];
  /** Throttled answers in the streak that made it unavailable. */
  answers: number;
  /** From the streak's first throttled answer to its conclusion. */
  spanMs: number;
  /** Requests the rest of the run got served (the server was up). */
  servedElsewhere: number;
}

/** A half-ended websocket request: which of the two ends it showed (src/client/ws-request.ts). */
export type EarlyConclusion = 'done-without-end-marker' | 'end-marker-without-done';

/** Whether a silent websocket request came first on its connection or after an answered one. */
export type SilentSituation = 'later-request' | 'from-start';

/** Every kind of fact the run records. */
export type Fact =
  /** A wait for an item that ran its whole bound: evidence against the kind's ready bound; spreads to the kind. */
  | (FactBase & Limiting & { type: 'stuck'; key: `${WaitKind}:${string}`; spreads: true; stuck: StuckWait })
  /** An item that got done, and how long it took. */
  | (FactBase & { type: 'done'; key: `${WaitKind}:${string}`; tookMs: number })
  /** A 429/503 of a route (route patience counts them). */
  | (FactBase & {
      type: 'throttled';
      key: `route:${string}`;
      status: number;
      retryAfterHonoured: boolean;
      /** The run's 429s and served requests before this answer (src/client/route-patience.ts: a limit of this route alone). */
      run429Before?: number;
      servedBefore?: number;
    })
  /** A route answered after a throttled streak: its patience starts again. */
  | (FactBase & { type: 'served'; key: `route:${string}` })
  /** A route that answered only back-pressure for its whole patience while the rest of the run was served. */
  | (FactBase &
      Limiting & {
        type: 'unavailable';
        key: `route:${string}`;
        consequence: Extract<Consequence, { kind: 'not-concluded' }>;
        outage: RouteOutageData;
      })
  /** A websocket request that showed one of its two ends and then fell silent. */
  | (FactBase &
      Limiting & { type: 'half-ended'; key: `ws-half-ended:${EarlyConclusion}`; end: EarlyConclusion })
  /** A websocket request's first message, and how long it took from being first in line. */
  | (FactBase & { type: 'first-message'; key: `ws-silent-${SilentSituation}:${string}`; tookMs: number })
  /**
   * A websocket request that got no message within its bound on a connection that stayed open; one
   * from the start of its connection is an outage of the websocket request (`outage`).
   */
  | (FactBase &
      Limiting & {
        type: 'silent';
        key: `ws-silent-${SilentSituation}:${string}`;
        spreads: true;
        outage?: RouteOutageData;
      })
  /** A request of a route that got no answer (headers, first byte) within its bound (src/client/route-silence.ts). */
  | (FactBase & {
      type: 'no-answer';
      key: `route:${string}`;
      sentence: string;
      boundMs: number;
      /** The run's answered count when the request was sent: answers after it show the server up. */
      servedBefore?: number;
    })
  /** A route answered after no-answers: it starts over. */
  | (FactBase & { type: 'answered-again'; key: `route:${string}` })
  /** A route that did not answer twice while the server answered others: learned for the run. */
  | (FactBase &
      Limiting & {
        type: 'unanswered';
        key: `route:${string}`;
        consequence: { kind: 'blocks' };
        outage: RouteOutageData;
      })
  /**
   * A server that answered nothing, not even at its root, while nothing else of the run was answered
   * (src/client/server-silence.ts): what needed it is blocked, until it answers again.
   */
  | (FactBase &
      Limiting & {
        type: 'server-silent';
        key: `server:${string}`;
        consequence: { kind: 'blocks' };
        /** The bound of the request it was learned from: its root is asked again within it. */
        boundMs: number;
        outage: RouteOutageData;
      })
  /** A server known silent answered again: it is served as before. */
  | (FactBase & { type: 'server-answered-again'; key: `server:${string}` })
  /**
   * A logout the run sent (`sent`, recorded before the request) and its answer (`answered`), one key
   * per logout: a server may log out everywhere (src/facts/logouts.ts).
   */
  | (FactBase & { type: 'logout'; key: `logout:${string}`; email: string; phase: 'sent' | 'answered' })
  /** A take or voice sequence a file polled, for the state rules of the whole run (src/harness/run-sequences.ts). */
  | (FactBase & {
      type: 'observed-sequence';
      key: `sequence:${WaitKind}:${string}`;
      kind: WaitKind;
      id: string;
      snapshots: Array<{ status: string; info: unknown }>;
    })
  /** The server under test cannot call the run's webhook sink: the webhook requirements do not apply. */
  | (FactBase &
      Limiting & {
        type: 'webhook-unreachable';
        key: 'webhook:sink';
        consequence: { kind: 'not-applicable' };
      });

/** The kinds of fact: `'stuck' | 'done' | …`. */
export type FactKind = Fact['type'];

/** The fact of one kind, e.g. `FactOf<'stuck'>`. */
export type FactOf<K extends FactKind> = Extract<Fact, { type: K }>;

/** `take` of `take:1234`: the part of a key before its first colon. */
export function groupOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
}
