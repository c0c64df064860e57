/**
 * Checks on what a websocket request said about its take (speak-v1.md Events → Websocket stream):
 * the Take messages (one per status change, this request's take, ready with info), the take as
 * REST shows it, the stream's samples against info, and the error message a bad request gets.
 * Pure functions of what the stream client collected; the suite sends and validates schemas.
 */
import type { StreamedRequest } from '../client/ws-stream.ts';
import { Finding, show } from './finding.ts';
import { firstDifference } from './webhooks.ts';

/** What a take's info says of its audio (the fields these checks compare). */
export interface TakeAudioInfo {
  duration: number;
  audio_rate: number;
}

/** The request's last Take message, which must be `ready`; returned for its info. */
export function assertReadyTake(r: Pick<StreamedRequest, 'requestId' | 'lastTake'>): Record<string, unknown> {
  const take = r.lastTake;
  if (take?.status !== 'ready') {
    throw new Finding(
      `request ${show(r.requestId)}: the last Take message has status ${show(take?.status ?? null)}, expected "ready"`,
      {
        where: `request ${show(r.requestId)}`,
        expected: 'ready',
        actual: take?.status,
      },
    );
  }
  return take;
}

/** WS-TEXT-TAKE (the messages' schemas aside): the request got Take text messages at all. */
export function assertTakeMessagesSent(r: Pick<StreamedRequest, 'takeMessages'>, where: string): void {
  if (r.takeMessages.length === 0)
    throw new Finding(`${where}: no Take text message at all`, { expected: 'Take messages' });
}

/** WS-MODE-PARTS / WS-MODE-CHUNKS: the take streamed at least one audio part. */
export function assertAudioStreamed(r: Pick<StreamedRequest, 'reassembly'>, where: string): void {
  if (r.reassembly.parts.length === 0) {
    throw new Finding(`${where}: the take streamed no audio part`, {
      expected: '>= 1 part',
      actual: 0,
    });
  }
}

/** The statuses of the request's Take messages, in arrival order. */
export function takeStatuses(r: Pick<StreamedRequest, 'takeMessages'>): string[] {
  return r.takeMessages.map((m) => String(m.data.status));
}

/**
 * WS-TEXT-TAKE: every take passes waiting → started on its way to ready (States and transitions:
 * "a status message is sent"), so a stream without `started` left a status change unannounced.
 */
export function assertStartedAnnounced(statuses: readonly string[], where: string): void {
  if (!statuses.includes('started')) {
    throw new Finding(
      `${where}: the Take messages went ${statuses.join(' → ')}, without \`started\`: a status change was not sent`,
      { expected: 'a Take message with status started before ready', actual: statuses },
    );
  }
}

/** WS-TEXT-TAKE: every Take message is the take this request made, with the text and voice it asked for. */
export function assertTakeMessagesOfRequest(
  r: Pick<StreamedRequest, 'takeId' | 'takeMessages'>,
  asked: { text: string; voiceId: string },
): void {
  for (const m of r.takeMessages) {
    if (m.data.take_id !== r.takeId || m.data.text !== asked.text || m.data.voice_id !== asked.voiceId) {
      throw new Finding(
        `Take message #${m.seq} is not this request's take: take_id ${show(m.data.take_id)}, text ${show(m.data.text)}, voice_id ${show(m.data.voice_id)}`,
        {
          where: `message #${m.seq}`,
          expected: { take_id: r.takeId, text: asked.text, voice_id: asked.voiceId },
          actual: m.data,
        },
      );
    }
  }
}

/**
 * WS-MULTIPART-PROGRESS: a take the server sent in `parts` parts (two or more) went started, then
 * progress_50, then ready.
 */
export function assertMultipartProgress(statuses: readonly string[], parts: number, where: string): void {
  const started = statuses.indexOf('started');
  const half = statuses.indexOf('progress_50');
  const ready = statuses.indexOf('ready');
  if (started < 0 || half < started || ready < half) {
    throw new Finding(
      `${where}: a take sent in ${parts} parts went ${statuses.join(' → ')}; expected started, then progress_50, then ready`,
      { expected: ['started', 'progress_50', 'ready'], actual: statuses },
    );
  }
}

/**
 * WS-TAKE-IN-REST: the take made over the websocket is listed by GET /v1/speak/takes?take_id= (the
 * `listed` body) and GET of it (`fetched`) is the websocket's ready Take (webhook bookkeeping aside).
 */
export function assertTakeInRest(take: Record<string, unknown>, listed: unknown, fetched: unknown): void {
  const takeId = String(take.take_id);
  const listedIds = Array.isArray(listed)
    ? listed.map((t) =>
        t !== null && typeof t === 'object' ? (t as { take_id?: unknown }).take_id : undefined,
      )
    : undefined;
  if (!listedIds?.includes(takeId)) {
    throw new Finding(
      `take ${takeId} made over the websocket is not in GET /v1/speak/takes?take_id=${takeId}`,
      { expected: takeId, actual: listedIds ?? listed },
    );
  }
  // The same job, ready, with the websocket's info: what the requirement speaks of. Not the whole
  // Take: a server may stamp timestamp_ms per message or show a webhook's bookkeeping in REST only.
  const diff = firstDifference(sameJob(take), sameJob(fetched));
  if (diff) {
    throw new Finding(
      `GET /v1/speak/takes/${takeId} differs from the websocket's ready Take at ${diff.pointer}: websocket ${show(diff.a)}, REST ${show(diff.b)}`,
      { where: diff.pointer, expected: diff.b, actual: diff.a },
    );
  }
}

/** The fields that make a Take the same job, ready, with the same audio: id, voice, text, status, info. */
function sameJob(take: unknown): Record<string, unknown> {
  const t = (take ?? {}) as Record<string, unknown>;
  return { take_id: t.take_id, voice_id: t.voice_id, text: t.text, status: t.status, info: t.info };
}

/** WS-DURATION-SAMPLES: the stream holds info.duration samples at info.audio_rate. */
export function assertDurationInSamples(
  stream: { totalSamples: number; sampleRate?: number },
  info: TakeAudioInfo,
  takeId: string,
): void {
  if (stream.totalSamples !== info.duration || stream.sampleRate !== info.audio_rate) {
    throw new Finding(
      `take ${takeId}: the stream holds ${stream.totalSamples} samples at ${stream.sampleRate} Hz, info says duration ${info.duration} at ${info.audio_rate} Hz`,
      {
        where: 'info',
        expected: info,
        actual: { samples: stream.totalSamples, rate: stream.sampleRate },
      },
    );
  }
}

/** The stream's samples are at the rate info names (`where`: the text and mode of the request). */
export function assertSampleRateOfInfo(
  sampleRate: number | undefined,
  info: TakeAudioInfo,
  where: string,
): void {
  if (sampleRate !== info.audio_rate) {
    throw new Finding(`${where}: stream sampled at ${sampleRate} Hz, info.audio_rate ${info.audio_rate} Hz`, {
      expected: info.audio_rate,
      actual: sampleRate,
    });
  }
}

/** What a text message from the worker is: its parsed JSON and raw text. */
export interface WorkerMessage {
  json: unknown;
  text: string;
}

function fieldOf(json: unknown, key: string): unknown {
  return json !== null && typeof json === 'object' ? (json as Record<string, unknown>)[key] : undefined;
}

/**
 * The answer to a bad request (`what`) is an error status naming the request: status "error", and
 * the request_id it was sent with (when it had one).
 */
export function assertErrorNamesRequest(m: WorkerMessage, requestId: string | undefined, what: string): void {
  if (fieldOf(m.json, 'status') !== 'error') {
    throw new Finding(`${what}: answered ${m.text.slice(0, 200)}, expected status "error"`, {
      expected: 'error',
      actual: fieldOf(m.json, 'status'),
    });
  }
  if (requestId !== undefined && fieldOf(m.json, 'request_id') !== requestId) {
    throw new Finding(
      `${what}: the error message names request_id ${show(fieldOf(m.json, 'request_id'))}, expected ${show(requestId)}`,
      {
        expected: requestId,
        actual: fieldOf(m.json, 'request_id'),
      },
    );
  }
}

/** The connection is still open after a bad request (`after`): the worker kept it usable. */
export function assertStillOpen(
  conn: { open: boolean; closeInfo?: { code: number; reason?: string } },
  after: string,
): void {
  if (!conn.open) {
    throw new Finding(
      `the worker closed the connection after ${after} (code ${conn.closeInfo?.code}, "${conn.closeInfo?.reason ?? ''}")`,
      {
        expected: 'connection stays open',
      },
    );
  }
}

/** Each of several connections got a take of its own (no two share a take_id). */
export function assertDistinctTakes(results: ReadonlyArray<Pick<StreamedRequest, 'takeId'>>): void {
  const ids = new Set(results.map((r) => r.takeId));
  if (ids.size !== results.length)
    throw new Finding(`the ${results.length} connections got takes ${show([...ids])}`, {
      expected: results.length,
      actual: ids.size,
    });
}
