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

export class EndOfRequestClock {
  private inLineTimer?: NodeJS.Timeout;
  private settleTimer?: NodeJS.Timeout;
  private graceTimer?: NodeJS.Timeout;

  constructor(
    private readonly p: Pending,
    private readonly end: EndRequest,
  ) {}

  /**
   * The request is first in line. `strayHint` says, when no message came, what did arrive instead
   * (a look-alike request id of another JSON type, strays, malformed frames).
   */
  startInLine(strayHint: () => string): void {
    const { firstMessageMs, endOfTakeMs } = this.p.timeouts;
    const id = String(this.p.request.requestId);
    this.inLineTimer = setTimeout(() => {
      if (!this.p.anyMessage) {
        this.end(
          'timeout',
          `no message for request ${id} within ${firstMessageMs} ms of it being first in line${strayHint()}`,
        );
        return;
      }
      this.inLineTimer = setTimeout(
        () => this.end('timeout', missingSummary(this.p, `did not end within ${endOfTakeMs} ms`)),
        Math.max(0, endOfTakeMs - firstMessageMs),
      );
    }, firstMessageMs);
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

/** Which of its two ends a request showed without the other, if it is in that state. */
function halfEnded(p: Pending): EarlyConclusion | undefined {
  if (p.doneSeen && !p.markerSeen) return 'done-without-end-marker';
  if (p.markerSeen && !p.doneSeen) return 'end-marker-without-done';
  return undefined;
}
