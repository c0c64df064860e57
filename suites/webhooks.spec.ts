/**
 * Webhooks (speak-v1.md Events → Webhooks; wire-facts.md): the server calls the harness's sink.
 * Each scenario gets its own sink token, so calls are matched to it; polling runs beside the hooks
 * and the report gets both timelines per take.
 *
 * What needs a window after a call (no second done call, a retry of a failed call, late status
 * calls) is judged here on what has arrived and also filed with the run's sink: its window starts
 * when the call arrived and suites/webhooks-settled.spec.ts judges it at the end of the run, so the
 * window overlaps the other files instead of holding this one open.
 *
 * When the server cannot reach the sink (not on this machine and no --webhook-url), every test
 * here is skipped with that one-line reason.
 */
import { afterAll, beforeAll } from 'vitest';
import { AUDIO_FORMATS, type AudioFormat, assertContainer } from '../src/checks/audio.ts';
import { Finding, show } from '../src/checks/finding.ts';
import { assertStatusOrder, distinctRuns, isDone } from '../src/checks/status.ts';
import {
  type AudioAtDone,
  assertArrivedWithin,
  assertAudioFetchableAtDone,
  assertCalled,
  assertCalledOnce,
  assertCalledWhenDone,
  assertCallRecorded,
  assertDoneBodyOfTake,
  assertDoneCalled,
  assertDoneCalledOnceWhenDone,
  assertLastCallShown,
  assertNotCalledAgain,
  assertNotDelayedBySlowSink,
  assertStatusCallsEndWith,
  assertStatusesCalled,
  calledStatuses,
  callsOf,
  callTimeline,
  slowSinkAllowanceMs,
} from '../src/checks/webhook-calls.ts';
import {
  assertPostedJson,
  assertWebhookBodyMatchesGet,
  formatTimeline,
  statusChanges,
  type TimelineEntry,
} from '../src/checks/webhooks.ts';
import {
  ClientDiagnostic,
  check,
  checkStep,
  coveredIds,
  covers,
  expectJson,
  expectSchema,
  notApplicable,
  notConcluded,
  notObserved,
  observe,
  type RemoteWebhookSink,
  type RequirementId,
  runThrottle,
  type SettleEntry,
  type SinkBehaviour,
  statusOf,
  useSpeak,
  type WebhookCall,
} from '../src/harness/index.ts';
import { signedUrlAgain } from './support/audio.ts';
import { type Kind, waitUntilDone } from './support/items.ts';
import { longText, tooFastRemedy } from './support/long-text.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';
import { field } from './support/values.ts';
import { sleep } from './support/wait.ts';
import { runWebhookSink, WEBHOOK_REMEDY } from './support/webhook-sink.ts';
import { openIssuedConnection } from './support/websocket-url.ts';

const speak = useSpeak();

const TEXT = 'The first sentence is short. A second one follows it. And a third sentence ends the text.';
const POLL_INTERVAL_MS = 200;
/**
 * How long after the first done call a second one (or a status call still in flight) would surely
 * have arrived: judged at the end of the run, as is the late window below.
 */
const DUPLICATE_WINDOW_MS = 2_500;
/** How long after the first done call of the main take a second one is still looked for. */
const LATE_DUPLICATE_WINDOW_MS = 4_500;
/**
 * How long after the item is seen done its done call may take (WEBHOOK-DONE-CALLED waits this long,
 * WEBHOOK-DONE-ARRIVAL-BOUND judges the lag). Like the windows above, a threshold chosen by
 * speakcheck: the contract says "when the result is ready" and gives no number. The requirement
 * texts name each as ours.
 */
const ARRIVAL_BOUND_MS = 10_000;
const SLOW_SINK_DELAY_MS = 4_000;

let sink: RemoteWebhookSink | undefined;
let unreachable: string | undefined;

beforeAll(() => {
  ({ sink, unreachable } = runWebhookSink());
});

// Every entry for the end-of-run judge is filed: it can start judging.
afterAll(async () => {
  await sink?.producerDone();
});

/**
 * covers(), not applicable when the server cannot call the sink: the webhook feature is not
 * available to this run (each id says so, with what would judge it).
 */
function webhookTest(ids: RequirementId[], name: string, fn: () => Promise<void>): void {
  covers(ids, name, async () => {
    if (unreachable) return notApplicable(ids, `webhooks: ${unreachable}`, WEBHOOK_REMEDY);
    return fn();
  });
}

function theSink(): RemoteWebhookSink {
  // A harness fault, not the server's: the tests are skipped when the sink could not be started.
  if (!sink) throw new Error('the webhook sink is not running');
  return sink;
}

/**
 * Files a window for the end-of-run judge (suites/webhooks-settled.spec.ts), starting at `from`
 * (the call that opens it). Scenarios file what their tests will need judged; the judge only looks
 * at the entries of the requirements selected for the run.
 */
function settleLater(entry: Omit<SettleEntry, 'fromMs'> & { from: WebhookCall | undefined }): Promise<void> {
  const { from, ...rest } = entry;
  if (!from) return Promise.resolve(); // nothing arrived to open the window: the tests here say so
  return theSink().settleLater({ ...rest, fromMs: from.receivedMs });
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/** A plain ready voice to make takes with: the run's shared one. */
const sharedVoice = useSharedVoice(speak);
const voice = async (): Promise<string> => (await sharedVoice()).voice_id;

interface Polled {
  entries: TimelineEntry[];
  final: unknown;
}

/** Polls an item until its status is done (the shared helper); every observation is kept, with its time. */
async function pollUntilDone(kind: Kind, id: string): Promise<Polled> {
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

/**
 * The sink's wait for webhook calls of an item that polling is also watching, bounded twice: by
 * --ready-timeout plus the arrival bound from the start, and by the arrival bound from the moment
 * polling saw the item done. A server that never calls then costs seconds, not the ready timeout.
 */
function callsOnceDone(
  sinkNow: RemoteWebhookSink,
  token: string,
  predicate: (calls: WebhookCall[]) => boolean,
  polled: Promise<unknown>,
): Promise<WebhookCall[]> {
  const stop = new AbortController();
  const arrival = sinkNow.waitForCalls(
    token,
    predicate,
    speak.config.timeouts.readyMs + ARRIVAL_BOUND_MS,
    stop.signal,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const afterDone = new Promise<never>((_, reject) => {
    polled.then(
      () => {
        timer = setTimeout(
          () =>
            reject(
              new Finding(`no webhook call within ${ARRIVAL_BOUND_MS} ms of the item being seen done`, {
                expected: `a call within ${ARRIVAL_BOUND_MS} ms`,
                actual: 'none',
              }),
            ),
          ARRIVAL_BOUND_MS,
        );
      },
      () => undefined, // polling reports its own failure
    );
  });
  return Promise.race([arrival, afterDone]).finally(() => {
    clearTimeout(timer);
    stop.abort();
  });
}

interface TakeScenario {
  takeId: string;
  createdMs: number;
  token: string;
  polled: Polled;
  calls: WebhookCall[];
  /** The first done call, and what GET and the audio endpoints answered right after it arrived. */
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

async function runTakeScenario(o: {
  hooks: 'status+done' | 'done';
  /** The take's text (default: TEXT, three sentences). */
  text?: string;
  form?: 'string' | 'post_url';
  behaviour?: SinkBehaviour;
  checkAudio?: boolean;
  /** false: return once polling saw the take done, without waiting for its calls (the slow sink). */
  awaitCalls?: boolean;
}): Promise<TakeScenario> {
  const sinkNow = theSink();
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
  const atDone = callsOnceDone(sinkNow, token, (calls) => calls.some((c) => c.hook === 'done'), polling).then(
    async (calls) => {
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
        doneCall: calls.find((c) => c.hook === 'done'),
        getAfterDone,
        audioAtDone,
        ...(audioError !== undefined ? { audioError } : {}),
      };
    },
  );
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
    const polledStatuses = statusChanges(polled.entries)
      .map((e) => e.status)
      .filter((status) => status !== 'waiting');
    await sinkNow
      .waitForCalls(
        token,
        (calls) =>
          polledStatuses.every((st) => calls.some((c) => c.hook === 'status' && statusOf(c.json) === st)),
        Math.max(0, done.doneCall.receivedMs + DUPLICATE_WINDOW_MS - Date.now()),
      )
      .catch(() => undefined);
  }
  return { takeId, createdMs, token, polled, calls: await sinkNow.calls(token), ...done };
}

/** The report's per-take comparison: webhook timeline beside the polled one. */
function observeTimelines(s: TakeScenario, label: string): void {
  const status = callTimeline(statusCalls(s));
  const done = callTimeline(doneCalls(s));
  observe(
    `${label} take ${s.takeId}: status webhook ${formatTimeline(s.createdMs, status)}; done webhook ${formatTimeline(s.createdMs, done)}; polled ${formatTimeline(s.createdMs, statusChanges(s.polled.entries))}`,
  );
}

/** The take most checks look at: both hooks, audio fetched right after the done call. */
const mainTake = once(async () => {
  const s = await runTakeScenario({ hooks: 'status+done', checkAudio: true });
  const common = { subject: `take ${s.takeId}`, token: s.token, from: s.doneCall };
  await Promise.all([
    // An at-least-once queue redelivering: a second done call has the late window to arrive.
    settleLater({
      ...common,
      requirement: 'WEBHOOK-DONE-ONCE',
      hook: 'done',
      expect: 'once',
      windowMs: LATE_DUPLICATE_WINDOW_MS,
    }),
    settleLater({
      ...common,
      requirement: 'WEBHOOK-STATUS-ORDERED',
      hook: 'status',
      expect: 'ordered',
      windowMs: DUPLICATE_WINDOW_MS,
    }),
    settleLater({
      ...common,
      requirement: 'WEBHOOK-POST-JSON',
      hook: '*',
      expect: 'posted-json',
      windowMs: DUPLICATE_WINDOW_MS,
    }),
  ]);
  return s;
});

/**
 * The run's own missing side is no difference: when what it asked right after the done call (the GET,
 * the audio) answered nothing it could compare (throttled past its bound, a format only ever
 * throttled, a request that failed), the check that compares with it is not concluded, never
 * "GET undefined" or "no audio" blamed on the server (issue 37). True when it said so.
 */
function missingAtDone(s: TakeScenario, id: RequirementId, what: 'GET' | 'audio'): boolean {
  const error = what === 'audio' ? (s.audioError ?? s.atDoneError) : s.atDoneError;
  if (error === undefined) return false;
  notConcluded(
    id,
    `the ${what === 'GET' ? 'GET' : 'audio fetch'} the run made right after the done call gave nothing to compare: ${error instanceof Error ? error.message : String(error)}`,
    "a run whose requests right after the done call are answered (--max-rps under the server's limit)",
  );
  return true;
}

function doneCalls(s: TakeScenario): WebhookCall[] {
  return callsOf(s.calls, 'done');
}

function statusCalls(s: TakeScenario): WebhookCall[] {
  return callsOf(s.calls, 'status');
}

function firstPolled(s: TakeScenario, status: string): TimelineEntry | undefined {
  return s.polled.entries.find((e) => e.status === status);
}

// ---------------------------------------------------------------------------------------------
// Take: done webhook

webhookTest(
  ['WEBHOOK-DONE-CALLED', 'WEBHOOK-POST-JSON'],
  'done_webhook is POSTed as JSON when the take is done',
  async () => {
    const s = await mainTake();
    observeTimelines(s, 'status+done hooks:');
    const finalStatus = String(field(s.polled.final, 'status'));
    const calls = doneCalls(s);
    check('WEBHOOK-DONE-CALLED', () =>
      assertDoneCalled(calls, `take ${s.takeId}`, finalStatus, ARRIVAL_BOUND_MS),
    );
    // Every call that came (done and status) is judged as a POST of JSON, even when done never came.
    check('WEBHOOK-POST-JSON', () => {
      for (const call of [...calls, ...statusCalls(s)])
        assertPostedJson(call, `take ${s.takeId}: ${call.hook}_webhook call ${call.index}`);
    });
    if (finalStatus !== 'ready') observe(`take ${s.takeId} ended ${finalStatus}, not ready`);
  },
);

webhookTest(['WEBHOOK-DONE-ONCE'], 'done_webhook is called exactly once, and only when done', async () => {
  const s = await mainTake();
  assertDoneCalledOnceWhenDone(doneCalls(s), `take ${s.takeId}`);
});

webhookTest(
  ['WEBHOOK-DONE-BODY-TAKE'],
  'the done call carries the Take, done, with info filled',
  async () => {
    const s = await mainTake();
    const call = doneCalls(s)[0];
    if (!call) throw new Finding(`take ${s.takeId}: no done call to look at`);
    expectSchema('Take', call.json, 'done_webhook body');
    const status = assertDoneBodyOfTake(call.json, s.takeId);
    if (status === 'ready') expectSchema('TakeInfo', field(call.json, 'info'), 'done_webhook body info');
  },
);

webhookTest(
  ['WEBHOOK-DONE-BODY-EQUALS-GET'],
  'the done call body equals GET made right after it',
  async () => {
    const s = await mainTake();
    const call = doneCalls(s)[0];
    if (!call) throw new Finding(`take ${s.takeId}: no done call to compare`);
    if (missingAtDone(s, 'WEBHOOK-DONE-BODY-EQUALS-GET', 'GET')) return;
    assertWebhookBodyMatchesGet(call.json, s.getAfterDone, `take ${s.takeId} done_webhook`);
  },
);

webhookTest(
  ['WEBHOOK-DONE-AUDIO-FETCHABLE'],
  'when the done call arrives, the audio is fetchable in every format',
  async () => {
    const s = await mainTake();
    if (!doneCalls(s)[0]) throw new Finding(`take ${s.takeId}: no done call arrived`);
    const ended = statusOf(doneCalls(s)[0]!.json);
    // A take that ended in error has no audio: the state this requirement speaks of did not occur.
    if (ended !== 'ready')
      return notObserved(
        'WEBHOOK-DONE-AUDIO-FETCHABLE',
        `take ${s.takeId} ended ${ended}: no audio to fetch when its done call arrived`,
        'a run whose webhook take ends ready',
      );
    if (missingAtDone(s, 'WEBHOOK-DONE-AUDIO-FETCHABLE', 'audio')) return;
    assertAudioFetchableAtDone(s.audioAtDone, s.takeId);
  },
);

webhookTest(
  ['WEBHOOK-DONE-ARRIVAL-BOUND'],
  `the done call arrives within ${ARRIVAL_BOUND_MS / 1000} s of ready`,
  async () => {
    const s = await mainTake();
    const call = doneCalls(s)[0];
    const ready = firstPolled(s, String(field(s.polled.final, 'status')));
    if (!call || !ready) throw new Finding(`take ${s.takeId}: no done call arrived`);
    const lag = call.receivedMs - ready.atMs;
    observe(
      `take ${s.takeId}: done call ${lag >= 0 ? `${lag} ms after` : `${-lag} ms before`} polling saw it done`,
    );
    assertArrivedWithin(lag, ARRIVAL_BOUND_MS, s.takeId);
  },
);

// ---------------------------------------------------------------------------------------------
// Take: status webhook

webhookTest(
  ['WEBHOOK-STATUS-CALLED'],
  'status_webhook is called with the Take, up to the done status',
  async () => {
    const s = await mainTake();
    const calls = statusCalls(s);
    calls.forEach((c, i) => {
      expectSchema('Take', c.json, `status_webhook call ${i + 1}`);
    });
    assertStatusCallsEndWith(calls, String(field(s.polled.final, 'status')), s.takeId);
  },
);

webhookTest(['WEBHOOK-STATUS-ORDERED'], 'status calls arrive in status order', async () => {
  const s = await mainTake();
  assertStatusOrder(calledStatuses(statusCalls(s)), `take ${s.takeId} status_webhook calls`);
});

/** The texts of WEBHOOK-STATUS-AGREES-POLLING's attempts: LONG_TEXT 1, 5 and 15 times over. */
const IN_PROGRESS_REPEATS = [1, 5, 15] as const;

/** The statuses between waiting and done that polling saw (started, progress_*), in order. */
function intermediatePolled(s: TakeScenario): string[] {
  return statusChanges(s.polled.entries)
    .map((e) => e.status)
    .filter((status) => status === 'started' || status.startsWith('progress_'));
}

/** The statuses polling saw (waiting aside) that no status call reported. */
function polledNotCalled(s: TakeScenario): string[] {
  const called = new Set(calledStatuses(statusCalls(s)));
  return statusChanges(s.polled.entries)
    .map((e) => e.status)
    .filter((status) => status !== 'waiting' && !called.has(status));
}

interface InProgressAttempt {
  scenario: TakeScenario;
  characters: number;
}

/**
 * WEBHOOK-STATUS-AGREES-POLLING compares the status calls with the statuses polling saw: a take
 * polled as waiting → ready shows no intermediate status, and a server that never calls the status
 * hook for started or progress_* passes it unseen (issue 40). So its take is of a long text, polled
 * beside its hooks, and retried with a longer text (at most three takes: a rate-limited server is
 * not hammered, and a hosted one bills each character) until polling saw the take `started`, the
 * first state of a take in progress. On a fast server started lasts one part of a short text (the
 * reference: ~40 ms, under one poll interval), the progress_* states longer, so a take seen only in
 * progress_* is tried longer once more; a difference already seen ends the attempts.
 * `inProgress`: the longest take polling saw in any intermediate status.
 */
const inProgressTake = once(
  async (): Promise<{ attempts: InProgressAttempt[]; inProgress?: TakeScenario; reason?: string }> => {
    const attempts: InProgressAttempt[] = [];
    let inProgress: TakeScenario | undefined;
    let reason = '';
    for (const repeat of IN_PROGRESS_REPEATS) {
      const text = longText(repeat);
      const scenario = await runTakeScenario({ hooks: 'status+done', text });
      attempts.push({ scenario, characters: text.length });
      const seen = intermediatePolled(scenario);
      if (seen.length > 0) inProgress = scenario;
      if (seen.includes('started') || polledNotCalled(scenario).length > 0) break;
      reason = `even a take of ${repeat} times the long text (${text.length} characters) was polled as ${distinctRuns(
        statusChanges(scenario.polled.entries).map((e) => e.status),
      ).join(' → ')}: no intermediate status (started, progress_*) for the status calls to agree with`;
    }
    return { attempts, ...(inProgress ? { inProgress } : { reason }) };
  },
);

webhookTest(
  ['WEBHOOK-STATUS-AGREES-POLLING'],
  'every status polled on a take in progress is also reported by a status call',
  async () => {
    const { attempts, inProgress, reason } = await inProgressTake();
    // Every attempt is judged on what its polling saw (a missing call for ready is missing on any
    // take); the requirement is observed only on a take polling saw in progress.
    for (const { scenario: s, characters } of attempts) {
      observeTimelines(s, `status+done hooks, ${characters} characters:`);
      const polled = statusChanges(s.polled.entries).map((e) => e.status);
      assertStatusesCalled(
        polled,
        statusCalls(s),
        `take ${s.takeId} (${characters} characters)`,
        'polling saw',
      );
    }
    if (!inProgress)
      return notObserved(
        'WEBHOOK-STATUS-AGREES-POLLING',
        reason ?? 'no take was made',
        tooFastRemedy('webhooks'),
      );
    observe(
      `take ${inProgress.takeId}: polling saw ${intermediatePolled(inProgress).join(', ')} and each was reported by a status call`,
    );
  },
);

/** The websocket take with both hooks: streamed to its end, then its webhook calls settled. */
const websocketTake = once(async () => {
  const sinkNow = theSink();
  const [{ token, url }, voiceId] = await Promise.all([sinkNow.newToken(), voice()]);
  // Asked for once the voice is ready, right before the upgrade: fetched beside the voice's wait it
  // could pass a short lifetime before it is used (issue 37).
  // It is asked for again should it still go stale before the upgrade (a 429/503 Retry-After).
  const conn = await openIssuedConnection(speak);
  try {
    const r = await conn.generate(
      { text: TEXT, voice_id: voiceId, status_webhook: url('status'), done_webhook: url('done') },
      { requestId: 1 },
    );
    if (r.takeId) speak.track('take', r.takeId);
    const streamed = r.takeMessages.map((m) => ({
      atMs: Math.round(performance.timeOrigin + m.atMs),
      status: String(m.data.status),
    }));
    const final = streamed.at(-1)?.status;
    if (!final || !isDone(final)) {
      throw new Finding(
        `the websocket request did not end in a done status (${r.outcome}: ${r.diagnostic ?? ''})`,
        { where: `websocket take ${r.takeId ?? '?'}`, expected: 'ready | error | timeout', actual: final },
      );
    }
    const calls = await sinkNow
      .waitForCalls(
        token,
        (arrived) =>
          arrived.some((c) => c.hook === 'done') &&
          arrived.some((c) => c.hook === 'status' && statusOf(c.json) === final),
        ARRIVAL_BOUND_MS,
      )
      .catch(() => sinkNow.calls(token));
    // A second done call has the duplicate window from the first, judged at the end of the run.
    await settleLater({
      requirement: 'WEBHOOK-STATUS-AGREES-WEBSOCKET',
      subject: `websocket take ${r.takeId ?? '?'}`,
      token,
      hook: 'done',
      expect: 'once',
      from: calls.find((c) => c.hook === 'done'),
      windowMs: DUPLICATE_WINDOW_MS,
    });
    return { r, streamed, calls };
  } finally {
    await conn.close();
  }
});

webhookTest(
  ['WEBHOOK-STATUS-AGREES-WEBSOCKET'],
  'a take streamed over the websocket reports the same statuses by webhook',
  async () => {
    const { r, streamed, calls } = await websocketTake();
    const startMs = Math.round(performance.timeOrigin + r.sentAt);
    const timeline = (hook: string) => callTimeline(callsOf(calls, hook));
    observe(
      `websocket take ${r.takeId ?? '?'}: status webhook ${formatTimeline(startMs, timeline('status'))}; done webhook ${formatTimeline(startMs, timeline('done'))}; websocket ${formatTimeline(startMs, statusChanges(streamed))}`,
    );
    const subject = `websocket take ${r.takeId ?? '?'}`;
    const seen = statusChanges(streamed).map((e) => e.status);
    assertStatusesCalled(seen, callsOf(calls, 'status'), subject, 'the websocket reported');
    assertCalledOnce(callsOf(calls, 'done').length, subject, 'done_webhook');
  },
);

// ---------------------------------------------------------------------------------------------
// Voice: done webhook when the voice is ready (its example take: reported)

/** A voice with a done_webhook: polled to done beside its call; a second call is judged at the end. */
const webhookVoice = once(async () => {
  const sinkNow = theSink();
  const { token, url } = await sinkNow.newToken();
  const startMs = Date.now();
  const created = expectJson(
    await speak.api.post('/v1/speak/voices/generate', {
      name: speak.prefix('webhooks-voice'),
      gender: speak.model.genders[0] ?? 'female',
      model: speak.model.name,
      done_webhook: url('done'),
    }),
    'POST /v1/speak/voices/generate',
  );
  const voiceId = field(created, 'voice_id');
  if (typeof voiceId !== 'string') {
    throw new Finding(`voice generation returned no voice_id: ${show(created)}`, {
      where: 'POST /v1/speak/voices/generate',
      expected: 'a voice_id',
      actual: created,
    });
  }
  speak.track('voice', voiceId);
  const path = `/v1/speak/voices/${encodeURIComponent(voiceId)}`;
  const polling = pollUntilDone('voice', voiceId);
  const [polled, atDone] = await Promise.all([
    polling,
    callsOnceDone(sinkNow, token, (calls) => calls.length > 0, polling).then(async () => {
      const voiceNow = expectJson(await speak.api.get(path), `GET ${path}`);
      const exampleId = field(voiceNow, 'example_take_id');
      if (typeof exampleId !== 'string') return { voiceNow, example: undefined };
      const examplePath = `/v1/speak/takes/${encodeURIComponent(exampleId)}`;
      // Only reported (wire facts): an example take that cannot be read now blocks nothing.
      const reply = await speak.api.get(examplePath);
      return { voiceNow, example: reply.status === 200 ? (reply.json as unknown) : undefined };
    }),
  ]);
  const calls = await sinkNow.calls(token);
  await settleLater({
    requirement: 'WEBHOOK-DONE-ONCE',
    subject: `voice ${voiceId}`,
    token,
    hook: 'done',
    expect: 'once',
    from: calls[0],
    windowMs: DUPLICATE_WINDOW_MS,
  });
  return { voiceId, startMs, polled, atDone, calls };
});

webhookTest(
  ['WEBHOOK-VOICE-DONE', 'WEBHOOK-POST-JSON', 'WEBHOOK-DONE-ONCE', 'WEBHOOK-DONE-BODY-EQUALS-GET'],
  "a voice's done_webhook is called with the Voice when it is ready",
  async () => {
    const { voiceId, startMs, polled, atDone, calls } = await webhookVoice();
    observe(
      `voice ${voiceId}: done webhook ${formatTimeline(
        startMs,
        callTimeline(calls),
      )}; polled ${formatTimeline(startMs, statusChanges(polled.entries))}`,
    );
    check('WEBHOOK-POST-JSON', () => {
      for (const call of calls) assertPostedJson(call, `voice ${voiceId}: done_webhook call ${call.index}`);
    });
    const subject = `voice ${voiceId}`;
    await checkStep('WEBHOOK-VOICE-DONE', () =>
      assertCalled(calls.length, subject, 'done_webhook', 'voice polled done'),
    );
    check('WEBHOOK-DONE-ONCE', () => assertNotCalledAgain(calls.length, subject, 'done_webhook'));
    const body = calls[0]!.json;
    check('WEBHOOK-VOICE-DONE', () => {
      expectSchema('Voice', body, 'voice done_webhook body');
      assertCalledWhenDone(body, subject, 'voice');
    });
    check('WEBHOOK-DONE-BODY-EQUALS-GET', () =>
      assertWebhookBodyMatchesGet(body, atDone.voiceNow, `voice ${voiceId} done_webhook`),
    );
    // Wire facts only (the SDK's voices are done after their example take): reported, not judged.
    if (atDone.example !== undefined) {
      observe(
        `voice ${voiceId}: when its done_webhook arrived its example take was ${show(statusOf(atDone.example))}`,
      );
    }
  },
);

// ---------------------------------------------------------------------------------------------
// The SDK's form and delivery details (INFO: the contract does not show them)

const postUrlTake = once(async () => {
  const s = await runTakeScenario({ hooks: 'done', form: 'post_url' });
  await settleLater({
    requirement: 'WEBHOOK-POST-URL-FORM',
    subject: `take ${s.takeId}`,
    token: s.token,
    hook: 'done',
    expect: 'once',
    from: s.doneCall,
    windowMs: DUPLICATE_WINDOW_MS,
  });
  return s;
});

webhookTest(['WEBHOOK-POST-URL-FORM'], 'a {"post_url"} done_webhook is accepted and called', async () => {
  const s = await postUrlTake();
  observeTimelines(s, '{post_url} done hook:');
  assertCalledOnce(doneCalls(s).length, `take ${s.takeId}`, 'a {"post_url"} done_webhook');
});

webhookTest(
  ['WEBHOOK-LAST-CALL-SHOWN'],
  'the take shows the last call of its {"post_url"} webhook',
  async () => {
    const s = await postUrlTake();
    if (doneCalls(s).length === 0) throw new Finding(`take ${s.takeId}: the done webhook was not called`);
    const take = expectJson(
      await speak.api.get(`/v1/speak/takes/${encodeURIComponent(s.takeId)}`),
      'GET take',
    );
    const hook = field(take, 'done_webhook');
    observe(`take ${s.takeId}: done_webhook after the call: ${show(hook)}`);
    assertLastCallShown(hook, s.takeId);
  },
);

/** How long a server may take to record a delivered call on the item after the sink received it. */
const RECORD_BOUND_MS = 5_000;

webhookTest(
  ['WEBHOOK-LAST-CALL-RECORD'],
  'a shown {"post_url"} call record names the delivered call',
  async () => {
    const s = await postUrlTake();
    const call = doneCalls(s).at(-1);
    if (!call) throw new Finding(`take ${s.takeId}: the done webhook was not called`);
    const path = `/v1/speak/takes/${encodeURIComponent(s.takeId)}`;
    // The sink has the call before the server has its answer: poll, bounded, until it is recorded.
    const deadline = Date.now() + RECORD_BOUND_MS;
    let take = expectJson(await speak.api.get(path), `GET ${path}`);
    while (field(field(take, 'done_webhook'), 'status_code') == null && Date.now() < deadline) {
      await sleep(POLL_INTERVAL_MS);
      take = expectJson(await speak.api.get(path), `GET ${path}`);
    }
    const hook = field(take, 'done_webhook');
    if (field(hook, 'timestamp_ms') === undefined && field(hook, 'status_code') === undefined) {
      return notObserved(
        coveredIds(),
        `take ${s.takeId}: done_webhook shows no call record (${show(hook)}); the contract does not say it must`,
        'a server whose Take records the call of its done_webhook',
      );
    }
    assertCallRecorded(
      hook,
      { takeId: s.takeId, timestampMs: field(take, 'timestamp_ms'), path },
      { postUrl: `${theSink().publicUrl}/hooks/${s.token}/done`, answeredStatus: call.answeredStatus },
      RECORD_BOUND_MS,
    );
  },
);

const retriedTake = once(async () => {
  const s = await runTakeScenario({ hooks: 'done', behaviour: { failFirst: 1 } });
  await settleLater({
    requirement: 'WEBHOOK-RETRY-AFTER-5XX',
    subject: `take ${s.takeId}`,
    token: s.token,
    hook: 'done',
    expect: 'retried',
    from: s.doneCall,
    windowMs: retryWindowMs(),
    why: 'SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS waits longer',
  });
  return s;
});

/** The time from generate to the first done poll of a take of TEXT without webhooks. */
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

webhookTest(['WEBHOOK-SLOW-SINK-NO-DELAY'], 'a slowly answering sink does not delay ready', async () => {
  // Baseline: the same text with no webhooks at all, made beside the slow-sink take: both share the
  // server alike, and the comparison costs one take's time, not two.
  const throttledBefore = runThrottle().stats();
  const [baselineMs, s] = await Promise.all([
    baselineTakeMs(),
    // Only the time to ready is judged: a server that delivers one call after another may send the
    // done call long after ready here, and waiting for it would only lengthen the run.
    runTakeScenario({ hooks: 'status+done', behaviour: { delayMs: SLOW_SINK_DELAY_MS }, awaitCalls: false }),
  ]);
  observeTimelines(s, `sink answering after ${SLOW_SINK_DELAY_MS} ms:`);
  const slowMs = s.polled.entries.at(-1)!.atMs - s.createdMs;
  observe(`time to done: ${baselineMs} ms without webhooks, ${slowMs} ms with a slow sink`);
  // Our own waits on the server's back-pressure land on one take's clock and not the other's: a
  // difference they could explain is not concluded, never blamed on the sink (issue 37).
  const throttledAfter = runThrottle().stats();
  const waitedS = Math.max(
    throttledAfter.heldS - throttledBefore.heldS,
    throttledAfter.waitedS - throttledBefore.waitedS,
  );
  if (slowMs > slowSinkAllowanceMs(baselineMs, SLOW_SINK_DELAY_MS) && waitedS > 0)
    throw new ClientDiagnostic(
      'throttled',
      `take ${s.takeId} took ${slowMs} ms with a slow sink against ${baselineMs} ms without, but the run waited ${waitedS.toFixed(1)} s on the server's back-pressure meanwhile: the times do not compare`,
      `${speak.config.baseUrl}/v1/speak/takes/${encodeURIComponent(s.takeId)}`,
    );
  assertNotDelayedBySlowSink(slowMs, baselineMs, SLOW_SINK_DELAY_MS, s.takeId);
});

// The independent scenarios (each with its own sink token) start together once the sink is up:
// their synthesis and their duplicate-call windows overlap instead of adding up, test after test.
// Each test still awaits its own scenario and asserts on it. Not the slow-sink scenario: it compares
// against a baseline take and must not share the machine with the others. The websocket take and
// the voice with a done_webhook are independent too (their own tokens) and start with them.
prefetch(mainTake, inProgressTake, postUrlTake, retriedTake, websocketTake, webhookVoice);

webhookTest(
  ['WEBHOOK-RETRY-AFTER-5XX'],
  'a done call answered with 500 (its retry is judged at the end of the run)',
  async () => {
    const s = await retriedTake();
    const first = doneCalls(s)[0];
    if (!first) {
      // Nothing to retry: the missing first call is WEBHOOK-DONE-CALLED's failure, not worth 60 s later.
      throw new Finding(`take ${s.takeId}: no done call arrived at all, so no retry could be observed`, {
        expected: 'a first done call (answered 500), then a retry',
        actual: '0 calls',
      });
    }
    observe(
      `take ${s.takeId}: done calls so far answered ${show(doneCalls(s).map((c) => c.answeredStatus))} at ${formatTimeline(
        s.createdMs,
        callTimeline(doneCalls(s)),
      )}; the retry has ${retryWindowMs() / 1000} s from the first`,
    );
  },
);

/**
 * How long after the first (failed) done call a retry is looked for: by default as long as the late
 * duplicate window; SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS (e.g. 60000) opts in to a longer wait for
 * servers that retry late.
 */
function retryWindowMs(): number {
  const asked = Number(process.env.SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS ?? '');
  return Number.isFinite(asked) && asked > 0 ? asked : LATE_DUPLICATE_WINDOW_MS;
}
