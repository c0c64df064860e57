/**
 * The webhook suite's take engine (suites/webhooks.spec.ts, through ./webhook-scenarios.ts): a take
 * (or voice) made with hooks pointing at the run's sink under a token of its own, polled beside its
 * hooks, and what GET and the audio answered right after its done call. Also the small readers of a
 * take scenario the tests share (its done and status calls, its polled timeline).
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import { AUDIO_FORMATS, type AudioFormat, assertContainer } from '../../src/checks/audio.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import {
  type AudioAtDone,
  callsOf,
  callTimeline,
  statusesNotCalled,
} from '../../src/checks/webhook-calls.ts';
import { formatTimeline, statusChanges, type TimelineEntry } from '../../src/checks/webhooks.ts';
import {
  expectJson,
  notConcluded,
  observe,
  type RemoteWebhookSink,
  type RequirementId,
  type SinkBehaviour,
  type SpeakContext,
  type StreamedRequest,
  statusOf,
  type WebhookCall,
} from '../../src/harness/index.ts';
import { signedUrlAgain } from './audio.ts';
import { waitUntilDone } from './items.ts';
import { field } from './values.ts';
import { sleep } from './wait.ts';

/** The text of a take with hooks: three sentences, so a server may report progress between them. */
export const TEXT =
  'The first sentence is short. A second one follows it. And a third sentence ends the text.';
/**
 * How long after the first done call a second one (or a status call still in flight) would surely
 * have arrived: judged at the end of the run, as is the late window below.
 */
export const DUPLICATE_WINDOW_MS = 2_500;
/** How long after the first done call of the main take a second one is still looked for. */
export const LATE_DUPLICATE_WINDOW_MS = 4_500;
/**
 * How long after the item is seen done the file waits for its done call before it judges what came
 * (WEBHOOK-DONE-ARRIVAL-BOUND judges the lag against it). Like the windows above, a number chosen by
 * speakcheck: the contract says "when the result is ready" and gives no time, so a done call not come
 * by then is no violation here: it is awaited at the end of the run (./webhook-settle.ts).
 */
export const ARRIVAL_BOUND_MS = 10_000;

export interface Polled {
  entries: TimelineEntry[];
  final: unknown;
}

export interface TakeScenario {
  takeId: string;
  createdMs: number;
  token: string;
  polled: Polled;
  calls: WebhookCall[];
  /**
   * The first done call, and what GET and the audio endpoints answered right after it arrived; none
   * when it had not come ARRIVAL_BOUND_MS after the take was seen done (awaited at the run's end).
   */
  doneCall: WebhookCall | undefined;
  getAfterDone: unknown;
  /** What failed right after the done call (its GET or its audio) when that left nothing to judge. */
  atDoneError?: unknown;
  audioAtDone: AudioAtDone[];
  /**
   * Why the audio could not be fetched at done (e.g. a format only ever throttled: not concluded):
   * the audio test's to report; GET and the done call stay judged.
   */
  audioError?: unknown;
}

export interface TakeOptions {
  hooks: 'status+done' | 'done';
  /** The take's text (default: TEXT, three sentences). */
  text?: string;
  form?: 'string' | 'post_url';
  behaviour?: SinkBehaviour;
  checkAudio?: boolean;
  /** false: return once polling saw the take done, without waiting for its calls (the slow sink). */
  awaitCalls?: boolean;
}

export interface WebhookTakes {
  /** Polls an item until its status is done (the shared helper); every observation is kept, with its time. */
  pollUntilDone(kind: ItemKind, id: string): Promise<Polled>;
  /**
   * The sink's wait for webhook calls of an item that polling is also watching, bounded twice: by
   * --ready-timeout plus the arrival bound from the start, and by the arrival bound from the moment
   * polling saw the item done. Resolves with the calls once `predicate` holds, or with what came by
   * the end of the second bound (no verdict: a call may come later); rejects with polling's failure.
   * A server that never calls then costs seconds here, not the ready timeout.
   */
  callsOnceDone(
    sinkNow: RemoteWebhookSink,
    token: string,
    predicate: (calls: WebhookCall[]) => boolean,
    polled: Promise<unknown>,
  ): Promise<WebhookCall[]>;
  /** One take with hooks, polled beside them; its calls, and GET and audio right after its done call. */
  runTakeScenario(o: TakeOptions): Promise<TakeScenario>;
  /** The time from generate to the first done poll of a take of TEXT without webhooks. */
  baselineTakeMs(): Promise<number>;
}

/** The engine for one file: `sink` is the run's sink, `voice` the voice its takes are made with. */
export function webhookTakes(
  speak: SpeakContext,
  sink: () => RemoteWebhookSink,
  voice: () => Promise<string>,
): WebhookTakes {
  async function pollUntilDone(kind: ItemKind, id: string): Promise<Polled> {
    const polled = await waitUntilDone<{ status: string }>(speak, kind, id, { acceptFailure: true });
    const entries = polled.snapshots.map((item, i) => ({ atMs: polled.times[i]!, status: item.status }));
    return { entries, final: polled.final };
  }

  /** One format of the take's audio right after its done call: what each step answered, what is wrong. */
  async function fetchAudioAtDone(takeId: string, format: AudioFormat): Promise<AudioAtDone> {
    const redirect = await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
    const location = redirect.headers.location;
    if (redirect.status !== 307 || !location)
      return { format, redirectStatus: redirect.status, fetchStatus: null, bytes: 0 };
    const audio = await speak.api.fetchSigned(location, {
      receivedAtMs: Date.now(),
      reissue: signedUrlAgain(speak, takeId, format),
    });
    const fetched = {
      format,
      redirectStatus: redirect.status,
      fetchStatus: audio.status,
      bytes: audio.body.length,
    };
    if (audio.status !== 200 || audio.body.length === 0) return fetched;
    try {
      await assertContainer(format, audio.body, `${format} right after the done call`);
      return fetched;
    } catch (error) {
      return { ...fetched, problem: (error as Error).message };
    }
  }

  function callsOnceDone(
    sinkNow: RemoteWebhookSink,
    token: string,
    predicate: (calls: WebhookCall[]) => boolean,
    polled: Promise<unknown>,
  ): Promise<WebhookCall[]> {
    const stop = new AbortController();
    // The wait ends ARRIVAL_BOUND_MS after polling saw the item done (afterDone), or with polling's
    // own failure. The sink's timeout is no end: polling's ready bound does not count the server's
    // Retry-After holds, so it may outlast any fixed time; a wait that timed out is asked again until
    // afterDone ends the race (a sink that fails at once still fails it).
    const backstopMs = speak.config.timeouts.readyMs + ARRIVAL_BOUND_MS;
    const arrival = (async () => {
      for (;;) {
        const askedAt = Date.now();
        try {
          return await sinkNow.waitForCalls(token, predicate, backstopMs, stop.signal);
        } catch (error) {
          if (stop.signal.aborted || Date.now() - askedAt < backstopMs) throw error;
        }
      }
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const afterDone = new Promise<WebhookCall[]>((resolve, reject) => {
      polled.then(
        () => {
          // What came so far: the caller judges it; a call still to come is the end of the run's.
          timer = setTimeout(() => resolve(sinkNow.calls(token)), ARRIVAL_BOUND_MS);
        },
        // Polling reports its own failure; the wait for calls ends with it.
        (error: unknown) => reject(error),
      );
    });
    return Promise.race([arrival, afterDone]).finally(() => {
      clearTimeout(timer);
      stop.abort();
    });
  }

  async function runTakeScenario(o: TakeOptions): Promise<TakeScenario> {
    const sinkNow = sink();
    const [voiceId, { token, url }] = await Promise.all([voice(), sinkNow.newToken(o.behaviour)]);
    const hook = (name: string) => (o.form === 'post_url' ? { post_url: url(name) } : url(name));
    const body: Record<string, unknown> = {
      voice_id: voiceId,
      text: o.text ?? TEXT,
      done_webhook: hook('done'),
    };
    if (o.hooks === 'status+done') body.status_webhook = hook('status');

    const createdMs = Date.now();
    const created = expectJson(
      await speak.api.post('/v1/speak/takes/generate', body),
      'POST /v1/speak/takes/generate',
    );
    const takeId = field(created, 'take_id');
    if (typeof takeId !== 'string') {
      throw new Finding(`take generation returned no take_id: ${show(created)}`, {
        where: 'POST /v1/speak/takes/generate',
        expected: 'a take_id',
        actual: created,
      });
    }
    speak.track('take', takeId);
    const path = `/v1/speak/takes/${encodeURIComponent(takeId)}`;

    const polling = pollUntilDone('take', takeId);
    if (o.awaitCalls === false) {
      const polled = await polling;
      const calls = await sinkNow.calls(token);
      return {
        takeId,
        createdMs,
        token,
        polled,
        calls,
        doneCall: undefined,
        getAfterDone: undefined,
        audioAtDone: [],
      };
    }
    const atDone = callsOnceDone(
      sinkNow,
      token,
      (calls) => calls.some((c) => c.hook === 'done'),
      polling,
    ).then(async (calls) => {
      const doneCall = calls.find((c) => c.hook === 'done');
      // No done call within the wait: nothing came to look at right after it (see ARRIVAL_BOUND_MS).
      if (!doneCall) return { doneCall, getAfterDone: undefined, audioAtDone: [] };
      // Right after the done call: the item as GET shows it, and its audio.
      const getAfterDone = expectJson(await speak.api.get(path), `GET ${path}`);
      let audioError: unknown;
      const audioAtDone = o.checkAudio
        ? await Promise.all(AUDIO_FORMATS.map((f) => fetchAudioAtDone(takeId, f))).catch((error: unknown) => {
            audioError = error;
            return [];
          })
        : [];
      return {
        doneCall,
        getAfterDone,
        audioAtDone,
        ...(audioError !== undefined ? { audioError } : {}),
      };
    });
    const [polled, done] = await Promise.all([
      polling,
      atDone.catch((error: unknown) => ({
        doneCall: undefined,
        getAfterDone: undefined,
        atDoneError: error,
        audioAtDone: [],
      })),
    ]);
    // Status calls still in flight: awaited until every status polling saw (the final one included)
    // was called, bounded by the duplicate window from the done call. Later calls, and a second done
    // call, are the end-of-run judge's (settleLater).
    if (o.hooks === 'status+done' && done.doneCall) {
      const seen = polledStatuses({ polled });
      await sinkNow
        .waitForCalls(
          token,
          (calls) => statusesNotCalled(seen, callsOf(calls, 'status')).length === 0,
          Math.max(0, done.doneCall.receivedMs + DUPLICATE_WINDOW_MS - Date.now()),
        )
        .catch(() => undefined);
    }
    return { takeId, createdMs, token, polled, calls: await sinkNow.calls(token), ...done };
  }

  async function baselineTakeMs(): Promise<number> {
    const voiceId = await voice();
    const startMs = Date.now();
    const created = expectJson(
      await speak.api.post('/v1/speak/takes/generate', { voice_id: voiceId, text: TEXT }),
      'POST /v1/speak/takes/generate',
    );
    const baselineId = String(field(created, 'take_id'));
    speak.track('take', baselineId);
    const baseline = await pollUntilDone('take', baselineId);
    return baseline.entries.at(-1)!.atMs - startMs;
  }

  return { pollUntilDone, callsOnceDone, runTakeScenario, baselineTakeMs };
}

/** How long a server may take to record a delivered call on the item after the sink received it. */
export const RECORD_BOUND_MS = 5_000;

/**
 * The take as GET shows it once its done_webhook records the delivered call (a status_code): the
 * sink has the call before the server has its answer, so it is polled, bounded by RECORD_BOUND_MS.
 */
export async function takeOnceRecorded(speak: SpeakContext, path: string): Promise<unknown> {
  const deadline = Date.now() + RECORD_BOUND_MS;
  let take = expectJson(await speak.api.get(path), `GET ${path}`);
  while (field(field(take, 'done_webhook'), 'status_code') == null && Date.now() < deadline) {
    await sleep(200);
    take = expectJson(await speak.api.get(path), `GET ${path}`);
  }
  return take;
}

/** The report's per-take comparison: webhook timeline beside the polled one. */
export function observeTimelines(s: TakeScenario, label: string): void {
  const status = callTimeline(statusCalls(s));
  const done = callTimeline(doneCalls(s));
  observe(
    'webhooks.take-timeline',
    '{label} take {takeId}: status webhook {status}; done webhook {done}; polled {polled}',
    {
      values: { label },
      particulars: {
        takeId: s.takeId,
        status: formatTimeline(s.createdMs, status),
        done: formatTimeline(s.createdMs, done),
        polled: formatTimeline(s.createdMs, statusChanges(s.polled.entries)),
      },
    },
  );
}

/**
 * The run's own missing side is no difference: when what it asked right after the done call (the GET,
 * the audio) answered nothing it could compare (throttled past its bound, a format only ever
 * throttled, a request that failed), the check that compares with it is not concluded, never
 * "GET undefined" or "no audio" blamed on the server (issue 37). True when it said so.
 */
export function missingAtDone(s: TakeScenario, id: RequirementId, what: 'GET' | 'audio'): boolean {
  const error = what === 'audio' ? (s.audioError ?? s.atDoneError) : s.atDoneError;
  if (error === undefined) return false;
  notConcluded(
    id,
    `the ${what === 'GET' ? 'GET' : 'audio fetch'} the run made right after the done call gave nothing to compare: ${error instanceof Error ? error.message : String(error)}`,
    "a run whose requests right after the done call are answered (--max-rps under the server's limit)",
  );
  return true;
}

export function doneCalls(s: TakeScenario): WebhookCall[] {
  return callsOf(s.calls, 'done');
}

export function statusCalls(s: TakeScenario): WebhookCall[] {
  return callsOf(s.calls, 'status');
}

export function firstPolled(s: TakeScenario, status: string): TimelineEntry | undefined {
  return s.polled.entries.find((e) => e.status === status);
}

/** The statuses between waiting and done that polling saw (started, progress_*), in order. */
export function intermediatePolled(s: TakeScenario): string[] {
  return polledStatuses(s).filter((status) => status === 'started' || status.startsWith('progress_'));
}

/** The statuses polling saw, each change once, in order. */
export function polledStatuses(s: Pick<TakeScenario, 'polled'>): string[] {
  return statusChanges(s.polled.entries).map((e) => e.status);
}

/** A take's statuses as seen beside its status calls (`seenBy`: `polling saw`, `the websocket reported`). */
export interface SeenStatuses {
  subject: string;
  seen: readonly string[];
  seenBy: string;
  statusCalls: readonly WebhookCall[];
}

/** One of WEBHOOK-STATUS-AGREES-POLLING's takes (./webhook-scenarios.ts inProgressTake) and its length. */
export interface InProgressAttempt {
  scenario: TakeScenario;
  characters: number;
}

/** The websocket take as websocketTake made it: what it streamed, and the calls of its hooks. */
export interface WebsocketWebhookTake {
  r: StreamedRequest;
  streamed: Array<{ atMs: number; status: string }>;
  calls: WebhookCall[];
}

/** WEBHOOK-STATUS-AGREES-POLLING's view of an attempt: the statuses polled beside its status calls. */
export function polledBesideCalls({ scenario: s, characters }: InProgressAttempt): SeenStatuses {
  const subject = `take ${s.takeId} (${characters} characters)`;
  return { subject, seen: polledStatuses(s), seenBy: 'polling saw', statusCalls: statusCalls(s) };
}

/** WEBHOOK-STATUS-CALLED's view: the status the take ended with, beside its status calls. */
export function endedBesideCalls(s: TakeScenario): SeenStatuses {
  const ended = statusOf(s.polled.final);
  return {
    subject: `take ${s.takeId}`,
    seen: [ended],
    seenBy: 'the take ended',
    statusCalls: statusCalls(s),
  };
}

/** WEBHOOK-STATUS-AGREES-WEBSOCKET's view: the statuses streamed beside the take's status calls. */
export function streamedBesideCalls({ r, streamed, calls }: WebsocketWebhookTake): SeenStatuses {
  return {
    subject: `websocket take ${r.takeId ?? '?'}`,
    seen: statusChanges(streamed).map((e) => e.status),
    seenBy: 'the websocket reported',
    statusCalls: callsOf(calls, 'status'),
  };
}
