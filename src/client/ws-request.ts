/**
 * One take request on a websocket connection, as data: what arrived for it, its timings, how it
 * ended, the timeouts that bound it and the early conclusions the run has drawn (a request that
 * showed only one of its two ends). SpeakStreamConnection (ws-stream.ts) drives the state machine;
 * the pieces here hold no socket.
 */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import { redactText } from '../evidence/redact.ts';
import { type EarlyConclusion, resetMemoryFacts, runFacts } from '../facts/run-facts.ts';
import type { RequirementId } from '../requirements/index.ts';
import { type ArrivedFrame, type ReassembledTake, reassemble, type StreamMode } from './reassembler.ts';
import type { FrameError, RequestId } from './ws-frame.ts';

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
export type { EarlyConclusion };

/** The run-wide fact of a half-ended request (src/facts): `ws-half-ended:<kind>`. */
const halfEndedKey = (kind: EarlyConclusion): `ws-half-ended:${EarlyConclusion}` => `ws-half-ended:${kind}`;
/** The requirement a half-ended request is evidence against, by which end it lacks. */
const HALF_ENDED_REQUIREMENT: Record<EarlyConclusion, RequirementId> = {
  'done-without-end-marker': 'WS-END-OF-TAKE',
  'end-marker-without-done': 'WS-READY-INFO',
};

/**
 * Early conclusions of this run, by kind, with the sentence that concluded the first one: later
 * requests in the same state conclude without waiting their grace again. Run-wide facts (src/facts):
 * every suite thread of the run learns them from the first that saw one.
 */
export function earlyConclusions(): ReadonlyMap<EarlyConclusion, string> {
  const map = new Map<EarlyConclusion, string>();
  for (const f of runFacts().ofType('half-ended')) if (!map.has(f.end)) map.set(f.end, f.sentence);
  return map;
}

/** The sentence that first concluded `kind` in this run, if any. */
export function earlierConclusion(kind: EarlyConclusion): string | undefined {
  return runFacts().find(halfEndedKey(kind), 'half-ended')?.sentence;
}

/** Remembers the first conclusion of `kind`: later requests in that state conclude at once. */
export function rememberConclusion(kind: EarlyConclusion, diagnostic: string): void {
  if (earlierConclusion(kind) !== undefined) return;
  runFacts().record({
    key: halfEndedKey(kind),
    type: 'half-ended',
    end: kind,
    consequence: { kind: 'evidence-against', requirement: HALF_ENDED_REQUIREMENT[kind] },
    sentence: diagnostic,
  });
}

/** Forgets the run's facts kept in memory (tests that start a new "run" in one thread). */
export function resetEarlyConclusions(): void {
  resetMemoryFacts();
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
  /**
   * The requirement the way it ended is evidence against, when the run knows (a request left
   * without a message on a connection that answered an earlier one: WS-SERIALIZED).
   */
  evidenceAgainst?: RequirementId;
}

export const DONE = new Set(['ready', 'error', 'timeout']);

/** A request as it is sent: nothing arrived yet, its reassembly empty until it ends ('timeout' until then). */
export function newStreamedRequest(requestId: RequestId, mode: StreamMode, sentAt: number): StreamedRequest {
  return {
    requestId,
    mode,
    sentAt,
    inLineAt: sentAt,
    outcome: 'timeout',
    takeMessages: [],
    statusMessages: [],
    frames: [],
    timings: {},
    reassembly: {
      requestId,
      mode,
      parts: [],
      pcm: Buffer.alloc(0),
      totalSamples: 0,
      complete: false,
      findings: [],
    },
  };
}

/** Part 0's header and some of its samples are here (in either mode). */
export function firstPartPlayable(r: StreamedRequest): boolean {
  const part0 = r.frames.filter((f) => f.metadata.part_id === 0 && f.audio.length > 0);
  if (r.mode === 'parts') return part0.some((f) => f.audio.length > 44);
  const header = part0.find((f) => !f.metadata.chunk_id);
  if (!header) return false;
  // Playable in order: the header, then the part's first audio bytes (chunk 1), whichever came last.
  return header.audio.length > 44 || part0.some((f) => f.metadata.chunk_id === 1);
}

/** A request that has not ended yet: its bounds and which of its two ends it showed. */
export interface Pending {
  request: StreamedRequest;
  timeouts: StreamTimeouts;
  resolve: (r: StreamedRequest) => void;
  doneSeen: boolean;
  markerSeen: boolean;
  anyMessage: boolean;
}

/** The request as an evidence entry: what was sent, how it ended, and its timings. */
export function requestEvidence(where: string, message: unknown, r: StreamedRequest): EvidenceEntry {
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
    url: where,
    requestHeaders: {},
    requestBody: redactText(JSON.stringify(message)).slice(0, 2000),
    status: null,
    headers: {},
    body: redactText(summary).slice(0, 2000),
    ms: Math.round(t.endMs ?? 0),
  };
}

/**
 * The request's take rebuilt from the frames it has (any order); once it ended, frames that came
 * after its end are reported as late.
 */
export function reassembleRequest(r: StreamedRequest): ReassembledTake {
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

/** What a request that has not ended well had and lacked, after `head` (why it ended). */
export function missingSummary(p: Pending, head: string): string {
  const r = p.request;
  const statuses = r.takeMessages.map((m) => String(m.data.status)).join(' → ') || 'none';
  const take = reassembleRequest(r);
  const problems = take?.findings
    .map((f) => f.message)
    .slice(0, 3)
    .join('; ');
  return `request ${String(r.requestId)} ${head}: statuses ${statuses}${p.doneSeen ? '' : ' (no done status)'}; ${r.frames.length} audio frame(s)${p.markerSeen ? ', end-of-take marker seen' : ', no end-of-take marker'}${problems ? `; ${problems}` : ''}`;
}
