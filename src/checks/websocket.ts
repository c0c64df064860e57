/**
 * Websocket stream checks: turn what the stream client collected into Findings that say what the
 * server did wrong (framing, ids, end markers, ordering, audio against REST).
 */

import type { StreamFinding } from '../client/reassembler.ts';
import { parseWavHeader, WavHeaderError } from '../client/wav-header.ts';
import type { SpeakStreamConnection, StreamedRequest } from '../client/ws-stream.ts';
import { Finding, show } from './finding.ts';

function name(r: StreamedRequest): string {
  return `request ${show(r.requestId)} (${r.mode} mode${r.takeId ? `, take ${r.takeId}` : ''})`;
}

/** The request ended normally: done status, end marker, nothing missing, connection kept open. */
export function assertRequestEnded(r: StreamedRequest): void {
  if (r.outcome !== 'ended' || r.diagnostic) {
    throw new Finding(`${name(r)} did not end cleanly (${r.outcome}): ${r.diagnostic ?? 'no diagnostic'}`, {
      where: name(r),
      expected: 'done Take, end-of-take marker, every frame',
      actual: r.outcome,
      // What the run knows the ending is evidence against (a connection silent after its first request).
      ...(r.evidenceAgainst ? { requirement: r.evidenceAgainst, runFact: true } : {}),
    });
  }
}

/** Every binary message on the connection is a well-formed frame (magic, length, JSON, schema). */
export function assertFramesWellFormed(conn: SpeakStreamConnection): void {
  if (conn.frameFailures.length === 0) return;
  const list = conn.frameFailures
    .slice(0, 5)
    .map((f) => `#${f.seq} (${f.bytes} bytes): ${f.error.kind}: ${f.error.message}`)
    .join('; ');
  throw new Finding(`${conn.frameFailures.length} malformed binary message(s): ${list}`, {
    where: conn.where,
    expected: "'JSON' + u32le length + AudioFrameMetadata JSON + audio",
    actual: conn.frameFailures.map((f) => f.error.kind),
  });
}

/** The reassembly found nothing wrong (ids, end markers, headers, formats). */
export function assertStreamClean(r: StreamedRequest): void {
  const findings = r.reassembly.findings;
  if (findings.length === 0) return;
  throw new Finding(
    `${name(r)}: ${findings.length} stream finding(s): ${findings
      .slice(0, 6)
      .map((f) => `[${f.kind}] ${f.message}`)
      .join('; ')}`,
    { where: name(r), expected: 'no findings', actual: findings.map((f) => f.kind) },
  );
}

/** assertStreamClean for some of the stream's findings: those that break one requirement. */
export function assertNoStreamFindings(r: StreamedRequest, findings: readonly StreamFinding[]): void {
  assertStreamClean({ ...r, reassembly: { ...r.reassembly, findings: [...findings] } });
}

/** Frames of stray requests or unknown takes: the connection carried audio nobody asked for. */
export function assertNoStrays(conn: SpeakStreamConnection): void {
  if (conn.strayFrames.length === 0) return;
  const first = conn.strayFrames[0]!;
  throw new Finding(
    `${conn.strayFrames.length} audio frame(s) name no request of this connection, e.g. #${first.seq} ${show(first.metadata)}`,
    { where: conn.where, expected: 'frames of this connection’s requests only', actual: first.metadata },
  );
}

/**
 * Chunks mode: every audio frame carries a chunk_id ("in chunks mode also a chunk_id"), each part in
 * two frames at least (its audio, then the empty chunk that ends it). Parts mode: the contract says
 * nothing of chunk_id there (partsModeChunkIds reports what the server sends).
 */
export function assertModeShape(r: StreamedRequest): void {
  for (const f of r.frames) {
    const chunk = f.metadata.chunk_id;
    const hasChunk = chunk !== undefined && chunk !== null;
    if (r.mode === 'chunks' && !hasChunk && f.audio.length > 0) {
      throw new Finding(`${name(r)}: audio frame #${f.seq} of part ${f.metadata.part_id} has no chunk_id`, {
        where: `frame #${f.seq}`,
        expected: 'integer chunk_id',
        actual: f.metadata,
      });
    }
  }
  if (r.mode === 'chunks') {
    const headerless = r.reassembly.parts.filter((p) => p.frames < 2);
    if (headerless.length > 0) {
      throw new Finding(
        `${name(r)}: part(s) ${headerless.map((p) => p.partId).join(', ')} came as ${headerless[0]!.frames} frame(s): chunks mode must end each part with an empty chunk`,
        { where: name(r), expected: '>= 2 frames per part', actual: headerless.map((p) => p.frames) },
      );
    }
  }
}

/** The chunk_ids a parts-mode request's frames carried (none, as the wire facts show, or some). */
export function partsModeChunkIds(r: StreamedRequest): number[] {
  if (r.mode !== 'parts') return [];
  return r.frames.flatMap((f) =>
    typeof f.metadata.chunk_id === 'number' && f.audio.length > 0 ? [f.metadata.chunk_id] : [],
  );
}

/** Every message about a request carries its request_id with the JSON type it was sent with. */
export function assertRequestIdEcho(r: StreamedRequest): void {
  const wrong = [
    ...r.takeMessages.map((m) => ({ seq: m.seq, id: (m.raw as { request_id?: unknown }).request_id })),
    ...r.frames.map((f) => ({ seq: f.seq, id: f.metadata.request_id })),
  ].filter((m) => m.id !== r.requestId);
  if (wrong.length > 0) {
    throw new Finding(
      `${name(r)}: ${wrong.length} message(s) carry request_id ${show(wrong[0]!.id)} (message #${wrong[0]!.seq}), expected ${show(r.requestId)}`,
      { where: name(r), expected: r.requestId, actual: wrong[0]!.id },
    );
  }
}

/**
 * The arrival number of `r`'s end-of-take frame (an empty frame whose part_id is past every audio
 * part), or of its last message when it sent none.
 */
function endOfTakeSeq(r: StreamedRequest): number {
  const lastAudioPart = Math.max(
    -1,
    ...r.frames.filter((f) => f.audio.length > 0).map((f) => f.metadata.part_id),
  );
  const marker = r.frames.find((f) => f.audio.length === 0 && f.metadata.part_id > lastAudioPart);
  return marker?.seq ?? Math.max(...r.frames.map((f) => f.seq), ...r.takeMessages.map((m) => m.seq));
}

/**
 * One connection serves requests one after another: before `first`'s end-of-take frame, `second`
 * may at most be acknowledged (`waiting`); none of its audio frames and none of its Takes past
 * `waiting` may arrive.
 */
export function assertSerialized(first: StreamedRequest, second: StreamedRequest): void {
  const firstEnd = endOfTakeSeq(first);
  const earlyFrames = second.frames.filter((f) => f.seq < firstEnd);
  const earlyTakes = second.takeMessages.filter((m) => m.seq < firstEnd && m.data.status !== 'waiting');
  if (earlyFrames.length === 0 && earlyTakes.length === 0) return;
  const what = [
    earlyFrames.length > 0
      ? `${earlyFrames.length} audio frame(s) (first at arrival #${Math.min(...earlyFrames.map((f) => f.seq))})`
      : '',
    earlyTakes.length > 0
      ? `Take message(s) with status ${earlyTakes.map((m) => `${String(m.data.status)} (#${m.seq})`).join(', ')}`
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const firstEarly = Math.min(...earlyFrames.map((f) => f.seq), ...earlyTakes.map((m) => m.seq));
  throw new Finding(
    `${name(second)}: ${what} arrived before ${name(first)} ended (its end-of-take frame is #${firstEnd}): requests on one connection must be handled one after another`,
    { where: 'connection', expected: `nothing past waiting before #${firstEnd}`, actual: firstEarly },
  );
}

/** The samples of a REST wav body (header parsed strictly) for comparison with the stream's PCM. */
export function wavSamples(
  body: Buffer,
  where: string,
): { pcm: Buffer; sampleRate: number; blockAlign: number } {
  try {
    const h = parseWavHeader(body);
    const end = Math.min(body.length, h.dataOffset + h.dataSize);
    return { pcm: body.subarray(h.dataOffset, end), sampleRate: h.sampleRate, blockAlign: h.blockAlign };
  } catch (error) {
    if (error instanceof WavHeaderError) {
      throw new Finding(`${where}: not a readable WAV file: ${error.message}`, {
        where,
        expected: 'RIFF/WAVE',
      });
    }
    throw error;
  }
}

/** What WS-AUDIO-MATCHES-REST compares of one side: its samples and their format. */
export interface AudioSide {
  pcm: Buffer;
  sampleRate?: number;
  blockAlign: number;
}

/**
 * The stream is the REST wav's audio, judged where the contract speaks ("Audio can be downloaded over
 * HTTP through a redirect, or streamed over a websocket"): the same sample rate, and the same
 * duration within `toleranceSamples` (a threshold the caller chose and names). The samples
 * themselves may differ (a re-encoded stream): WS-PCM-MATCHES-REST judges those apart.
 */
export function assertSameAudio(
  stream: AudioSide,
  rest: AudioSide & { sampleRate: number },
  toleranceSamples: number,
  where: string,
): void {
  if (stream.sampleRate !== rest.sampleRate) {
    throw new Finding(
      `${where}: the stream is at ${stream.sampleRate ?? 'no'} Hz, the REST wav at ${rest.sampleRate} Hz: not the same audio`,
      { where, expected: rest.sampleRate, actual: stream.sampleRate ?? null },
    );
  }
  const streamSamples = Math.floor(stream.pcm.length / Math.max(1, stream.blockAlign));
  const restSamples = Math.floor(rest.pcm.length / Math.max(1, rest.blockAlign));
  const apart = Math.abs(streamSamples - restSamples);
  if (apart > toleranceSamples) {
    const ms = (n: number) => `${((n / rest.sampleRate) * 1000).toFixed(1)} ms`;
    throw new Finding(
      `${where}: the stream lasts ${streamSamples} samples (${ms(streamSamples)}), the REST wav ${restSamples} (${ms(restSamples)}): ${ms(apart)} apart, more than the ${ms(toleranceSamples)} allowed`,
      { where, expected: restSamples, actual: streamSamples },
    );
  }
}

/** Stream PCM byte-identical to the REST wav's samples; the first difference is named. */
export function assertPcmIdentical(
  streamPcm: Buffer,
  restPcm: Buffer,
  blockAlign: number,
  where: string,
): void {
  if (streamPcm.equals(restPcm)) return;
  const n = Math.min(streamPcm.length, restPcm.length);
  let at = 0;
  while (at < n && streamPcm[at] === restPcm[at]) at++;
  const sample = Math.floor(at / Math.max(1, blockAlign));
  throw new Finding(
    `${where}: the websocket PCM (${streamPcm.length} bytes) differs from the REST wav samples (${restPcm.length} bytes)${at < n ? ` from byte ${at} (sample ${sample}) on` : `: one is a prefix of the other (${Math.abs(streamPcm.length - restPcm.length)} bytes more in the ${streamPcm.length > restPcm.length ? 'stream' : 'REST wav'})`}`,
    { where, expected: restPcm.length, actual: streamPcm.length },
  );
}

/**
 * WS-AUDIO-MATCHES-REST: how far the stream's duration may be from the REST wav's. The contract
 * gives no number: the threshold is chosen by speakcheck, one chunk of the stream (chunks mode: its
 * longest audio chunk), never less than 20 ms.
 */
export const SAME_DURATION_FLOOR_MS = 20;

/** The duration tolerance of WS-AUDIO-MATCHES-REST for this stream, in samples (see above). */
export function durationTolerance(
  r: Pick<StreamedRequest, 'frames' | 'reassembly'>,
  rest: { sampleRate: number; blockAlign: number },
): number {
  const floor = Math.ceil((rest.sampleRate * SAME_DURATION_FLOOR_MS) / 1000);
  if (r.reassembly.mode !== 'chunks') return floor;
  const longestChunk = Math.max(0, ...r.frames.map((f) => f.audio.length));
  return Math.max(floor, Math.ceil(longestChunk / Math.max(1, rest.blockAlign)));
}

/** The requests in the order the worker served them: by the arrival of their first audio frame. */
export function inServiceOrder<R extends Pick<StreamedRequest, 'frames'>>(requests: readonly R[]): R[] {
  const firstAudio = (r: R) => Math.min(...r.frames.map((f) => f.seq));
  return [...requests].sort((x, y) => firstAudio(x) - firstAudio(y));
}

/** `12.3 ms`, or `never` for a moment that did not come. */
export function formatMs(value: number | undefined): string {
  return value === undefined ? 'never' : `${value.toFixed(1)} ms`;
}

/** WS-CHUNKS-LOWER-LATENCY: the same text reached its first audio sooner in chunks mode than in parts mode. */
export function assertChunksSooner(
  chunks: Pick<StreamedRequest, 'timings'>,
  parts: Pick<StreamedRequest, 'timings'>,
): void {
  if ((chunks.timings.firstAudioMs ?? Infinity) >= (parts.timings.firstAudioMs ?? Infinity)) {
    throw new Finding('chunks mode was not faster to first audio than parts mode', {
      expected: `< ${formatMs(parts.timings.firstAudioMs)}`,
      actual: formatMs(chunks.timings.firstAudioMs),
    });
  }
}

/** A request that must have streamed (`what` it was, e.g. a command or a model's URL) ended normally. */
export function assertStreamed(
  r: Pick<StreamedRequest, 'outcome' | 'diagnostic' | 'evidenceAgainst'>,
  what: string,
  expected: string,
): void {
  if (r.outcome !== 'ended') {
    throw new Finding(`${what}: ${r.outcome}${r.diagnostic ? `, ${r.diagnostic}` : ''}`, {
      expected,
      actual: r.outcome,
      // A silent connection the run learned: evidence against its one requirement, a block elsewhere.
      ...(r.evidenceAgainst ? { requirement: r.evidenceAgainst, runFact: true } : {}),
    });
  }
}
