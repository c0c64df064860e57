/**
 * The websocket stream client: asks the REST API for a worker URL (ws-url.ts), connects to it WITHOUT
 * any Authorization (ws-connect.ts: the secret in the URL is the credential, Authentication 9), submits
 * take requests and collects everything the worker sends, stamped with arrival order and time. The
 * request's data, timeouts and early conclusions live in ws-request.ts, the clock that ends a request
 * in ws-end-clock.ts; this module is the connection: routing each message to its request, and the
 * queue. It re-exports the public pieces of the others, so callers import from here alone.
 *
 * A request ends when its take reached a done status AND its end-of-take marker arrived AND every
 * frame before the marker is there (frames may arrive out of order, so the marker can overtake
 * audio). A failure status or an error message for the request ends it at once. Every other wait
 * (first message, end of take, stragglers, half-ended requests concluded early) is bounded by the
 * request's clock, which this module tells what arrived.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { recordCharacters, recordEvidence } from '../evidence/evidence.ts';
import type { ReassembledTake } from './reassembler.ts';
import { WsClientError } from './ws-client-error.ts';
import { openWebsocket, type WebsocketConnectOptions } from './ws-connect.ts';
import { EndOfRequestClock, learnedSilenceFromStart } from './ws-end-clock.ts';
import { decodeAudioFrame, FrameError, frameRequestKey, requestKey } from './ws-frame.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  DONE,
  type FrameFailure,
  firstPartPlayable,
  missingSummary,
  newStreamedRequest,
  type Pending,
  type ReceivedFrame,
  type ReceivedText,
  type RequestOutcome,
  reassembleRequest,
  requestEvidence,
  type StreamedRequest,
  type TakeRequestOptions,
} from './ws-request.ts';

export { WsClientError, type WsClientErrorKind } from './ws-client-error.ts';
export {
  DEFAULT_STREAM_TIMEOUTS,
  type EarlyConclusion,
  earlyConclusions,
  type FrameFailure,
  type ReceivedFrame,
  type ReceivedText,
  type RequestOutcome,
  resetEarlyConclusions,
  type StreamedRequest,
  type StreamTimeouts,
  type TakeMessage,
  type TakeRequestOptions,
} from './ws-request.ts';
export { fetchWebsocketUrl, type UrlSource, WEBSOCKET_URL_PATHS, type WebsocketUrlForm } from './ws-url.ts';

/** A request in flight on this connection, with the clock that bounds it. */
interface Live extends Pending {
  clock: EndOfRequestClock;
}

export class SpeakStreamConnection {
  /** Every message in arrival order (text and binary), for the serialization and ordering checks. */
  readonly arrivals: Array<{
    seq: number;
    atMs: number;
    kind: 'text' | 'binary';
    requestKey?: string;
    empty?: boolean;
  }> = [];
  /** Text messages not naming a request this connection sent (connection-level status, strays). */
  readonly connectionMessages: ReceivedText[] = [];
  /** Binary messages that are not valid frames. */
  readonly frameFailures: FrameFailure[] = [];
  /** Valid frames naming no request of this connection. */
  readonly strayFrames: ReceivedFrame[] = [];
  /** Every binary message as received, when the connection was opened with `keepRaw` (recording fixtures). */
  readonly rawBinary: Array<{ seq: number; bytes: Buffer }> = [];
  closeInfo?: { code: number; reason: string; atMs: number };

  private seq = 0;
  private readonly pending = new Map<string, Live>();
  private readonly finished = new Map<string, StreamedRequest>();
  private readonly queue: Live[] = [];
  private readonly takeToRequest = new Map<string, string>();
  private readonly waiters = new Set<{
    test: (m: ReceivedText) => boolean;
    resolve: (m: ReceivedText) => void;
  }>();

  private constructor(
    private readonly socket: WebSocket,
    readonly where: string,
    private readonly keepRaw = false,
  ) {
    socket.on('message', (data, isBinary) =>
      this.onMessage(data as Buffer | Buffer[] | ArrayBuffer, isBinary),
    );
    socket.on('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
    // Errors after the handshake are followed by 'close'; the listener keeps them from being thrown.
    socket.on('error', () => undefined);
  }

  /**
   * Opens a connection; never sends Authorization unless `headers` says so (tests of that rule).
   * Rejects with 'upgrade-refused' (HTTP status and body), 'connect-timeout' or 'connect-error'.
   * With `reissue` (and `issuedAtMs`, `configuredLifetimeS`), a URL gone stale before an attempt
   * (the run's pace, a 429/503's Retry-After) is asked for again instead of sent (ws-connect.ts).
   */
  static connect(
    url: string,
    o: WebsocketConnectOptions & { keepRaw?: boolean },
  ): Promise<SpeakStreamConnection> {
    return openWebsocket(url, o, (socket, where) => new SpeakStreamConnection(socket, where, o.keepRaw));
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends a text frame as is (for malformed-input tests). */
  sendText(text: string): void {
    if (!this.open)
      throw new WsClientError(
        'send-failed',
        `cannot send to ${this.where}: the connection is ${this.stateName()}`,
      );
    this.socket.send(text);
  }

  /** Submits a take request; resolves when it ended (whatever the outcome: never rejects for the server's faults). */
  async generate(data: unknown, o: TakeRequestOptions): Promise<StreamedRequest> {
    const key = requestKey(o.requestId);
    if (this.pending.has(key) || this.finished.has(key))
      throw new Error(`request id ${String(o.requestId)} reused on one connection`);
    const mode = o.mode ?? 'parts';
    const message = {
      command: o.command ?? '/takes/generate',
      request_id: o.requestId,
      ...(o.mode ? { stream: { mode: o.mode } } : {}),
      data,
    };
    const request = newStreamedRequest(o.requestId, mode, performance.now());
    const ended = await new Promise<StreamedRequest>((resolve) => {
      const pending: Pending = {
        request,
        timeouts: { ...DEFAULT_STREAM_TIMEOUTS, ...o.timeouts },
        resolve,
        doneSeen: false,
        markerSeen: false,
        anyMessage: false,
      };
      const p: Live = Object.assign(pending, {
        clock: new EndOfRequestClock(pending, (outcome, diagnostic, seq) =>
          this.finish(p, outcome, diagnostic, seq),
        ),
      });
      this.pending.set(key, p);
      this.queue.push(p);
      try {
        this.sendText(JSON.stringify(message));
        // Text sent for synthesis is billed on real services: count it like the REST client does.
        const text = (data as { text?: unknown } | null)?.text;
        if (typeof text === 'string') recordCharacters(text.length);
      } catch (error) {
        this.finish(p, 'closed', (error as Error).message);
        return;
      }
      if (this.queue[0] === p) this.startClocks(p);
    });
    // After the await: back in the caller's context, so the evidence goes to the test that asked.
    recordEvidence(requestEvidence(this.where, message, ended));
    return ended;
  }

  /** Waits for a text message matching `test` (e.g. the error answer to a malformed request). */
  waitForText(test: (m: ReceivedText) => boolean, timeoutMs: number, what: string): Promise<ReceivedText> {
    const seen = [
      ...this.connectionMessages,
      ...[...this.finished.values()].flatMap((r) => r.statusMessages),
    ].find(test);
    if (seen) return Promise.resolve(seen);
    // A connection that answered nothing, in a run that learned connections stay silent: not waited out again.
    const learned = this.answeredNoRequest() ? learnedSilenceFromStart(timeoutMs) : undefined;
    const waitMs = learned?.allowedMs ?? timeoutMs;
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (m: ReceivedText) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const last = this.connectionMessages.slice(-3).map((m) => m.text.slice(0, 200));
        reject(
          new WsClientError(
            'wait-timeout',
            learned
              ? `no ${what} from ${this.where}, not waited for past ${waitMs} ms (the run already learned it): ${learned.sentence}`
              : `no ${what} from ${this.where} within ${timeoutMs} ms (connection ${this.stateName()}; last connection-level messages: ${last.length ? last.join(' | ') : 'none'})`,
          ),
        );
      }, waitMs);
      this.waiters.add(waiter);
    });
  }

  /** Closes (bounded); pending requests end as 'closed'. */
  async close(timeoutMs = 2000): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.socket.terminate();
        resolve();
      }, timeoutMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.socket.close(1000, 'speakcheck done');
    });
  }

  private stateName(): string {
    return ['connecting', 'open', 'closing', 'closed'][this.socket.readyState] ?? 'unknown';
  }

  /** No request on this connection got a message yet (a greeting on connect is no answer to one). */
  private answeredNoRequest(): boolean {
    return (
      ![...this.finished.values()].some(
        (r) => r.takeMessages.length + r.statusMessages.length + r.frames.length > 0,
      ) && ![...this.pending.values()].some((p) => p.anyMessage)
    );
  }

  private startClocks(p: Live): void {
    p.request.inLineAt = performance.now();
    p.clock.startInLine(
      () => this.strayHint(p),
      () => ({
        open: this.open,
        earlierAnswered: [...this.finished.values()].some(
          (r) => r.takeMessages.length + r.statusMessages.length + r.frames.length > 0,
        ),
      }),
    );
  }

  /** Names messages whose request_id looks like this request's but has another type (1 vs "1"). */
  private strayHint(p: Pending): string {
    const id = String(p.request.requestId);
    const lookalikes = [
      ...this.connectionMessages.filter(
        (m) => String((m.json as { request_id?: unknown } | undefined)?.request_id) === id,
      ),
      ...this.strayFrames.filter((f) => String(f.metadata.request_id) === id),
    ];
    return lookalikes.length
      ? `; ${lookalikes.length} message(s) named request_id ${id} with another JSON type (sent ${typeof p.request.requestId})`
      : `; connection-level messages: ${this.connectionMessages.length}, frames for no known request: ${this.strayFrames.length}, malformed frames: ${this.frameFailures.length}`;
  }

  private onMessage(data: Buffer | Buffer[] | ArrayBuffer, isBinary: boolean): void {
    const seq = this.seq++;
    const atMs = performance.now();
    const bytes = Buffer.isBuffer(data)
      ? data
      : Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.from(data);
    if (isBinary) this.onBinary(seq, atMs, bytes);
    else this.onText(seq, atMs, bytes.toString('utf8'));
  }

  private onText(seq: number, atMs: number, text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const m: ReceivedText = { seq, atMs, json, text };
    const obj =
      json && typeof json === 'object' && !Array.isArray(json)
        ? (json as Record<string, unknown>)
        : undefined;
    const key =
      obj && 'request_id' in obj && obj.request_id !== null ? requestKey(obj.request_id) : undefined;
    const p = key ? this.pending.get(key) : undefined;
    this.arrivals.push({ seq, atMs, kind: 'text', ...(key ? { requestKey: key } : {}) });
    if (!p || !obj) {
      this.connectionMessages.push(m);
      for (const w of this.waiters) if (w.test(m)) w.resolve(m);
      // A late message for a request that already ended is kept on it, for the reports.
      const ended = key ? this.finished.get(key) : undefined;
      if (ended && obj && 'data' in obj)
        ended.takeMessages.push({ seq, atMs, data: obj.data as Record<string, unknown>, raw: json });
      return;
    }
    this.touch(p, atMs);
    const r = p.request;
    if (obj.data && typeof obj.data === 'object') {
      const take = obj.data as Record<string, unknown>;
      r.takeMessages.push({ seq, atMs, data: take, raw: json });
      r.lastTake = take;
      if (typeof take.take_id === 'string') {
        r.takeId ??= take.take_id;
        this.takeToRequest.set(take.take_id, key as string);
      }
      const status = String(take.status);
      if (status === 'error' || status === 'timeout') {
        this.finish(p, 'take-failed', `the take reached status ${status}`, seq);
        return;
      }
      if (DONE.has(status)) p.doneSeen = true;
    } else if ('status' in obj) {
      r.statusMessages.push(m);
      for (const w of this.waiters) if (w.test(m)) w.resolve(m);
      if (obj.status === 'error') {
        this.finish(p, 'error-message', `error message: ${String(obj.message)}`, seq);
        return;
      }
    }
    this.maybeEnd(p, seq);
  }

  private onBinary(seq: number, atMs: number, bytes: Buffer): void {
    if (this.keepRaw) this.rawBinary.push({ seq, bytes });
    let frame: ReceivedFrame;
    try {
      frame = { seq, atMs, ...decodeAudioFrame(bytes) };
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.arrivals.push({ seq, atMs, kind: 'binary' });
      this.frameFailures.push({ seq, atMs, bytes: bytes.length, error });
      return;
    }
    const key = frameRequestKey(frame.metadata, this.takeToRequest);
    this.arrivals.push({
      seq,
      atMs,
      kind: 'binary',
      ...(key ? { requestKey: key } : {}),
      empty: frame.audio.length === 0,
    });
    const p = key ? this.pending.get(key) : undefined;
    if (!p) {
      const ended = key ? this.finished.get(key) : undefined;
      // Kept on the ended request: the reassembler then reports it as arriving after the end.
      if (ended) ended.frames.push(frame);
      else this.strayFrames.push(frame);
      return;
    }
    this.touch(p, atMs);
    const r = p.request;
    r.frames.push(frame);
    if (frame.audio.length > 0) r.timings.firstAudioMs ??= atMs - r.sentAt;
    if (r.timings.firstPlayableMs === undefined && firstPartPlayable(r))
      r.timings.firstPlayableMs = atMs - r.sentAt;
    if (frame.audio.length === 0 && (r.mode === 'parts' || !frame.metadata.chunk_id)) {
      // Possibly the end-of-take marker (an empty chunk 0 / empty part); the reassembler decides.
      p.markerSeen = true;
    }
    this.maybeEnd(p, seq);
  }

  private touch(p: Live, atMs: number): void {
    if (!p.anyMessage) {
      p.anyMessage = true;
      p.clock.firstMessage();
      p.request.timings.firstStatusMs ??= atMs - p.request.sentAt;
    }
  }

  private maybeEnd(p: Live, seq: number): void {
    p.clock.rearmSilenceGrace();
    if (!p.doneSeen || !p.markerSeen) return;
    const r = p.request;
    if (reassembleRequest(r).complete) this.finish(p, 'ended', undefined, seq);
    else p.clock.awaitStragglers(seq);
  }

  private finish(p: Live, outcome: RequestOutcome, diagnostic?: string, seq?: number): void {
    const r = p.request;
    const key = requestKey(r.requestId);
    if (!this.pending.has(key)) return;
    p.clock.stop();
    this.pending.delete(key);
    this.finished.set(key, r);
    r.outcome = outcome;
    r.endedAt = performance.now();
    r.timings.endMs = r.endedAt - r.sentAt;
    r.endedAtSeq = seq ?? this.seq - 1;
    if (diagnostic) r.diagnostic = diagnostic;
    r.reassembly = this.reassembleRequest(r);
    const index = this.queue.indexOf(p);
    if (index >= 0) this.queue.splice(index, 1);
    const next = this.queue[0];
    if (index === 0 && next) this.startClocks(next);
    p.resolve(r);
  }

  /** Re-runs the reassembly of an ended request (frames that arrived after its end included). */
  reassembleRequest(r: StreamedRequest): ReassembledTake {
    return reassembleRequest(r);
  }

  private onClose(code: number, reason: string): void {
    this.closeInfo = { code, reason, atMs: performance.now() };
    for (const p of [...this.pending.values()]) {
      this.finish(
        p,
        'closed',
        missingSummary(
          p,
          `was cut: the connection closed (code ${code}${reason ? `, "${reason}"` : ''}) while it was pending`,
        ),
      );
    }
  }
}
