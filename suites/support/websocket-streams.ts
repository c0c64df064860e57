/**
 * The websocket suites' shared mechanics (suites/websocket*.spec.ts): a connection on a URL issued
 * now, take requests with unique ids whose timings become observations, and the run's shared voice.
 * Per file (`useWebsocketStreams()` at its top level): each file numbers its own requests.
 */

import { formatMs, partsModeChunkIds } from '../../src/checks/websocket.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  observe,
  type SpeakContext,
  type SpeakStreamConnection,
  type StreamedRequest,
  type StreamMode,
  type StreamTimeouts,
} from '../../src/harness/index.ts';
import { once, useSharedVoice } from './scenarios.ts';
import { openIssuedConnection } from './websocket-url.ts';

export const THREE_SENTENCES =
  'The first sentence is short. A second one follows it. And a third one ends the text.';
export const ONE_SENTENCE = 'Hello from the websocket.';
/** Waits for a connection-level or error message the server may or may not send. */
export const MESSAGE_WAIT_MS = 2_000;

export interface WebsocketStreams {
  /** The stream timeouts of this run: first message within a request's bound, end within --ready-timeout. */
  timeouts(): StreamTimeouts;
  /** A URL issued now, asked for again should it go stale before the upgrade (issue 37). */
  connectFresh(): Promise<SpeakStreamConnection>;
  /**
   * connectFresh once the shared voice is ready: a connection is opened only when its first request
   * can be sent at once. The contract forbids a disconnect only while a request is processed, so a
   * server may close a connection left idle while a voice was made (latitude ws-idle-close: after
   * 2 s). A voice that cannot be made is left to the request that needs it to report.
   */
  connectWhenReady(): Promise<SpeakStreamConnection>;
  /**
   * Opens a connection for `fn` and always closes it: once the shared voice is ready
   * (connectWhenReady), or at once with `needsVoice: false` for a test whose first frame needs no
   * voice (it would only wait for one: up to the ready bound against a server that never makes it).
   */
  withConnection<T>(
    fn: (conn: SpeakStreamConnection) => Promise<T>,
    options?: { needsVoice?: boolean },
  ): Promise<T>;
  /** A plain ready voice to make takes with: the run's shared one. */
  voice(): Promise<string>;
  /** Submits one take request on `conn`, tracks the take for cleanup and records its timings. */
  streamTake(
    conn: SpeakStreamConnection,
    text: string,
    mode: StreamMode | undefined,
    requestId?: number | string,
  ): Promise<StreamedRequest>;
}

/**
 * The file's streams: call once at the top of the file with no argument, and hand the result the
 * file's context in each test (`streams(speak)`): the request numbers and the shared voice are the
 * file's.
 */
export function useWebsocketStreams(): (speak: SpeakContext) => WebsocketStreams {
  const sharedVoice = useSharedVoice();
  const counter = { next: 0 };
  return (speak) => websocketStreams(speak, sharedVoice, counter);
}

function websocketStreams(
  speak: SpeakContext,
  sharedVoice: (speak: SpeakContext) => Promise<{ voice_id: string }>,
  counter: { next: number },
): WebsocketStreams {
  const timeouts = (): StreamTimeouts => ({
    ...DEFAULT_STREAM_TIMEOUTS,
    firstMessageMs: speak.config.timeouts.requestMs,
    endOfTakeMs: speak.config.timeouts.readyMs,
  });
  const connectFresh = () => openIssuedConnection(speak);
  const voice = async () => (await sharedVoice(speak)).voice_id;
  const connectWhenReady = async () => {
    await voice().catch(() => undefined);
    return connectFresh();
  };
  return {
    timeouts,
    connectFresh,
    connectWhenReady,
    voice,
    async withConnection(fn, { needsVoice = true } = {}) {
      const conn = await (needsVoice ? connectWhenReady() : connectFresh());
      try {
        return await fn(conn);
      } finally {
        await conn.close();
      }
    },
    async streamTake(conn, text, mode, requestId = ++counter.next) {
      const r = await conn.generate(
        { text, voice_id: await voice() },
        { requestId, ...(mode ? { mode } : {}), timeouts: timeouts() },
      );
      if (r.takeId) speak.track('take', r.takeId);
      recordTimings(r, text);
      return r;
    },
  };
}

/**
 * One take of THREE_SENTENCES in `mode` on a connection of its own, made once per file and shared by
 * the tests that await it (./scenarios.ts once()): the connection is closed when it is handed over.
 */
export function takeInMode(streams: (speak: SpeakContext) => WebsocketStreams, mode: StreamMode) {
  return once((speak: SpeakContext) => {
    const { streamTake, withConnection } = streams(speak);
    return withConnection(async (conn) => ({ conn, r: await streamTake(conn, THREE_SENTENCES, mode) }));
  });
}

function recordTimings(r: StreamedRequest, text: string): void {
  observe(
    'websocket.timing',
    'websocket timing ({mode} mode, {chars} chars, {parts} part(s)): first audio {firstAudio}, first playable (header + samples) {firstPlayable}, first status {firstStatus}, end of take {end}',
    {
      values: { mode: r.mode },
      particulars: {
        chars: text.length,
        parts: r.reassembly.parts.length,
        firstAudio: formatMs(r.timings.firstAudioMs),
        firstPlayable: formatMs(r.timings.firstPlayableMs),
        firstStatus: formatMs(r.timings.firstStatusMs),
        end: formatMs(r.timings.endMs),
      },
    },
  );
}

/** Reports the chunk_ids a parts-mode request's audio frames carried: a wire fact, not the contract's. */
export function observePartsModeChunkIds(r: StreamedRequest): void {
  const chunkIds = partsModeChunkIds(r);
  observe('websocket.parts-mode-chunk-id', 'parts mode: {carried}', {
    values: { carried: chunkIds.length > 0 },
    particulars: {
      carried:
        chunkIds.length > 0
          ? `${chunkIds.length} audio frame(s) carry a chunk_id (e.g. ${chunkIds[0]}); the wire facts show none, the contract asks for none and forbids none`
          : 'no audio frame carries a chunk_id (as the wire facts show)',
    },
  });
}
