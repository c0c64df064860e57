/**
 * The webhook suite's scenarios (suites/webhooks.spec.ts): each a take or voice made once with hooks
 * under a sink token of its own and shared by the tests that await it (./scenarios.ts once()).
 *
 * What needs a window after a call (no second done call, a retry of a failed call, late status
 * calls) is judged by the tests on what has arrived and also filed here with the run's sink, as is a
 * done or status call that has not come yet (the contract gives them no time: ./webhook-settle.ts): its
 * window starts when the call arrived and suites/webhooks-settled.spec.ts judges it at the end of
 * the run, so the window overlaps the other files instead of holding this one open. A file that
 * uses these scenarios files such windows: it must match SETTLING_FILE (src/harness/webhook-files.ts),
 * which the sequencer starts first and the end-of-run judge waits for (each such file says it has
 * finished filing in its afterAll, below).
 */
import { afterAll } from 'vitest';
import type { ItemKind } from '../../schemas/item-kind.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { distinctRuns, isDone } from '../../src/checks/status.ts';
import {
  expectJson,
  type Precondition,
  type RemoteWebhookSink,
  type SpeakContext,
  statusOf,
  type WebhookCall,
} from '../../src/harness/index.ts';
import { longText, tooFastRemedy } from './long-text.ts';
import { once, useSharedVoice } from './scenarios.ts';
import { field } from './values.ts';
import {
  DONE_CALL_WAIT_MS,
  type FiledEntry,
  type StatusesCalledId,
  seenDoneMs,
  statusesCalledEntry,
} from './webhook-settle.ts';
import { useRunSink } from './webhook-sink.ts';
import {
  ARRIVAL_BOUND_MS,
  DUPLICATE_WINDOW_MS,
  endedBesideCalls,
  type InProgressAttempt,
  intermediatePolled,
  LATE_DUPLICATE_WINDOW_MS,
  type Polled,
  polledBesideCalls,
  polledStatuses,
  streamedBesideCalls,
  type TakeOptions,
  type TakeScenario,
  TEXT,
  type WebhookTakes,
  type WebsocketWebhookTake,
  webhookTakes,
} from './webhook-takes.ts';
import { openIssuedConnection } from './websocket-url.ts';

/** The texts of WEBHOOK-STATUS-AGREES-POLLING's attempts: LONG_TEXT 1, 5 and 15 times over. */
const IN_PROGRESS_REPEATS = [1, 5, 15] as const;

export interface WebhookScenarios {
  /** One take with hooks, polled beside them (./webhook-takes.ts). */
  runTakeScenario(speak: SpeakContext, o: TakeOptions): Promise<TakeScenario>;
  /** The time from generate to the first done poll of a take of TEXT without webhooks. */
  baselineTakeMs(speak: SpeakContext): Promise<number>;
  /** The run's sink (a harness fault when it is not running: the tests require `reachable`). */
  sink(): RemoteWebhookSink;
  /** The webhook tests' precondition: the server under test can call the run's sink. */
  reachable: Precondition;
  /** The take most checks look at: both hooks, audio fetched right after the done call. */
  mainTake(speak: SpeakContext): Promise<TakeScenario>;
  /**
   * Takes of a long text, retried longer until polling saw one in progress (see below).
   * `inProgress`: the longest take polling saw in any intermediate status; else `reason`.
   */
  inProgressTake(
    speak: SpeakContext,
  ): Promise<{ attempts: InProgressAttempt[]; inProgress?: TakeScenario; reason?: string }>;
  /** The websocket take with both hooks: streamed to its end, then its webhook calls settled. */
  websocketTake(speak: SpeakContext): Promise<WebsocketWebhookTake>;
  /** A voice with a done_webhook: polled to done beside its call. */
  webhookVoice(speak: SpeakContext): Promise<{
    voiceId: string;
    startMs: number;
    polled: Polled;
    /** GET of the voice (and its example take) right after its done call; none without one in time. */
    atDone: { voiceNow: unknown; example: unknown } | undefined;
    calls: WebhookCall[];
  }>;
  /** A take whose done_webhook is given in the {"post_url"} form. */
  postUrlTake(speak: SpeakContext): Promise<TakeScenario>;
  /** A take whose sink answers its first done call with 500. */
  retriedTake(speak: SpeakContext): Promise<TakeScenario>;
}

/** One file's scenarios, made with the file's context (`speak`) of the first test that asks. */
type FileScenarios = Pick<WebhookTakes, 'runTakeScenario' | 'baselineTakeMs'> & {
  [K in ScenarioName]: () => ReturnType<WebhookScenarios[K]>;
};

type ScenarioName =
  | 'mainTake'
  | 'inProgressTake'
  | 'websocketTake'
  | 'webhookVoice'
  | 'postUrlTake'
  | 'retriedTake';

/**
 * The scenarios of one file (`useWebhookScenarios()` at its top level): each takes the file's
 * context, the test's `speak` fixture; the first test (or prefetch) that asks makes them with it.
 */
export function useWebhookScenarios(): WebhookScenarios {
  const { sink, reachable } = useRunSink();
  // Every entry for the end-of-run judge is filed: it can start judging.
  afterAll(async () => {
    if ((await reachable()) === undefined) await sink().producerDone();
  });
  /** A plain ready voice to make takes with: the run's shared one. */
  const sharedVoice = useSharedVoice();
  let made: FileScenarios | undefined;
  const of = (speak: SpeakContext) => {
    made ??= fileScenarios(speak, sink, async () => (await sharedVoice(speak)).voice_id);
    return made;
  };
  return {
    sink,
    reachable,
    runTakeScenario: (speak, o) => of(speak).runTakeScenario(o),
    baselineTakeMs: (speak) => of(speak).baselineTakeMs(),
    mainTake: (speak) => of(speak).mainTake(),
    inProgressTake: (speak) => of(speak).inProgressTake(),
    websocketTake: (speak) => of(speak).websocketTake(),
    webhookVoice: (speak) => of(speak).webhookVoice(),
    postUrlTake: (speak) => of(speak).postUrlTake(),
    retriedTake: (speak) => of(speak).retriedTake(),
  };
}

function fileScenarios(
  speak: SpeakContext,
  sink: () => RemoteWebhookSink,
  voice: () => Promise<string>,
): FileScenarios {
  const takes = webhookTakes(speak, sink, voice);
  const { runTakeScenario, pollUntilDone, callsOnceDone } = takes;

  /**
   * Files a window for the end-of-run judge (suites/webhooks-settled.spec.ts), starting at `from`
   * (the call that opens it) or at `fromMs` (a `called` entry: when polling saw the item done).
   * Scenarios file what their tests will need judged; the judge only looks at the entries of the
   * requirements selected for the run.
   */
  function settleLater(
    entry: Omit<FiledEntry, 'fromMs' | 'item'> & {
      from?: WebhookCall | undefined;
      fromMs?: number | undefined;
      /** The item the window speaks of: handed to the run's end, deleted after the judge. */
      item: { kind: ItemKind; id: string | undefined };
    },
  ): Promise<void> {
    const { from, item, ...rest } = entry;
    const fromMs = from?.receivedMs ?? entry.fromMs;
    if (fromMs === undefined) return Promise.resolve(); // nothing arrived to open the window: the tests say so
    const { kind, id } = item;
    if (id === undefined) return sink().settleLater({ ...rest, fromMs });
    // Handed to the run's end: this file's end may fall inside the window, and a server may drop the
    // calls still due for a deleted item (the retry, a duplicate, a late done call): our cleanup must
    // not decide it. Untracked once the run holds it: a filing that failed leaves it this file's.
    return sink()
      .settleLater({ ...rest, fromMs, item: { kind, id } })
      .then(() => speak.untrack(kind, id));
  }

  /**
   * No done call among `calls` yet: a `called` entry for `requirement`, from when polling saw the
   * item done (`seenMs`), judged at the end of the run (./webhook-settle.ts).
   */
  function settleCalled(
    requirement: 'WEBHOOK-DONE-CALLED' | 'WEBHOOK-VOICE-DONE',
    o: {
      subject: string;
      item: { kind: ItemKind; id: string | undefined };
      token: string;
      calls: readonly WebhookCall[];
      seenMs: number | undefined;
      seen: string;
    },
  ): Promise<void> {
    if (o.calls.some((c) => c.hook === 'done')) return Promise.resolve();
    return settleLater({
      requirement,
      subject: o.subject,
      item: o.item,
      token: o.token,
      hook: 'done',
      expect: 'called',
      fromMs: o.seenMs,
      windowMs: DONE_CALL_WAIT_MS,
      why: o.seen,
    });
  }

  /**
   * Statuses seen that no status call of take `id` had reported yet: a `statuses-called` entry,
   * judged at the end of the run (./webhook-settle.ts: statusesCalledEntry says which and from when).
   */
  function settleStatusesCalled(
    requirement: StatusesCalledId,
    take: Parameters<typeof statusesCalledEntry>[1] & { id: string | undefined },
    heldNotObserved?: Parameters<typeof statusesCalledEntry>[2],
  ): Promise<void> {
    const entry = statusesCalledEntry(requirement, take, heldNotObserved);
    if (!entry) return Promise.resolve();
    return settleLater({ ...entry, item: { kind: 'take', id: take.id } });
  }

  const mainTake = once(async () => {
    const s = await runTakeScenario({ hooks: 'status+done', checkAudio: true });
    const common = {
      subject: `take ${s.takeId}`,
      item: { kind: 'take' as const, id: s.takeId },
      token: s.token,
      from: s.doneCall,
    };
    await Promise.all([
      // No done call yet: whether it comes at all is judged at the end of the run.
      settleCalled('WEBHOOK-DONE-CALLED', {
        ...common,
        calls: s.calls,
        seenMs: seenDoneMs(s.polled),
        seen: `take polled ${statusOf(s.polled.final)}`,
      }),
      // An at-least-once queue redelivering: a second done call has the late window to arrive.
      settleLater({
        ...common,
        requirement: 'WEBHOOK-DONE-ONCE',
        hook: 'done',
        expect: 'once',
        windowMs: LATE_DUPLICATE_WINDOW_MS,
      }),
      // No status call for the done status yet: whether one comes is judged at the end of the run.
      settleStatusesCalled('WEBHOOK-STATUS-CALLED', {
        ...endedBesideCalls(s),
        token: s.token,
        seenMs: seenDoneMs(s.polled),
        why: `take polled ${statusOf(s.polled.final)}`,
        id: s.takeId,
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
   * WEBHOOK-STATUS-AGREES-POLLING compares the status calls with the statuses polling saw: a take
   * polled as waiting → ready shows no intermediate status, and a server that never calls the status
   * hook for started or progress_* passes it unseen (issue 40). So its take is of a long text, polled
   * beside its hooks, and retried with a longer text (at most three takes: a rate-limited server is
   * not hammered, and a hosted one bills each character) until polling saw the take `started`, the
   * first state of a take in progress. On a fast server started lasts one part of a short text (the
   * reference: ~40 ms, under one poll interval), the progress_* states longer, so a take seen only in
   * progress_* is tried longer once more. A status polled but not reported by a status call yet is
   * no difference (the contract gives the calls no time): each attempt's is filed for the end of the
   * run, which without a take seen in progress can fail the requirement, not pass it.
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
        if (seen.includes('started')) break;
        reason = `even a take of ${repeat} times the long text (${text.length} characters) was polled as ${distinctRuns(
          polledStatuses(scenario),
        ).join(' → ')}: no intermediate status (started, progress_*) for the status calls to agree with`;
      }
      const notInProgress = inProgress ? undefined : { reason, wouldJudge: tooFastRemedy('webhooks') };
      await Promise.all(
        attempts.map((attempt) =>
          settleStatusesCalled(
            'WEBHOOK-STATUS-AGREES-POLLING',
            {
              ...polledBesideCalls(attempt),
              token: attempt.scenario.token,
              id: attempt.scenario.takeId,
              seenMs: seenDoneMs(attempt.scenario.polled),
              why: `take polled ${statusOf(attempt.scenario.polled.final)}`,
            },
            notInProgress,
          ),
        ),
      );
      return { attempts, ...(inProgress ? { inProgress } : { reason }) };
    },
  );

  const websocketTake = once(async (): Promise<WebsocketWebhookTake> => {
    const sinkNow = sink();
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
      const subject = `websocket take ${r.takeId ?? '?'}`;
      const item = { kind: 'take' as const, id: r.takeId };
      // No done call yet: whether it comes is judged at the end of the run (it is a take's done call).
      const seenMs = streamed.find((m) => isDone(m.status))?.atMs;
      const seen = `streamed ${final}`;
      await settleCalled('WEBHOOK-DONE-CALLED', { subject, item, token, calls, seenMs, seen });
      // Statuses streamed that no status call reported yet: whether they come is judged at the end too.
      await settleStatusesCalled('WEBHOOK-STATUS-AGREES-WEBSOCKET', {
        ...streamedBesideCalls({ r, streamed, calls }),
        token,
        id: r.takeId,
        seenMs,
        why: seen,
      });
      // A second done call has the duplicate window from the first, judged at the end of the run.
      await settleLater({
        requirement: 'WEBHOOK-STATUS-AGREES-WEBSOCKET',
        subject,
        item,
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

  /** A second done call of the voice is judged at the end. */
  const webhookVoice = once(async () => {
    const sinkNow = sink();
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
      callsOnceDone(sinkNow, token, (calls) => calls.length > 0, polling).then(async (arrived) => {
        // No call within the wait: nothing came to look at right after it (judged at the run's end).
        if (arrived.length === 0) return undefined;
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
    const common = { subject: `voice ${voiceId}`, item: { kind: 'voice' as const, id: voiceId }, token };
    const seen = `voice polled ${statusOf(polled.final)}`;
    await Promise.all([
      settleCalled('WEBHOOK-VOICE-DONE', { ...common, calls, seenMs: seenDoneMs(polled), seen }),
      settleLater({
        ...common,
        requirement: 'WEBHOOK-DONE-ONCE',
        hook: 'done',
        expect: 'once',
        from: calls[0],
        windowMs: DUPLICATE_WINDOW_MS,
      }),
    ]);
    return { voiceId, startMs, polled, atDone, calls };
  });

  const postUrlTake = once(async () => {
    const s = await runTakeScenario({ hooks: 'done', form: 'post_url' });
    await settleLater({
      requirement: 'WEBHOOK-POST-URL-FORM',
      subject: `take ${s.takeId}`,
      item: { kind: 'take', id: s.takeId },
      token: s.token,
      hook: 'done',
      expect: 'once',
      from: s.doneCall,
      windowMs: DUPLICATE_WINDOW_MS,
    });
    return s;
  });

  const retriedTake = once(async () => {
    const s = await runTakeScenario({ hooks: 'done', behaviour: { failFirst: 1 } });
    await settleLater({
      requirement: 'WEBHOOK-RETRY-AFTER-5XX',
      subject: `take ${s.takeId}`,
      item: { kind: 'take', id: s.takeId },
      token: s.token,
      hook: 'done',
      expect: 'retried',
      from: s.doneCall,
      windowMs: retryWindowMs(),
      why: 'SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS waits longer',
    });
    return s;
  });

  return {
    runTakeScenario,
    baselineTakeMs: takes.baselineTakeMs,
    mainTake,
    inProgressTake,
    websocketTake,
    webhookVoice,
    postUrlTake,
    retriedTake,
  };
}

/**
 * How long after the first (failed) done call a retry is looked for: by default as long as the late
 * duplicate window; SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS (e.g. 60000) opts in to a longer wait for
 * servers that retry late.
 */
export function retryWindowMs(): number {
  const asked = Number(process.env.SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS ?? '');
  return Number.isFinite(asked) && asked > 0 ? asked : LATE_DUPLICATE_WINDOW_MS;
}

/**
 * What the test that files the retry window concludes (notObserved's reason and what would judge):
 * it saw the first done call answered 500; the retry itself is judged at the end of the run.
 */
export const RETRY_JUDGED_LATER = [
  'the first done call was answered 500 and its retry window filed: the retry is judged at the end of the run',
  'the settled test of WEBHOOK-RETRY-AFTER-5XX (suites/webhooks-settled.spec.ts)',
] as const;
