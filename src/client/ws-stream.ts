/**
 * The websocket stream client: asks the REST API for a worker URL, connects to it WITHOUT any
 * Authorization (the secret in the URL is the credential: Authentication 9), submits take requests
 * and collects everything the worker sends, stamped with arrival order and time.
 *
 * A request ends when its take reached a done status AND its end-of-take marker arrived AND every
 * frame before the marker is there (frames may arrive out of order, so the marker can overtake
 * audio); after done + marker it waits at most `settleMs` for stragglers. A failure status or an
 * error message for the request ends it at once. Every wait is bounded and a timeout says exactly
 * what had and had not arrived.
 *
 * Early conclusion from evidence (so a broken server gets its verdict in seconds, not after every
 * request's full timeout): a request that showed its done status but no end-of-take marker and then
 * stays silent for `silenceGraceMs` (2 s), or its marker but no done status for `doneAfterMarkerMs`
 * (5 s), ends with that finding.
 * The finding is remembered for the run (this process: one suite file): a later request that
 * reaches the same state concludes at once, naming the request that first showed it. Requests on one connection are served one after another (spec),
 * so a queued request's clocks (first message, end of take) start when the one before it ends.
 */
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { SpeakcheckError } from '../errors.ts';
import { type EvidenceEntry, recordCharacters, recordEvidence } from './evidence.ts';
import { type ArrivedFrame, type ReassembledTake, reassemble, type StreamMode } from './reassembler.ts';
import { describeWebsocketUrl, REDACTED, redactText, registerSecret } from './redact.ts';
import { decodeAudioFrame, FrameError, type RequestId } from './ws-frame.ts';

export type WebsocketUrlForm = 'spec' | 'sdk';

/** The part of the kit's SpeakClient this module needs (kept structural so it stays a leaf). */
export interface UrlSource {
  get(
    path: string,
    o?: { query?: Record<string, string | number>; timeoutMs?: number },
  ): Promise<{ status: number; json: unknown; text: string }>;
}

export type WsClientErrorKind =
  | 'url-endpoint'
  | 'upgrade-refused'
  | 'connect-timeout'
  | 'connect-error'
  | 'send-failed'
  | 'wait-timeout'
  | 'closed';

export class WsClientError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_WS_CLIENT';
  override readonly name = 'WsClientError';
  constructor(
    readonly kind: WsClientErrorKind,
    message: string,
    /** The HTTP status of a refused upgrade. */
    readonly status?: number,
    readonly body?: string,
  ) {
    super(message);
  }
}

/** The URL is a credential: make sure no part of it reaches a report. */
function registerUrlSecrets(url: string): void {
  registerSecret(url);
  try {
    const u = new URL(url);
    for (const value of u.searchParams.values()) registerSecret(value);
    for (const segment of u.pathname.split('/')) if (segment.length >= 16) registerSecret(segment);
  } catch {
    // Not a URL: the whole string is registered above.
  }
}

export const WEBSOCKET_URL_PATHS: Record<
  WebsocketUrlForm,
  (model: string) => { path: string; field: string }
> = {
  // speak-v1.md, Endpoints: Websocket address.
  spec: () => ({ path: '/v1/speak/websocket', field: 'websocket_url' }),
  // wire-facts.md: the vendor SDK's form.
  sdk: (model) => ({
    path: `/v1/speak/websocket/${encodeURIComponent(model)}`,
    field: 'worker_websocket_url',
  }),
};

/** GET the worker URL for `model` in either form; throws a WsClientError saying what came back. */
export async function fetchWebsocketUrl(
  api: UrlSource,
  model: string,
  form: WebsocketUrlForm = 'spec',
  o: { timeoutMs?: number } = {},
): Promise<string> {
  const { path, field } = WEBSOCKET_URL_PATHS[form](model);
  const exchange = await api.get(path, {
    ...(form === 'spec' ? { query: { model } } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  const where = `GET ${path}${form === 'spec' ? `?model=${model}` : ''}`;
  if (exchange.status !== 200) {
    throw new WsClientError(
      'url-endpoint',
      `${where} answered ${exchange.status}, expected 200 with {"${field}": ...}: ${exchange.text.slice(0, 200)}`,
      exchange.status,
    );
  }
  const value = (exchange.json as Record<string, unknown> | undefined)?.[field];
  if (typeof value !== 'string' || value === '') {
    throw new WsClientError(
      'url-endpoint',
      `${where} answered 200 but "${field}" is ${value === undefined ? 'missing' : JSON.stringify(value)}`,
    );
  }
  registerUrlSecrets(value);
  return value;
}

export interface ReceivedText {
  seq: number;
  atMs: number;
  /** Parsed JSON, or undefined when the text was not JSON (then `text` says what came). */
  json: unknown;
  text: string;
}

export interface ReceivedFrame extends ArrivedFrame {
  atMs: number;
}

export interface FrameFailure {
  seq: number;
  atMs: number;
  bytes: number;
  error: FrameError;
}

export interface StreamTimeouts {
  /** From when the request is first in line (sent, and every earlier request ended). */
  firstMessageMs: number;
  /** From when the request is first in line until it ends. */
  endOfTakeMs: number;
  /** After done + end marker, how long to wait for frames the marker overtook. */
  settleMs: number;
  /**
   * After a done status without an end marker, how long the request may stay silent before it ends
   * with that finding.
   */
  silenceGraceMs: number;
  /**
   * After an end marker without a done status, the same. Longer: a server may well store the take
   * (a database write) between sending the last audio and announcing ready.
   */
  doneAfterMarkerMs: number;
}

export const DEFAULT_STREAM_TIMEOUTS: StreamTimeouts = {
  firstMessageMs: 10_000,
  endOfTakeMs: 60_000,
  settleMs: 1_000,
  silenceGraceMs: 2_000,
  doneAfterMarkerMs: 5_000,
};

/** A half-ended request: which of the two ends it showed. */
export type EarlyConclusion = 'done-without-end-marker' | 'end-marker-without-done';

/**
 * Early conclusions of this run (this process), by kind, with the sentence that concluded the first
 * one: later requests in the same state conclude without waiting their grace again.
 */
const concludedThisRun = new Map<EarlyConclusion, string>();

/** What the run has concluded early so far (for reports and tests). */
export function earlyConclusions(): ReadonlyMap<EarlyConclusion, string> {
  return concludedThisRun;
}

/** Forgets the run's early conclusions (tests that start a new "run" in one process). */
export function resetEarlyConclusions(): void {
  concludedThisRun.clear();
}

export interface TakeRequestOptions {
  requestId: RequestId;
  /** Undefined: no `stream` member at all (the worker's default, parts mode). */
  mode?: StreamMode;
  /** Sent as `command`; `/takes/generate` unless a test says otherwise. */
  command?: string;
  timeouts?: Partial<StreamTimeouts>;
}

export type RequestOutcome = 'ended' | 'take-failed' | 'error-message' | 'timeout' | 'closed';

export interface TakeMessage {
  seq: number;
  atMs: number;
  /** The `data` member: a Take (status, take_id, info ...). */
  data: Record<string, unknown>;
  raw: unknown;
}

export interface StreamedRequest {
  requestId: RequestId;
  mode: StreamMode;
  /** performance.now() when the request was sent / first in line / ended. */
  sentAt: number;
  inLineAt: number;
  endedAt?: number;
  outcome: RequestOutcome;
  /** Why it ended other than 'ended', or what was still missing. */
  diagnostic?: string;
  takeMessages: TakeMessage[];
  /** `{status, message, request_id}` messages naming this request. */
  statusMessages: ReceivedText[];
  frames: ReceivedFrame[];
  takeId?: string;
  /** The last Take seen (its info, once ready). */
  lastTake?: Record<string, unknown>;
  /** Arrival number of the message that ended the request. */
  endedAtSeq?: number;
  /**
   * Milliseconds from sending: first text message; first non-empty audio frame (time to first
   * chunk); first playable audio (part 0's WAV header AND samples after it arrived: a player that
   * needs the header can start then); end of the request.
   */
  timings: { firstStatusMs?: number; firstAudioMs?: number; firstPlayableMs?: number; endMs?: number };
  /** The reassembled take, with findings, computed when the request ended. */
  reassembly: ReassembledTake;
}

const DONE = new Set(['ready', 'error', 'timeout']);

/** Part 0's header and some of its samples are here (in either mode). */
function firstPartPlayable(r: StreamedRequest): boolean {
  const part0 = r.frames.filter((f) => f.metadata.part_id === 0 && f.audio.length > 0);
  if (r.mode === 'parts') return part0.some((f) => f.audio.length > 44);
  const header = part0.find((f) => !f.metadata.chunk_id);
  if (!header) return false;
  // Playable in order: the header, then the part's first audio bytes (chunk 1), whichever came last.
  return header.audio.length > 44 || part0.some((f) => f.metadata.chunk_id === 1);
}

function requestKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

interface Pending {
  request: StreamedRequest;
  timeouts: StreamTimeouts;
  resolve: (r: StreamedRequest) => void;
  timer?: NodeJS.Timeout;
  settleTimer?: NodeJS.Timeout;
  graceTimer?: NodeJS.Timeout;
  doneSeen: boolean;
  markerSeen: boolean;
  anyMessage: boolean;
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
  private readonly pending = new Map<string, Pending>();
  private readonly finished = new Map<string, StreamedRequest>();
  private readonly queue: Pending[] = [];
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
   */
  static connect(
    url: string,
    o: { timeoutMs: number; headers?: Record<string, string>; keepRaw?: boolean },
  ): Promise<SpeakStreamConnection> {
    registerUrlSecrets(url);
    const where = describeWebsocketUrl(url);
    const started = performance.now();
    const evidence = (status: number | null, headers: Record<string, string>, body: string, error?: string) =>
      recordEvidence({
        method: 'GET (websocket upgrade)',
        url: where,
        requestHeaders: Object.fromEntries(
          Object.entries(o.headers ?? {}).map(([k, v]) => [k, /authorization/i.test(k) ? REDACTED : v]),
        ),
        status,
        headers,
        body,
        ms: Math.round(performance.now() - started),
        ...(error ? { error } : {}),
      } satisfies EvidenceEntry);
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        handshakeTimeout: o.timeoutMs,
        headers: o.headers ?? {},
        followRedirects: false,
      });
      let settled = false;
      const fail = (error: WsClientError) => {
        if (settled) return;
        settled = true;
        clearTimeout(guard);
        evidence(error.status ?? null, {}, error.body ?? '', error.message);
        socket.removeAllListeners();
        socket.on('error', () => undefined);
        socket.terminate();
        reject(error);
      };
      // ws's handshakeTimeout covers the HTTP upgrade; this guard also covers a stalled TCP connect.
      const guard = setTimeout(
        () =>
          fail(
            new WsClientError(
              'connect-timeout',
              `no websocket upgrade from ${where} within ${o.timeoutMs} ms`,
            ),
          ),
        o.timeoutMs + 100,
      );
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 4096) chunks.push(c);
          size += c.length;
        });
        const finish = () => {
          const body = Buffer.concat(chunks).toString('utf8').slice(0, 1000);
          fail(
            new WsClientError(
              'upgrade-refused',
              `${where} refused the websocket upgrade with HTTP ${res.statusCode}${body ? `: ${body}` : ''}`,
              res.statusCode,
              body,
            ),
          );
        };
        res.once('end', finish);
        res.once('error', finish);
        // A body that never ends must not hold the connect past its bound.
        setTimeout(finish, 1000).unref();
      });
      socket.once('error', (err: Error) => {
        const timedOut = /timed out|timeout/i.test(err.message);
        fail(
          new WsClientError(
            timedOut ? 'connect-timeout' : 'connect-error',
            timedOut
              ? `no websocket upgrade from ${where} within ${o.timeoutMs} ms`
              : `cannot connect to ${where}: ${err.message}`,
          ),
        );
      });
      socket.once('upgrade', (res) => {
        evidence(101, Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), '');
      });
      socket.once('open', () => {
        if (settled) return;
        settled = true;
        clearTimeout(guard);
        socket.removeAllListeners('error');
        socket.removeAllListeners('unexpected-response');
        resolve(new SpeakStreamConnection(socket, where, o.keepRaw));
      });
    });
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
    const now = performance.now();
    const request: StreamedRequest = {
      requestId: o.requestId,
      mode,
      sentAt: now,
      inLineAt: now,
      outcome: 'timeout',
      takeMessages: [],
      statusMessages: [],
      frames: [],
      timings: {},
      reassembly: {
        requestId: o.requestId,
        mode,
        parts: [],
        pcm: Buffer.alloc(0),
        totalSamples: 0,
        complete: false,
        findings: [],
      },
    };
    const ended = await new Promise<StreamedRequest>((resolve) => {
      const p: Pending = {
        request,
        timeouts: { ...DEFAULT_STREAM_TIMEOUTS, ...o.timeouts },
        resolve,
        doneSeen: false,
        markerSeen: false,
        anyMessage: false,
      };
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
    recordEvidence(this.requestEvidence(message, ended));
    return ended;
  }

  /** The request as an evidence entry: what was sent, how it ended, and its timings. */
  private requestEvidence(message: unknown, r: StreamedRequest): EvidenceEntry {
    const t = r.timings;
    const fmt = (v: number | undefined) => (v === undefined ? 'never' : `${v.toFixed(1)} ms`);
    const statuses = r.takeMessages.map((m) => String(m.data.status)).join(' → ') || 'none';
    const summary = [
      `outcome ${r.outcome}${r.diagnostic ? ` (${r.diagnostic})` : ''}`,
      `statuses ${statuses}`,
      `${r.frames.length} audio frame(s), ${r.reassembly.parts.length} part(s), ${r.reassembly.totalSamples} samples`,
      `first status ${fmt(t.firstStatusMs)}, first audio ${fmt(t.firstAudioMs)}, first playable ${fmt(t.firstPlayableMs)}, end ${fmt(t.endMs)}`,
      ...r.reassembly.findings.slice(0, 5).map((f) => `[${f.kind}] ${f.message}`),
    ].join('; ');
    return {
      method: `WS ${String((message as { command?: unknown }).command)}`,
      url: this.where,
      requestHeaders: {},
      requestBody: redactText(JSON.stringify(message)).slice(0, 2000),
      status: null,
      headers: {},
      body: redactText(summary).slice(0, 2000),
      ms: Math.round(t.endMs ?? 0),
    };
  }

  /** Waits for a text message matching `test` (e.g. the error answer to a malformed request). */
  waitForText(test: (m: ReceivedText) => boolean, timeoutMs: number, what: string): Promise<ReceivedText> {
    const seen = [
      ...this.connectionMessages,
      ...[...this.finished.values()].flatMap((r) => r.statusMessages),
    ].find(test);
    if (seen) return Promise.resolve(seen);
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
            `no ${what} from ${this.where} within ${timeoutMs} ms (connection ${this.stateName()}; last connection-level messages: ${last.length ? last.join(' | ') : 'none'})`,
          ),
        );
      }, timeoutMs);
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

  private startClocks(p: Pending): void {
    p.request.inLineAt = performance.now();
    const { firstMessageMs, endOfTakeMs } = p.timeouts;
    p.timer = setTimeout(() => {
      if (!p.anyMessage) {
        this.finish(
          p,
          'timeout',
          `no message for request ${String(p.request.requestId)} within ${firstMessageMs} ms of it being first in line${this.strayHint(p)}`,
        );
      } else {
        p.timer = setTimeout(
          () => this.finish(p, 'timeout', this.missingSummary(p, `did not end within ${endOfTakeMs} ms`)),
          Math.max(0, endOfTakeMs - firstMessageMs),
        );
      }
    }, firstMessageMs);
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

  private missingSummary(p: Pending, head: string): string {
    const r = p.request;
    const statuses = r.takeMessages.map((m) => String(m.data.status)).join(' → ') || 'none';
    const take = reassemble(
      [{ requestId: r.requestId, mode: r.mode, ...(r.takeId ? { takeId: r.takeId } : {}) }],
      r.frames,
    ).takes[0];
    const problems = take?.findings
      .map((f) => f.message)
      .slice(0, 3)
      .join('; ');
    return `request ${String(r.requestId)} ${head}: statuses ${statuses}${p.doneSeen ? '' : ' (no done status)'}; ${r.frames.length} audio frame(s)${p.markerSeen ? ', end-of-take marker seen' : ', no end-of-take marker'}${problems ? `; ${problems}` : ''}`;
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
    const rid = frame.metadata.request_id;
    const key =
      rid === null || rid === undefined ? this.takeToRequest.get(frame.metadata.take_id) : requestKey(rid);
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

  private touch(p: Pending, atMs: number): void {
    if (!p.anyMessage) {
      p.anyMessage = true;
      p.request.timings.firstStatusMs ??= atMs - p.request.sentAt;
    }
  }

  private maybeEnd(p: Pending, seq: number): void {
    this.armSilenceGrace(p);
    if (!p.doneSeen || !p.markerSeen) return;
    const r = p.request;
    const take = reassemble(
      [{ requestId: r.requestId, mode: r.mode, ...(r.takeId ? { takeId: r.takeId } : {}) }],
      r.frames,
    ).takes[0];
    if (take?.complete) {
      this.finish(p, 'ended', undefined, seq);
      return;
    }
    p.settleTimer ??= setTimeout(
      () =>
        this.finish(
          p,
          'ended',
          this.missingSummary(
            p,
            `still incomplete ${p.timeouts.settleMs} ms after its done status and end marker`,
          ),
          seq,
        ),
      p.timeouts.settleMs,
    );
  }

  /**
   * Half-ended (done without marker, or marker without done): every message of the request re-arms
   * the grace; when it runs out in silence, the request ends with what is missing. Once the run has
   * seen this state conclude, the grace is not waited again.
   */
  private armSilenceGrace(p: Pending): void {
    clearTimeout(p.graceTimer);
    p.graceTimer = undefined;
    const kind: EarlyConclusion | undefined =
      p.doneSeen && !p.markerSeen
        ? 'done-without-end-marker'
        : p.markerSeen && !p.doneSeen
          ? 'end-marker-without-done'
          : undefined;
    if (!kind) return;
    const earlier = concludedThisRun.get(kind);
    const graceMs = earlier
      ? 0
      : kind === 'done-without-end-marker'
        ? p.timeouts.silenceGraceMs
        : p.timeouts.doneAfterMarkerMs;
    p.graceTimer = setTimeout(() => {
      const silence = earlier
        ? ' (concluded at once: an earlier request of this run already showed it)'
        : `, then nothing for ${graceMs} ms`;
      const what =
        kind === 'done-without-end-marker'
          ? `showed its done status${silence}: no end-of-take marker (an audio message without audio, part_id one past the last part) arrived`
          : `sent its end-of-take marker${silence}: no done Take status (ready) arrived`;
      const diagnostic = this.missingSummary(p, what);
      if (!earlier) concludedThisRun.set(kind, diagnostic);
      this.finish(p, 'ended', diagnostic);
    }, graceMs);
  }

  private finish(p: Pending, outcome: RequestOutcome, diagnostic?: string, seq?: number): void {
    const r = p.request;
    const key = requestKey(r.requestId);
    if (!this.pending.has(key)) return;
    clearTimeout(p.timer);
    clearTimeout(p.settleTimer);
    clearTimeout(p.graceTimer);
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
    return reassemble(
      [
        {
          requestId: r.requestId,
          mode: r.mode,
          ...(r.takeId ? { takeId: r.takeId } : {}),
          ...(r.endedAtSeq !== undefined ? { endedAtSeq: r.endedAtSeq } : {}),
        },
      ],
      r.frames,
    ).takes[0] as ReassembledTake;
  }

  private onClose(code: number, reason: string): void {
    this.closeInfo = { code, reason, atMs: performance.now() };
    for (const p of [...this.pending.values()]) {
      this.finish(
        p,
        'closed',
        this.missingSummary(
          p,
          `was cut: the connection closed (code ${code}${reason ? `, "${reason}"` : ''}) while it was pending`,
        ),
      );
    }
  }
}
