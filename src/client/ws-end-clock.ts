/**
 * The end-of-request clock of one websocket take request: the timers that end a request the server
 * leaves hanging, and the sentence each one ends it with. It holds no socket: the connection
 * (ws-stream.ts) tells it what the request has shown and it calls `end` when a bound runs out.
 *
 * - First in line: no message within `firstMessageMs` ends the request; after a first message, not
 *   ending within `endOfTakeMs` (both counted from being first in line: requests on one connection
 *   are served one after another, so a queued request's clocks start when the one before it ends).
 * - Done status and end marker both seen but audio still missing: `settleMs` for frames the marker
 *   overtook, then it ends saying what is missing.
 * - Half-ended (done status without end marker, or marker without done status): every message
 *   re-arms a grace (`silenceGraceMs`, `doneAfterMarkerMs`); when it runs out in silence the request
 *   ends with that finding. The first such conclusion is remembered for the run, and a later request
 *   in the same state concludes at once, naming the one that first showed it.
 */
import { randomUUID } from 'node:crypto';
import { type Fact, runFacts, type SilentSituation } from '../facts/run-facts.ts';
import type { RequirementId } from '../requirements/index.ts';
import { WEBSOCKET_REQUEST_ROUTE } from './route.ts';
import {
  type EarlyConclusion,
  earlierConclusion,
  missingSummary,
  type Pending,
  type RequestOutcome,
  rememberConclusion,
} from './ws-request.ts';

/** How the clock ends a request: the connection's finish (seq: the arrival that armed the bound). */
export type EndRequest = (outcome: RequestOutcome, diagnostic: string, seq?: number) => void;

/** What the connection says of itself when a request's first-message bound runs out. */
export interface ConnectionState {
  /** The connection is still open (a closed one is a disconnect, not silence). */
  open: boolean;
  /** An earlier request on this connection got at least one message. */
  earlierAnswered: boolean;
}

/**
 * A silent websocket (issue 37), learned once: a request that got no message within its bound while
 * its connection stayed open is a run-wide fact (src/facts), of one of two situations:
 * - `later-request`: an earlier request on the connection was answered, this one never: the
 *   connection stopped serving after its first request(s), evidence against WS-SERIALIZED
 *   (requests over one websocket are handled one after another: each one in turn);
 * - `from-start`: the connection never answered anything: it blocks what needed the stream.
 * A later request in the same situation waits only twice as long as the slowest first message of
 * that situation this run saw (at least a second, src/facts ALLOWANCE_FLOOR_MS; none when none
 * came), then concludes naming the first evidence.
 */
export type { SilentSituation };

/**
 * A wait on a connection that has answered nothing yet (an error message awaited, ws-stream's
 * waitForText), once the run learned a connection silent from its start: how long it may still go
 * on (twice the slowest first message of that situation, at least a second, none when none came)
 * and the first evidence; undefined when the run learned nothing of the kind.
 */
export function learnedSilenceFromStart(
  timeoutMs: number,
): { allowedMs: number; sentence: string } | undefined {
  const { allowedMs, fact } = runFacts().allowance(`ws-silent-from-start:${randomUUID()}`, timeoutMs);
  if (fact === undefined || fact.type !== 'silent' || allowedMs >= timeoutMs) return undefined;
  return { allowedMs, sentence: fact.sentence ?? 'an earlier request of this run got no message' };
}

/** The requirement a connection that answers its first request and then falls silent breaks. */
export const SILENT_LATER_REQUEST_REQUIREMENT: RequirementId = 'WS-SERIALIZED';
/**
 * The requirement a connection that never answers a take request breaks: the one that says a take
 * request on the websocket is answered with its take. Only it fails; what else needed the stream
 * is blocked (a run-wide fact, src/harness/disposition.ts), as for an HTTP route that never answers.
 */
export const SILENT_FROM_START_REQUIREMENT: RequirementId = 'WS-TEXT-TAKE';

export class EndOfRequestClock {
  private inLineTimer?: NodeJS.Timeout;
  private settleTimer?: NodeJS.Timeout;
  private graceTimer?: NodeJS.Timeout;
  /** The run-wide fact key of this request's first-message wait (set when it is first in line). */
  private silenceKey?: `ws-silent-${SilentSituation}:${string}`;
  private inLineSince = 0;

  constructor(
    private readonly p: Pending,
    private readonly end: EndRequest,
  ) {}

  /**
   * The request is first in line. `strayHint` says, when no message came, what did arrive instead
   * (a look-alike request id of another JSON type, strays, malformed frames); `connection` what the
   * connection is (open, whether it answered an earlier request): a silence is learned once.
   */
  startInLine(strayHint: () => string, connection: () => ConnectionState = () => NO_STATE): void {
    const { firstMessageMs, endOfTakeMs } = this.p.timeouts;
    const id = String(this.p.request.requestId);
    const situation: SilentSituation = connection().earlierAnswered ? 'later-request' : 'from-start';
    const key = `ws-silent-${situation}:${randomUUID()}` as const;
    this.silenceKey = key;
    this.inLineSince = performance.now();
    const { allowedMs, fact } = runFacts().allowance(key, firstMessageMs);
    const early = fact !== undefined && allowedMs < firstMessageMs ? fact : undefined;
    this.inLineTimer = setTimeout(
      () => {
        if (!this.p.anyMessage) {
          this.silent(id, situation, early, early ? allowedMs : firstMessageMs, strayHint, connection);
          return;
        }
        this.inLineTimer = setTimeout(
          () => this.end('timeout', missingSummary(this.p, `did not end within ${endOfTakeMs} ms`)),
          Math.max(0, endOfTakeMs - (performance.now() - this.inLineSince)),
        );
      },
      early ? allowedMs : firstMessageMs,
    );
  }

  /**
   * The request's first message arrived: how long it took from being first in line is the measure
   * later requests of its situation are allowed, once one was silent.
   */
  firstMessage(): void {
    if (this.silenceKey === undefined) return;
    runFacts().record({
      key: this.silenceKey,
      type: 'first-message',
      tookMs: performance.now() - this.inLineSince,
    });
  }

  /** No message within the bound (or the shorter allowance a silent request of the run left). */
  private silent(
    id: string,
    situation: SilentSituation,
    earlier: Fact | undefined,
    waitedMs: number,
    strayHint: () => string,
    connection: () => ConnectionState,
  ): void {
    const state = connection();
    const head = `no message for request ${id} within ${waitedMs} ms of it being first in line`;
    if (state.open)
      this.p.request.evidenceAgainst =
        situation === 'later-request' ? SILENT_LATER_REQUEST_REQUIREMENT : SILENT_FROM_START_REQUIREMENT;
    if (earlier) {
      const waited = waitedMs > 0 ? ` past ${waitedMs} ms` : '';
      this.end(
        'timeout',
        `no message for request ${id}, not waited for${waited} (the run already learned it): ${earlier.sentence ?? 'an earlier request of this run was silent'}`,
      );
      return;
    }
    const diagnostic = `${head}${strayHint()}`;
    if (state.open && this.silenceKey !== undefined)
      runFacts().record({
        key: this.silenceKey,
        type: 'silent',
        spreads: true,
        consequence:
          situation === 'later-request'
            ? { kind: 'evidence-against', requirement: SILENT_LATER_REQUEST_REQUIREMENT }
            : { kind: 'blocks' },
        sentence:
          situation === 'later-request'
            ? `an earlier request of this run (${id}) got no message within ${waitedMs} ms of being first in line on a connection that had answered a request before it and stayed open`
            : `an earlier request of this run (${id}) got no message within ${waitedMs} ms on a connection that had answered nothing and stayed open`,
        // A connection that answers nothing is an outage of the websocket request (src/facts/outages.ts).
        ...(situation === 'from-start'
          ? {
              outage: {
                route: WEBSOCKET_REQUEST_ROUTE,
                statuses: [],
                answers: 1,
                spanMs: waitedMs,
                servedElsewhere: 0,
              },
            }
          : {}),
      });
    this.end('timeout', diagnostic);
  }

  /** Done status and end marker are here, the take is not complete: wait `settleMs` once for stragglers. */
  awaitStragglers(seq: number): void {
    const { settleMs } = this.p.timeouts;
    this.settleTimer ??= setTimeout(
      () =>
        this.end(
          'ended',
          missingSummary(this.p, `still incomplete ${settleMs} ms after its done status and end marker`),
          seq,
        ),
      settleMs,
    );
  }

  /**
   * After every message of the request: a half-ended request (done without marker, or marker
   * without done) gets its grace again; any other state has none. Once the run has seen this state
   * conclude, the grace is not waited again.
   */
  rearmSilenceGrace(): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    const kind = halfEnded(this.p);
    if (!kind) return;
    const earlier = earlierConclusion(kind);
    const graceMs = earlier
      ? 0
      : kind === 'done-without-end-marker'
        ? this.p.timeouts.silenceGraceMs
        : this.p.timeouts.doneAfterMarkerMs;
    this.graceTimer = setTimeout(() => {
      const silence = earlier
        ? ' (concluded at once: an earlier request of this run already showed it)'
        : `, then nothing for ${graceMs} ms`;
      const what =
        kind === 'done-without-end-marker'
          ? `showed its done status${silence}: no end-of-take marker (an audio message without audio, part_id one past the last part) arrived`
          : `sent its end-of-take marker${silence}: no done Take status (ready) arrived`;
      const diagnostic = missingSummary(this.p, what);
      if (!earlier) rememberConclusion(kind, diagnostic);
      this.end('ended', diagnostic);
    }, graceMs);
  }

  /** The request ended: no bound runs any more. */
  stop(): void {
    clearTimeout(this.inLineTimer);
    clearTimeout(this.settleTimer);
    clearTimeout(this.graceTimer);
  }
}

const NO_STATE: ConnectionState = { open: false, earlierAnswered: false };

/** Which of its two ends a request showed without the other, if it is in that state. */
function halfEnded(p: Pending): EarlyConclusion | undefined {
  if (p.doneSeen && !p.markerSeen) return 'done-without-end-marker';
  if (p.markerSeen && !p.doneSeen) return 'end-marker-without-done';
  return undefined;
}
