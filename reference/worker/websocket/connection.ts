/**
 * One client connection to the websocket worker (wire-facts.md, Websocket protocol).
 *
 * - On connect: `{"status":"ready","message":...,"model":M}`.
 * - Text frames are commands; each is answered in full before the next one starts (requests on one
 *   connection are serialised). A malformed frame, an unknown command or invalid data is answered by
 *   `{"status":"error","message","request_id"}` and the connection stays open.
 * - A request in progress always runs to its end, even if the client goes away: the take is stored
 *   and the server never closes the connection mid-request.
 */

import type { ValidateFunction } from 'ajv';
import type { WebSocket } from 'ws';
import { sharedAjv } from '../../../schemas/index.ts';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { progressAfter } from '../../store/status.ts';
import { outputSampleRate, type Synthesizer } from '../../synth/index.ts';
import type { RequestId } from './frames.ts';
import { endOfTakeFrame, type StreamMode, streamPart } from './part-stream.ts';
import type { Json, TakeAudioWriter, TakeToSpeak, WebsocketTakeService } from './service.ts';
import { createFrameOutlet } from './shuffle.ts';

export interface ConnectionContext {
  userId: string;
  model: string;
  service: WebsocketTakeService;
  synth: Synthesizer;
  /** --ws-shuffle-window: binary frames of a request are sent out of order within this window. */
  shuffleWindow: number;
  log?: (message: string) => void;
}

let validateRequest: ValidateFunction | undefined;
function requestValidator(): ValidateFunction {
  validateRequest ??= sharedAjv().getSchema('WsRequest.json');
  if (!validateRequest) throw new Error('schemas/WsRequest.schema.json is missing');
  return validateRequest;
}

/** `/take/generate` (singular) is what the vendor's browser client sends: an alias of `/takes/generate`. */
const TAKE_COMMANDS = new Set(['/takes/generate', '/take/generate']);
const COMMANDS = new Set([...TAKE_COMMANDS, '/voices/generate']);
/** Requests waiting on one connection beyond this are refused (a client cannot queue without bound). */
export const MAX_PENDING_REQUESTS = 64;
/** Latitude ws-idle-close: how long a connection may stay without a request in progress. */
export const WS_IDLE_CLOSE_MS = 2000;

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Defect ws-frames-to-latest-connection: each user's audio outlet, that of their latest connection. */
const latestOutlet = new Map<string, (frame: Buffer) => void>();

export function serveConnection(socket: WebSocket, context: ConnectionContext): void {
  const sendJson = (message: unknown) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  const sendOwnBinary = (frame: Buffer) => {
    if (socket.readyState === socket.OPEN) socket.send(frame, { binary: true });
  };
  // Defect ws-frames-to-latest-connection: one audio outlet per user, replaced by each new
  // connection: with several open, every request's frames go to the latest (Take messages do not).
  const perUser = defects.has('ws-frames-to-latest-connection');
  if (perUser) {
    latestOutlet.set(context.userId, sendOwnBinary);
    socket.on('close', () => {
      if (latestOutlet.get(context.userId) === sendOwnBinary) latestOutlet.delete(context.userId);
    });
  }
  const sendBinary = perUser
    ? (frame: Buffer) => (latestOutlet.get(context.userId) ?? sendOwnBinary)(frame)
    : sendOwnBinary;
  const sendError = (message: string, requestId?: RequestId) =>
    sendJson({ status: 'error', message, ...(requestId !== undefined ? { request_id: requestId } : {}) });

  let queue: Promise<void> = Promise.resolve();
  let pending = 0;
  let takesServed = 0;
  /** Take requests this connection received (defect ws-fourth-request-ignored). */
  let takeRequests = 0;

  // Latitude ws-idle-close: a connection with no request in progress is closed after a while.
  let idleTimer: NodeJS.Timeout | undefined;
  const idle = () => {
    clearTimeout(idleTimer);
    if (!latitude.has('ws-idle-close') || pending > 0) return;
    idleTimer = setTimeout(() => socket.close(1000, 'idle timeout'), WS_IDLE_CLOSE_MS);
    idleTimer.unref();
  };
  idle();
  socket.on('close', () => clearTimeout(idleTimer));

  socket.on('message', (data, isBinary) => {
    clearTimeout(idleTimer);
    if (isBinary) {
      sendError('binary messages are not commands; send a JSON text frame');
      idle();
      return;
    }
    const text = data.toString();
    if (pending >= MAX_PENDING_REQUESTS) {
      sendError(
        `too many requests queued on this connection (${MAX_PENDING_REQUESTS}); wait for some to finish`,
        requestIdOf(safeParse(text)),
      );
      idle();
      return;
    }
    pending += 1;
    // Serialise: a request starts only after the previous one has ended. Defect
    // ws-requests-concurrent: each request starts at once, beside the ones still streaming.
    const after = defects.has('ws-requests-concurrent') ? Promise.resolve() : queue;
    queue = after.then(() =>
      handle(text)
        .catch((error: unknown) => {
          context.log?.(`websocket request failed: ${error instanceof Error ? error.stack : String(error)}`);
          sendError('internal error while processing the request');
        })
        .finally(() => {
          pending -= 1;
          idle();
        }),
    );
  });

  async function handle(text: string): Promise<void> {
    // Defect ws-silent-from-start: the upgrade succeeds, then no request ever gets a message.
    if (defects.has('ws-silent-from-start')) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      sendError('the message is not valid JSON');
      return;
    }
    const requestId = requestIdOf(message);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      sendError('a command is a JSON object {"command", "request_id", "stream", "data"}', requestId);
      return;
    }
    const command = (message as { command?: unknown }).command;
    if (typeof command === 'string' && !COMMANDS.has(command)) {
      sendError(`unknown command ${JSON.stringify(command)}; known: ${[...COMMANDS].join(', ')}`, requestId);
      return;
    }
    const validate = requestValidator();
    if (!validate(message)) {
      const problems = (validate.errors ?? [])
        .map((e) => `${e.instancePath || '(message)'} ${e.message}`)
        .join('; ');
      sendError(`invalid command: ${problems}`, requestId);
      return;
    }
    const request = message as { command: string; stream?: { mode?: StreamMode }; data: unknown };
    // Defect ws-default-mode-chunks: a request without `stream` is answered in chunks mode.
    const mode: StreamMode =
      request.stream?.mode ?? (defects.has('ws-default-mode-chunks') ? 'chunks' : 'parts');
    if (TAKE_COMMANDS.has(request.command))
      await generateTake(request.data, requestId ?? null, mode, request.stream === undefined);
    else await generateVoice(request.data, requestId ?? null, mode);
  }

  async function generateTake(
    data: unknown,
    requestId: RequestId,
    mode: StreamMode,
    defaultMode = false,
  ): Promise<void> {
    // Defect ws-ignores-later-requests: only the connection's first take request is served; the
    // later ones are dropped without a word (the connection stays open).
    if (defects.has('ws-ignores-later-requests') && takesServed++ > 0) return;
    // Defect ws-fourth-request-ignored: the fourth and later take requests in the default stream mode
    // (no `stream` field: a code path that keeps a slot per request and has three) get no message.
    if (defaultMode) takeRequests += 1;
    if (defects.has('ws-fourth-request-ignored') && defaultMode && takeRequests >= 4) return;
    const created = await context.service.createTake(context.userId, context.model, data);
    if (!created.ok) {
      sendError(created.message, requestId);
      return;
    }
    // Defect ws-no-take-messages: no Take text message at all, only the audio.
    const item = defects.has('ws-no-take-messages')
      ? () => undefined
      : (take: Json) => sendJson({ request_id: requestId, data: take });
    // Defect ws-waiting-after-started: the waiting Take goes out only after the started one.
    let waitingHeld = defects.has('ws-waiting-after-started');
    if (!waitingHeld) item(created.value.take);
    const onStatus = (take: Json) => {
      item(take);
      if (waitingHeld) item(created.value.take);
      waitingHeld = false;
    };
    const ready = await speakTake(created.value, requestId, mode, onStatus);
    // Latitude ready-before-last-frame: speakTake announced it already, before the last frames.
    // Defect ws-ready-take-not-sent: the take is stored as ready, but the ready Take is never sent.
    if (ready && !latitude.has('ready-before-last-frame') && !defects.has('ws-ready-take-not-sent'))
      item(ready);
  }

  async function generateVoice(data: unknown, requestId: RequestId, mode: StreamMode): Promise<void> {
    const created = await context.service.createVoice(context.userId, context.model, data);
    if (!created.ok) {
      sendError(created.message, requestId);
      return;
    }
    const voiceId = String(created.value.voice.voice_id);
    const item = (voice: Json | undefined) => {
      if (voice) sendJson({ request_id: requestId, data: voice });
    };
    item(created.value.voice);
    // The voice's text frames follow its example take; the example take carries the audio.
    let lastStatus = String(created.value.voice.status);
    const onTake = async () => {
      const voice = await context.service.getVoice(voiceId);
      if (voice && voice.status !== lastStatus) {
        lastStatus = String(voice.status);
        item(voice);
      }
    };
    await speakTake(created.value.example, requestId, mode, () => void onTake());
    await onTake();
  }

  /**
   * Speaks a take part by part, streaming its frames, advancing its status and finally storing it.
   * Returns the ready Take, or undefined after a failure (already reported to the client).
   */
  async function speakTake(
    job: TakeToSpeak,
    requestId: RequestId,
    mode: StreamMode,
    onStatus: (take: Json) => void,
  ): Promise<Json | undefined> {
    const { takeId, parts, voice } = job;
    // Defect ws-progress-not-sent: the status changes while speaking are stored but not announced.
    const onProgress = defects.has('ws-progress-not-sent') ? () => undefined : onStatus;
    const outlet = createFrameOutlet(sendBinary, context.shuffleWindow);
    let audio: TakeAudioWriter | undefined;
    let duration = 0;
    // The part being spoken while a store write (its status change) runs beside it. When that write
    // fails, the part is waited for before the take is failed: otherwise its samples and frames would
    // follow the failure, and a rejection of it would be unhandled (which ends the worker process).
    let inFlight: Promise<number> | undefined;
    let failed = false;
    // Latitude ready-before-last-frame ("Message order on the wire is not guaranteed"): the last
    // part's frames and the end marker are held back until the ready Take was sent.
    const readyFirst = latitude.has('ready-before-last-frame');
    const held: Parameters<typeof outlet.push>[0][] = [];
    try {
      const writer = context.service.openTakeAudio(takeId);
      audio = writer;
      for (let partId = 0; partId < parts.length; partId++) {
        // Synthesis runs in the synthesizer's own thread: start it first, then record the status
        // change, so the store's write does not delay the first audio.
        inFlight = streamPart(context.synth, parts[partId]!, voice, {
          takeId,
          requestId,
          partId,
          mode,
          emit: (frame) => {
            if (failed) return;
            if (readyFirst && partId === parts.length - 1) held.push(frame);
            else outlet.push(frame);
          },
          onSamples: (pcm) => {
            if (failed) return;
            writer.write(pcm);
            duration += pcm.length;
          },
        });
        if (partId === 0) onProgress(await context.service.advanceTake(takeId, 'started'));
        await inFlight;
        inFlight = undefined;
        // Defect ws-closes-mid-take: the connection is closed once a take's first part is sent, when
        // more parts follow (the take is still spoken to its end and stored).
        if (defects.has('ws-closes-mid-take') && partId === 0 && parts.length > 1) {
          outlet.flush();
          socket.close(1011, 'part limit reached');
        }
        // The REST worker's rule (reference/store/status.ts), latitude statuses-as-shown included.
        const before = progressAfter(partId, parts.length);
        const after = progressAfter(partId + 1, parts.length);
        if (after && after !== before) {
          onProgress(await context.service.advanceTake(takeId, after));
        }
      }
      const finishStream = () => {
        for (const frame of held) outlet.push(frame);
        if (!defects.has('ws-no-end-marker'))
          outlet.push(endOfTakeFrame(takeId, requestId, parts.length, mode));
        outlet.flush();
      };
      if (!readyFirst) finishStream();
      writer.finish();
      const ready = await context.service.completeTake(takeId, {
        duration,
        audio_rate: outputSampleRate(),
        normalized_text: parts,
      });
      if (readyFirst) {
        onStatus(ready);
        finishStream();
      }
      return ready;
    } catch (error) {
      failed = true;
      await inFlight?.catch(() => undefined);
      outlet.flush();
      audio?.abort();
      const reason = error instanceof Error ? error.message : String(error);
      context.log?.(`websocket take ${takeId} failed: ${reason}`);
      const failedTake = await context.service.failTake(takeId, reason).catch(() => undefined);
      if (failedTake) onStatus(failedTake);
      sendError(`the take failed: ${reason}`, requestId);
      return undefined;
    }
  }

  sendJson({ status: 'ready', message: `worker ready for model ${context.model}`, model: context.model });
}

/** The request_id of a message when it has a usable one (integer or string), echoed with its type. */
function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const id = (message as { request_id?: unknown }).request_id;
  return (typeof id === 'number' && Number.isFinite(id)) || typeof id === 'string' ? id : undefined;
}
