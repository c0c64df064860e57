/**
 * The audio suite's "before ready" scenario (suites/audio.spec.ts): one long take whose formats are
 * requested while it is still generated, the wav's first byte timed against the take's status
 * timeline. Its three tests (only wav before ready, wav streams while generated, the stream grows)
 * read what it returns.
 */
import type { Voice } from '../../schemas/types.ts';
import { AUDIO_FORMATS } from '../../src/checks/audio.ts';
import { isDone } from '../../src/checks/status.ts';
import { ClientDiagnostic, type Exchange, observe, type SpeakContext } from '../../src/harness/index.ts';
import { signedUrlAgain } from './audio.ts';
import { generateTake, getItem, type Polled, type Take, waitUntilDone } from './items.ts';
import { longText } from './long-text.ts';
import { once } from './scenarios.ts';

/** Bytes of an early answer of another format read before it is cut: any audio at all is the evidence. */
const EARLY_BYTES = 1;

/** Every format the contract serves except wav: none may be delivered before ready. */
const NOT_BEFORE_READY = AUDIO_FORMATS.filter((format) => format !== 'wav');

/** One request for a format other than wav while the take may still be generated. */
interface EarlyFetch {
  format: string;
  redirect: Exchange;
  /** The signed URL, followed right away when the answer was a redirect. */
  signed?: Exchange;
  /** The take's status read the moment the audio answer's headers arrived (or after a direct answer). */
  statusAtAnswer: string;
}

/** What statusNow says when the read was throttled past its bound: our missing data, not the server's. */
export const THROTTLED_STATUS = 'unknown (throttled)';

/** Whether a status from statusNow is no status at all (the read failed). */
const unreadable = (status: string) => status === 'unknown' || status === THROTTLED_STATUS;

/** The take's status now; `unknown` when it cannot be read (the take tests judge that). */
async function statusNow(speak: SpeakContext, takeId: string): Promise<string> {
  return getItem<Take>(speak, 'take', takeId).then(
    (t) => t.status,
    (error: unknown) =>
      error instanceof ClientDiagnostic && error.kind === 'throttled' ? THROTTLED_STATUS : 'unknown',
  );
}

/**
 * GET `format` and, on a redirect, its signed URL at once: a server may answer 307 for every format
 * before ready and refuse at the signed URL until then ("The audio endpoints answer with HTTP 307").
 * The take's status is read as soon as the answer that could carry audio starts (its headers): audio
 * is judged by the take's state at the time of that fetch, not by the state at the end of the run.
 */
async function fetchEarly(speak: SpeakContext, takeId: string, format: string): Promise<EarlyFetch> {
  const redirect = await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
  if (redirect.status !== 307 || !redirect.headers.location)
    return { format, redirect, statusAtAnswer: await statusNow(speak, takeId) };
  let statusAtHeaders: Promise<string> | undefined;
  const signed = await speak.api.fetchSigned(redirect.headers.location, {
    receivedAtMs: Date.now(),
    reissue: signedUrlAgain(speak, takeId, format),
    // A server that (wrongly) streams this format like wav keeps the body open until the take is
    // done: its first bytes are all the check judges (audio delivered before ready), so reading
    // stops there. Read to the end, the take was done by then, taken for one too quick to observe,
    // and retried ever longer (the defect flac-before-ready: 73–107 s to a verdict in CI).
    timeoutMs: speak.config.timeouts.readyMs,
    stream: true,
    readUpTo: EARLY_BYTES,
    onHeaders: () => {
      statusAtHeaders = statusNow(speak, takeId);
    },
  });
  return { format, redirect, signed, statusAtAnswer: await (statusAtHeaders ?? statusNow(speak, takeId)) };
}

/**
 * How long the take must still be generating after its wav was requested before a first body byte
 * that comes only once the take is ready counts against the server: a stream needs a moment to
 * start, and a take that ends within it proves nothing either way. At least this long, and at least
 * a few of the server's own round trips (the wav redirect's), so a distant server gets its latency.
 */
const STREAM_START_GRACE_MS = 250;
const STREAM_START_ROUND_TRIPS = 3;
/** The long text once, then repeated: a server too fast to observe gets a longer take. */
const REPEATS = [1, 3, 9, 15] as const;

/** When the first byte of the wav arrived against the take's status timeline. */
type Progressive =
  | { kind: 'before-ready'; message: string }
  | { kind: 'after-ready'; message: string }
  | { kind: 'not-observable'; reason: string };

/** One status read of the take: when it was sent, what it answered. */
interface StatusRead {
  sentAt: number;
  status: string;
}

/**
 * Reads the take's status back to back (each read once the previous one answered) until one was
 * sent after the wav's first byte arrived, or the take is done: the timeline the byte is judged on.
 */
async function statusTimeline(
  speak: SpeakContext,
  takeId: string,
  firstByteAt: () => number | undefined,
): Promise<StatusRead[]> {
  const reads: StatusRead[] = [];
  const bound = Date.now() + speak.config.timeouts.readyMs;
  for (;;) {
    const sentAt = Date.now();
    const status = await statusNow(speak, takeId);
    reads.push({ sentAt, status });
    const byte = firstByteAt();
    if ((byte !== undefined && sentAt >= byte) || isDone(status) || unreadable(status) || sentAt > bound)
      return reads;
  }
}

/**
 * Judges the first body byte of the wav against the status timeline. Before ready when a status
 * read sent after that byte still showed the take in progress; after ready (a failure) when the
 * take was still generating a grace after the request and no byte came before it was ready;
 * otherwise the take was too quick for the difference to be seen.
 */
function progressiveOf(
  requestedAt: number,
  firstByteAt: number | undefined,
  reads: readonly StatusRead[],
  roundTripMs: number,
): Progressive {
  const grace = Math.round(Math.max(STREAM_START_GRACE_MS, STREAM_START_ROUND_TRIPS * roundTripMs));
  const inProgress = reads.filter((r) => !isDone(r.status) && !unreadable(r.status));
  const afterByte = inProgress.find((r) => firstByteAt !== undefined && r.sentAt >= firstByteAt);
  const byteAt = firstByteAt !== undefined ? `${firstByteAt - requestedAt} ms` : 'never';
  if (afterByte)
    return {
      kind: 'before-ready',
      message: `the first wav bytes arrived ${byteAt} after the request, while the take was still ${afterByte.status}`,
    };
  const last = inProgress[inProgress.length - 1];
  const generating = last ? last.sentAt - requestedAt : 0;
  if (last && generating >= grace)
    return {
      kind: 'after-ready',
      message: `the take was still ${last.status} ${generating} ms after its wav was requested, but the first byte of the wav came only once it was ready (after ${byteAt}): the wav is not streamed while it is generated`,
    };
  return {
    kind: 'not-observable',
    reason: `the take was seen generating for ${generating} ms (less than ${grace} ms) after its wav was requested, and its first wav byte came (after ${byteAt}) when it was ready: too fast to tell a stream from a body held until ready`,
  };
}

/**
 * One long take: wav requested first, then every other format, each followed at once; then the
 * take's status. Only when it is still not ready are all requests known to have come before ready;
 * a server fast enough to finish first is given the same text 3, 9, then 15 times over (4470
 * characters: under the 5000 the reference accepts) (a take
 * ready too soon proves nothing either way). The signed wav URL is read while the take's status is
 * read back to back, the first body byte timed against it (a take too quick to tell whether the wav
 * streams is also retried longer), then polled to its end.
 */
export function beforeReadyTake(voice: (speak: SpeakContext) => Promise<Voice>) {
  return once(async (speak: SpeakContext) => {
    for (const repeat of REPEATS) {
      const text = longText(repeat);
      const { take } = await generateTake(speak, { voice_id: (await voice(speak)).voice_id, text });
      const path = `/v1/speak/takes/${encodeURIComponent(take.take_id)}`;
      const wavRedirect = await speak.api.get(`${path}/wav`);
      const others: EarlyFetch[] = [];
      for (const format of NOT_BEFORE_READY) others.push(await fetchEarly(speak, take.take_id, format));
      const afterRequests = await getItem<Take>(speak, 'take', take.take_id);
      const last = repeat === REPEATS[REPEATS.length - 1];
      if (afterRequests.status === 'ready' && !last) {
        observe(
          'audio.take-too-quick',
          'a take of {characters} characters was ready before its audio requests were answered; trying a longer one',
          { particulars: { characters: text.length }, caught: true },
        );
        continue;
      }
      const location = wavRedirect.status === 307 ? wavRedirect.headers.location : undefined;
      // When the signed request actually left: the run's own waits before it (the limiter, a 429's
      // hold) are not the server's, or a held request would make a streaming wav look buffered.
      let requestedAt = Date.now();
      let firstByteAt: number | undefined;
      let streamEndedAt: number | undefined;
      const [streamed, { reads, polled }] = await Promise.all([
        location
          ? speak.api
              .fetchSigned(location, {
                reissue: signedUrlAgain(speak, take.take_id, 'wav'),
                timeoutMs: speak.config.timeouts.readyMs,
                stream: true,
                onSend: () => {
                  requestedAt = Date.now();
                },
                onFirstByte: () => {
                  firstByteAt = Date.now();
                },
              })
              .then((answer) => {
                streamEndedAt = Date.now();
                return answer;
              })
          : Promise.resolve(undefined),
        (async () => {
          const reads = location ? await statusTimeline(speak, take.take_id, () => firstByteAt) : [];
          return { reads, polled: await waitUntilDone<Take>(speak, 'take', take.take_id) };
        })(),
      ]);
      const progressive = progressiveOf(requestedAt, firstByteAt, reads, wavRedirect.ms);
      if (progressive.kind === 'not-observable' && !last && streamed?.status === 200) {
        observe('audio.take-too-quick', '{reason}; trying a longer take', {
          particulars: { reason: progressive.reason },
          caught: true,
        });
        continue;
      }
      return {
        take,
        others,
        afterOthers: afterRequests,
        wavRedirect,
        statusAtWav: afterRequests.status,
        streamed,
        /** When the wav's body had all arrived (ms since the epoch), against the polls' times. */
        streamEndedAt,
        polled,
        progressive,
      };
    }
    throw new Error('unreachable: the last attempt always returns');
  });
}

/**
 * Whether the wav's stream certainly ended while the take was still in progress: a poll sent after
 * the stream's end saw it in progress. A poll's answer tells the state at some moment between its
 * sending and its answer, and the polls follow each other, so a poll was sent after the one before
 * it was answered. When the stream's end only came before the poll that saw the take done (a poll's
 * interval, a busy machine's delays), nothing is known: the take may have been done at the stream's
 * end. Returns that poll's status and how long at least after the stream's end it was sent.
 */
export function streamEndedInProgress(
  endedAt: number | undefined,
  polled: Pick<Polled<{ status: string }>, 'snapshots' | 'times'>,
): { status: string; afterMs: number } | undefined {
  if (endedAt === undefined) return undefined;
  for (let k = polled.snapshots.length - 1; k >= 1; k--) {
    const status = polled.snapshots[k]!.status;
    if (isDone(status)) continue;
    const sentAfter = polled.times[k - 1]!;
    return sentAfter > endedAt ? { status, afterMs: sentAfter - endedAt } : undefined;
  }
  return undefined;
}
