/**
 * Takes over one worker websocket (k6/websockets, event loop): the requests are sent one after
 * another (a connection serialises them anyway) and each is timed from the moment its request frame
 * is sent: first status frame, first audio frame, end of take (wire-facts.md, Websocket protocol).
 */
import { clearTimeout, setTimeout } from 'k6/timers';
import { type BinaryType, type ErrorEvent, type MessageEvent, WebSocket } from 'k6/websockets';
import type { WsRequest } from '../../schemas/types.ts';
import { isEndOfTake, parseAudioFrame } from './framing.ts';
import { type FrameArrival, type StreamFigures, streamFigures } from './stream-figures.ts';

export type StreamMode = 'parts' | 'chunks';

export interface WsTakeRequest {
  text: string;
  voiceId: string;
  mode: StreamMode;
}

export interface WsTakeResult {
  ok: boolean;
  /** Why the take failed (never contains a secret). */
  error?: string;
  firstStatusMs?: number;
  firstAudioMs?: number;
  /** First frame carrying samples (a header-only chunk is audio but not yet playable sound). */
  firstSamplesMs?: number;
  endMs?: number;
  audioFrames: number;
  /** What a listener hears (stream-figures.ts): first playable audio, last byte, real-time factors, gaps. */
  stream?: StreamFigures;
}

export interface WsSessionOptions {
  requestTimeoutMs: number;
  onConnected?: (connectMs: number) => void;
  onResult: (request: WsTakeRequest, result: WsTakeResult) => void;
  /** The connection never opened; the address should not be reused. */
  onConnectFailed?: (why: string) => void;
  /** The connection closed (after its requests, a failure, or never having opened). */
  onClose?: () => void;
}

const CONNECT_RETRY_PAUSE_MS = 1000;

let requestCounter = 0;

/** Opens `url`, runs the requests in order, closes. Returns at once; k6 ends the iteration when the socket closes. */
export function runWsTakes(url: string, requests: WsTakeRequest[], o: WsSessionOptions): void {
  const openedAt = Date.now();
  const ws = new WebSocket(url);
  // The enum is a type only: k6 takes the plain string.
  ws.binaryType = 'arraybuffer' as BinaryType;

  let index = -1;
  let current:
    | {
        id: string;
        sentAt: number;
        result: WsTakeResult;
        ready: boolean;
        ended: boolean;
        frames: FrameArrival[];
      }
    | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  /** Ends the current request; `keepConnection`: the failure was the take's, the connection is still good. */
  const finish = (error?: string, keepConnection = false): void => {
    if (!current) return;
    if (timer !== undefined) clearTimeout(timer);
    const result = current.result;
    result.stream = streamFigures(current.frames);
    if (error) {
      result.ok = false;
      result.error = error;
    }
    o.onResult(requests[index]!, result);
    current = undefined;
    // After a connection-level failure its state is unknown: send no more on it.
    if (error && !keepConnection) ws.close();
    else next();
  };

  const next = (): void => {
    index += 1;
    const request = requests[index];
    if (!request) {
      ws.close();
      return;
    }
    requestCounter += 1;
    const id = `k6-${__VU}-${requestCounter}`;
    const message: WsRequest = {
      command: '/takes/generate',
      request_id: id,
      stream: { mode: request.mode },
      data: { text: request.text, voice_id: request.voiceId },
    };
    const frame = JSON.stringify(message);
    current = {
      id,
      sentAt: Date.now(),
      result: { ok: true, audioFrames: 0 },
      ready: false,
      ended: false,
      frames: [],
    };
    ws.send(frame);
    timer = setTimeout(() => finish(`no end of take within ${o.requestTimeoutMs} ms`), o.requestTimeoutMs);
  };

  ws.onopen = () => {
    opened = true;
    o.onConnected?.(Date.now() - openedAt);
    next();
  };

  ws.onmessage = (event?: MessageEvent) => {
    const now = Date.now();
    if (!current || !event) return;
    const r = current.result;
    if (typeof event.data === 'string') {
      const message = JSON.parse(event.data) as {
        request_id?: unknown;
        status?: string;
        message?: string;
        data?: { status?: string; take_id?: string };
      };
      if (message.request_id !== undefined && message.request_id !== current.id) return;
      if (message.data === undefined) {
        // A connection-level message: only `error` concerns the request.
        if (message.status === 'error') finish(`worker error: ${message.message ?? '(no message)'}`, true);
        return;
      }
      if (r.firstStatusMs === undefined) r.firstStatusMs = now - current.sentAt;
      const status = message.data.status;
      if (status === 'error' || status === 'timeout') {
        return finish(
          `take ${message.data.take_id ?? '?'} ended in ${status} (text: ${JSON.stringify(requests[index]!.text)})`,
          true,
        );
      }
      if (status === 'ready') current.ready = true;
    } else {
      let frame: ReturnType<typeof parseAudioFrame>;
      try {
        // binaryType is arraybuffer: binary messages never arrive as a Blob.
        frame = parseAudioFrame(event.data as ArrayBuffer);
      } catch (e) {
        return finish(String(e));
      }
      if (
        frame.meta.request_id !== undefined &&
        frame.meta.request_id !== null &&
        frame.meta.request_id !== current.id
      ) {
        return;
      }
      current.frames.push({
        atMs: now - current.sentAt,
        partId: frame.meta.part_id,
        chunkId: frame.meta.chunk_id,
        audioBytes: frame.audioBytes,
        sampleBytes: frame.sampleBytes,
        startsWithWav: frame.startsWithWav,
        ...(frame.byteRate === undefined ? {} : { byteRate: frame.byteRate }),
      });
      if (isEndOfTake(frame)) {
        current.ended = true;
        r.endMs = now - current.sentAt;
      } else if (frame.audioBytes > 0) {
        r.audioFrames += 1;
        if (r.firstAudioMs === undefined) r.firstAudioMs = now - current.sentAt;
        if (r.firstSamplesMs === undefined && frame.sampleBytes > 0) r.firstSamplesMs = now - current.sentAt;
      }
    }
    if (current.ready && current.ended) {
      if (r.firstAudioMs === undefined) return finish('the take ended without any audio', true);
      finish();
    }
  };

  let opened = false;
  let connectFailed = false;
  // Before the connection opened, an error or close means the address did not work (a worker that
  // restarted elsewhere, an expired secret): report it once, drop the address, and hold the iteration
  // a moment so a VU does not spin on a dead address.
  const failConnect = (why: string): void => {
    if (opened || connectFailed) return;
    connectFailed = true;
    o.onConnectFailed?.(why);
    setTimeout(() => {}, CONNECT_RETRY_PAUSE_MS);
  };

  ws.onerror = (event?: ErrorEvent) => {
    const why = event?.error || 'unknown';
    if (!opened) return failConnect(`websocket connect failed: ${why}`);
    if (current) finish(`websocket error: ${why}`);
  };
  ws.onclose = () => {
    if (!opened) failConnect('websocket closed before it opened');
    else if (current) finish('the worker closed the connection during a request');
    o.onClose?.();
  };
}
