/**
 * Webhooks (speak-v1.md Events → Webhooks; wire-facts.md): the server calls the harness's sink.
 * Each scenario (suites/support/webhook-scenarios.ts) gets its own sink token, so calls are matched
 * to it; polling runs beside the hooks and the report gets both timelines per take.
 *
 * What needs a window after a call (a second done call, a retry, late status calls) is judged here on
 * what came, and a done or status call not come yet is none here (the contract gives them no time):
 * the scenarios file both with the run's sink; suites/webhooks-settled.spec.ts judges them at the end.
 *
 * Every test requires that the server reaches the sink (else each id is not applicable, one line why).
 */
import { Finding, show } from '../src/checks/finding.ts';
import * as wc from '../src/checks/webhook-calls.ts';
import {
  assertPostedJson,
  assertWebhookBodyMatchesGet,
  formatTimeline,
  statusChanges,
} from '../src/checks/webhooks.ts';
import {
  ClientDiagnostic,
  cannotObserve,
  check,
  coveredIds,
  covers,
  expectJson,
  expectSchema,
  notObserved,
  observe,
  runThrottle,
  statusOf,
} from '../src/harness/index.ts';
import { tooFastRemedy } from './support/long-text.ts';
import { prefetch } from './support/scenarios.ts';
import { judgeStatusOrder } from './support/status-order.ts';
import { field } from './support/values.ts';
import {
  attemptItem,
  judgeDoneCallsAgainstGet,
  judgeDoneCallsOfItems,
  judgeStatusCallsOfItems,
  noCallYet,
  registeredItems,
  statusHookedItems,
} from './support/webhook-registered.ts';
import { RETRY_JUDGED_LATER, retryWindowMs, useWebhookScenarios } from './support/webhook-scenarios.ts';
import {
  doneCalledInFile,
  noDoneCallYet,
  statusCallsJudgedLater,
  statusesCalledInFile,
  withoutDoneCall,
} from './support/webhook-settle.ts';
import {
  ARRIVAL_BOUND_MS,
  doneCalls,
  endedBesideCalls,
  firstPolled,
  intermediatePolled,
  missingAtDone,
  observeTimelines,
  polledBesideCalls,
  RECORD_BOUND_MS,
  statusCalls,
  streamedBesideCalls,
  takeOnceRecorded,
} from './support/webhook-takes.ts';

const webhooks = useWebhookScenarios();
const { mainTake, inProgressTake, postUrlTake, retriedTake, websocketTake, webhookVoice } = webhooks;
/** The precondition of every test here: the server under test can call the run's webhook sink. */
const sinkReachable = webhooks.reachable;

const SLOW_SINK_DELAY_MS = 4_000;

// The independent scenarios (each with its own sink token) start together once the sink is up:
// their synthesis and their duplicate-call windows overlap instead of adding up, test after test.
// Each test still awaits its own scenario and asserts on it. Not the slow-sink scenario: it compares
// against a baseline take and must not share the machine with the others. The websocket take and
// the voice with a done_webhook are independent too (their own tokens) and start with them.
prefetch(mainTake, inProgressTake, postUrlTake, retriedTake, websocketTake, webhookVoice);

// ---------------------------------------------------------------------------------------------
// Take: done webhook

covers(
  ['WEBHOOK-DONE-CALLED', 'WEBHOOK-POST-JSON'],
  'done_webhook is POSTed as JSON when the take is done',
  async ({ speak }) => {
    const s = await mainTake(speak);
    observeTimelines(s, 'status+done hooks:');
    const finalStatus = String(field(s.polled.final, 'status'));
    const calls = doneCalls(s);
    const subject = `take ${s.takeId}`;
    doneCalledInFile('WEBHOOK-DONE-CALLED', subject, calls.length, `take polled ${finalStatus}`);
    // Every call that came (done and status) is judged as a POST of JSON, even when done has not come.
    const came = [...calls, ...statusCalls(s)];
    if (came.length > 0)
      check('WEBHOOK-POST-JSON', () => {
        for (const call of came)
          assertPostedJson(call, `${subject}: ${call.hook}_webhook call ${call.index}`);
      });
    if (finalStatus !== 'ready')
      observe('webhooks.take-not-ready', 'take {takeId} ended {status}, not ready', {
        values: { status: finalStatus },
        particulars: { takeId: s.takeId },
      });
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-DONE-ONCE'],
  'done_webhook is called exactly once, and only when done',
  async ({ speak }) => {
    const s = await mainTake(speak);
    if (withoutDoneCall(s, 'WEBHOOK-DONE-ONCE')) return;
    check('WEBHOOK-DONE-ONCE', () => wc.assertDoneCalledOnceWhenDone(doneCalls(s), `take ${s.takeId}`));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-DONE-BODY-TAKE'],
  'every done call carries the Take (or Voice) it was registered for, done, with info filled',
  async ({ speak }) => {
    const s = await mainTake(speak);
    const call = doneCalls(s)[0];
    if (!call) withoutDoneCall(s, 'WEBHOOK-DONE-BODY-TAKE');
    else
      check('WEBHOOK-DONE-BODY-TAKE', () => {
        expectSchema('Take', call.json, 'done_webhook body');
        const status = wc.assertDoneBodyOfTake(call.json, s.takeId);
        if (status === 'ready') expectSchema('TakeInfo', field(call.json, 'info'), 'done_webhook body info');
      });
    // Not one sample: every done call of every item the file made with a done_webhook (issue 49).
    judgeDoneCallsOfItems(await registeredItems(webhooks, speak));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-DONE-BODY-EQUALS-GET'],
  'the done call body equals GET made right after it',
  async ({ speak }) => {
    const s = await mainTake(speak);
    const call = s.doneCall; // the first, if it came within the wait: the GET was made right after it
    const id = 'WEBHOOK-DONE-BODY-EQUALS-GET';
    if (!withoutDoneCall(s, id, call) && !missingAtDone(s, id, 'GET'))
      check(id, () =>
        assertWebhookBodyMatchesGet(call!.json, s.getAfterDone, `take ${s.takeId} done_webhook`),
      );
    // Every other take whose GET the run made right after its done call (issue 49).
    const others = (await registeredItems(webhooks, speak)).filter((item) => item.id !== s.takeId);
    judgeDoneCallsAgainstGet(others);
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-DONE-AUDIO-FETCHABLE'],
  'when the done call arrives, the audio is fetchable in every format',
  async ({ speak }) => {
    const s = await mainTake(speak);
    if (withoutDoneCall(s, 'WEBHOOK-DONE-AUDIO-FETCHABLE', s.doneCall)) return;
    const ended = statusOf(s.doneCall!.json);
    // A take that ended in error has no audio: the state this requirement speaks of did not occur.
    if (ended !== 'ready')
      return notObserved(
        'WEBHOOK-DONE-AUDIO-FETCHABLE',
        `take ${s.takeId} ended ${ended}: no audio to fetch when its done call arrived`,
        'a run whose webhook take ends ready',
      );
    if (missingAtDone(s, 'WEBHOOK-DONE-AUDIO-FETCHABLE', 'audio')) return;
    check('WEBHOOK-DONE-AUDIO-FETCHABLE', () => wc.assertAudioFetchableAtDone(s.audioAtDone, s.takeId));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-DONE-ARRIVAL-BOUND'],
  `the done call arrives within ${ARRIVAL_BOUND_MS / 1000} s of ready`,
  async ({ speak }) => {
    const s = await mainTake(speak);
    const call = doneCalls(s)[0];
    const ready = firstPolled(s, String(field(s.polled.final, 'status')));
    // The bound is ours (the contract names none); a later call is WEBHOOK-DONE-CALLED's, at the end.
    if (!call || !ready)
      throw new Finding(`take ${s.takeId}: no done call ${ARRIVAL_BOUND_MS} ms after done`);
    const lag = call.receivedMs - ready.atMs;
    observe('webhooks.done-call-against-polling', 'take {takeId}: done call {lag} polling saw it done', {
      particulars: { takeId: s.takeId, lag: lag >= 0 ? `${lag} ms after` : `${-lag} ms before` },
      caught: true,
    });
    check('WEBHOOK-DONE-ARRIVAL-BOUND', () => wc.assertArrivedWithin(lag, ARRIVAL_BOUND_MS, s.takeId));
  },
  { requires: sinkReachable },
);

// ---------------------------------------------------------------------------------------------
// Take: status webhook

covers(
  ['WEBHOOK-STATUS-CALLED'],
  'status_webhook is called with the Take, up to the done status',
  async ({ speak }) => {
    const s = await mainTake(speak);
    const calls = statusCalls(s);
    calls.forEach((c, i) => {
      check('WEBHOOK-STATUS-CALLED', () => expectSchema('Take', c.json, `status_webhook call ${i + 1}`));
    });
    // The done status included; its call not come yet is judged at the end (the scenario filed it).
    statusesCalledInFile('WEBHOOK-STATUS-CALLED', endedBesideCalls(s));
    // Not one sample: every status call of every take the file made with a status_webhook (issue 49).
    judgeStatusCallsOfItems(await statusHookedItems(webhooks, speak));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-STATUS-ORDERED'],
  'status calls arrive in status order',
  async ({ speak }) => {
    const s = await mainTake(speak);
    const subject = `take ${s.takeId} status_webhook calls`;
    judgeStatusOrder('WEBHOOK-STATUS-ORDERED', wc.calledStatuses(statusCalls(s)), subject);
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-STATUS-CALLED', 'WEBHOOK-DONE-BODY-TAKE'],
  'every call of the in-progress takes is about the take it was registered for',
  async ({ speak }) => {
    // Not one sample (issue 49): the takes WEBHOOK-STATUS-AGREES-POLLING made have both hooks too.
    // Only calls that came are judged; none on any take concludes nothing here, and says why.
    const items = (await inProgressTake(speak)).attempts.map(attemptItem);
    if (judgeStatusCallsOfItems(items) === 0)
      notObserved('WEBHOOK-STATUS-CALLED', ...noCallYet(items, 'status'));
    if (judgeDoneCallsOfItems(items) === 0)
      notObserved('WEBHOOK-DONE-BODY-TAKE', ...noCallYet(items, 'done'));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-STATUS-AGREES-POLLING'],
  'every status polled on a take in progress is also reported by a status call',
  async ({ speak }) => {
    const { attempts, inProgress, reason } = await inProgressTake(speak);
    const id = 'WEBHOOK-STATUS-AGREES-POLLING';
    for (const { scenario: s, characters } of attempts)
      observeTimelines(s, `status+done hooks, ${characters} characters:`);
    // Without a take seen in progress the state did not occur: an attempt can fail it, not pass it,
    // and only at the end of the run (a status not reported yet may still come: the scenario filed it).
    if (!inProgress) return notObserved(id, reason ?? 'no take was made', tooFastRemedy('webhooks'));
    // Every attempt is judged on what its polling saw (a missing call for ready is missing on any
    // take); one whose statuses are not all reported yet is judged at the end of the run.
    const held = attempts.filter((attempt) => statusesCalledInFile(id, polledBesideCalls(attempt)));
    const observed = attempts.find((attempt) => attempt.scenario === inProgress)!;
    if (held.length === 0) return notObserved(id, ...statusCallsJudgedLater(id, polledBesideCalls(observed)));
    if (held.includes(observed))
      observe(
        'webhooks.in-progress-statuses-called',
        'take {takeId}: polling saw {statuses} and each was reported by a status call',
        { particulars: { takeId: inProgress.takeId, statuses: intermediatePolled(inProgress).join(', ') } },
      );
  },
  { requires: sinkReachable },
);

// ---------------------------------------------------------------------------------------------
// Take over the websocket: the same statuses by webhook

covers(
  ['WEBHOOK-STATUS-AGREES-WEBSOCKET'],
  'a take streamed over the websocket reports the same statuses by webhook',
  async ({ speak }) => {
    const { r, streamed, calls } = await websocketTake(speak);
    const startMs = Math.round(performance.timeOrigin + r.sentAt);
    const timeline = (hook: string) => wc.callTimeline(wc.callsOf(calls, hook));
    observe(
      'webhooks.websocket-take-timeline',
      'websocket take {takeId}: status webhook {status}; done webhook {done}; websocket {streamed}',
      {
        particulars: {
          takeId: r.takeId ?? '?',
          status: formatTimeline(startMs, timeline('status')),
          done: formatTimeline(startMs, timeline('done')),
          streamed: formatTimeline(startMs, statusChanges(streamed)),
        },
      },
    );
    const id = 'WEBHOOK-STATUS-AGREES-WEBSOCKET';
    const take = streamedBesideCalls({ r, streamed, calls });
    // Not twice; one not come yet is WEBHOOK-DONE-CALLED's, judged at the end of the run.
    const doneCount = wc.callsOf(calls, 'done').length;
    // A status not reported yet is no violation here (the scenario filed it for the end of the run);
    // a second done call already come is one, whatever comes later.
    if (statusesCalledInFile(id, take) || doneCount > 1)
      check(id, () => wc.assertNotCalledAgain(doneCount, take.subject, 'done_webhook'));
    else notObserved(id, ...statusCallsJudgedLater(id, take));
  },
  { requires: sinkReachable },
);

// ---------------------------------------------------------------------------------------------
// Voice: done webhook when the voice is ready (its example take: reported)

covers(
  ['WEBHOOK-VOICE-DONE', 'WEBHOOK-POST-JSON', 'WEBHOOK-DONE-ONCE', 'WEBHOOK-DONE-BODY-EQUALS-GET'],
  "a voice's done_webhook is called with the Voice when it is ready",
  async ({ speak }) => {
    const { voiceId, startMs, polled, atDone, calls } = await webhookVoice(speak);
    observe('webhooks.voice-timeline', 'voice {voiceId}: done webhook {done}; polled {polled}', {
      particulars: {
        voiceId,
        done: formatTimeline(startMs, wc.callTimeline(calls)),
        polled: formatTimeline(startMs, statusChanges(polled.entries)),
      },
    });
    const subject = `voice ${voiceId}`;
    const seen = `voice polled ${statusOf(polled.final)}`;
    // None yet is no violation here (filed for the run's end); the rest judge a call: not observed.
    if (!doneCalledInFile('WEBHOOK-VOICE-DONE', subject, calls.length, seen))
      cannotObserve(...noDoneCallYet(subject));
    check('WEBHOOK-POST-JSON', () => {
      for (const call of calls) assertPostedJson(call, `${subject}: done_webhook call ${call.index}`);
    });
    check('WEBHOOK-DONE-ONCE', () => wc.assertNotCalledAgain(calls.length, subject, 'done_webhook'));
    const body = calls[0]!.json;
    check('WEBHOOK-VOICE-DONE', () => {
      expectSchema('Voice', body, 'voice done_webhook body');
      wc.assertCalledWhenDone(body, subject, 'voice');
    });
    // The GET was made right after the call when it came within the wait.
    if (atDone === undefined) notObserved('WEBHOOK-DONE-BODY-EQUALS-GET', ...noDoneCallYet(subject));
    else
      check('WEBHOOK-DONE-BODY-EQUALS-GET', () =>
        assertWebhookBodyMatchesGet(body, atDone.voiceNow, `voice ${voiceId} done_webhook`),
      );
    // Wire facts only (the SDK's voices are done after their example take): reported, not judged.
    if (atDone?.example !== undefined)
      observe(
        'webhooks.voice-example-at-done',
        'voice {voiceId}: when its done_webhook arrived its example take was {example}',
        { values: { example: show(statusOf(atDone.example)) }, particulars: { voiceId } },
      );
  },
  { requires: sinkReachable },
);

// ---------------------------------------------------------------------------------------------
// The SDK's form and delivery details (INFO: the contract does not show them)

covers(
  ['WEBHOOK-POST-URL-FORM'],
  'a {"post_url"} done_webhook is accepted and called',
  async ({ speak }) => {
    const s = await postUrlTake(speak);
    observeTimelines(s, '{post_url} done hook:');
    check('WEBHOOK-POST-URL-FORM', () =>
      wc.assertCalledOnce(doneCalls(s).length, `take ${s.takeId}`, 'a {"post_url"} done_webhook'),
    );
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-LAST-CALL-SHOWN'],
  'the take shows the last call of its {"post_url"} webhook',
  async ({ speak }) => {
    const s = await postUrlTake(speak);
    if (doneCalls(s).length === 0) throw new Finding(`take ${s.takeId}: the done webhook was not called`);
    const take = expectJson(
      await speak.api.get(`/v1/speak/takes/${encodeURIComponent(s.takeId)}`),
      'GET take',
    );
    const hook = field(take, 'done_webhook');
    observe('webhooks.done-webhook-after-call', 'take {takeId}: done_webhook after the call: {hook}', {
      values: { shown: hook !== null && hook !== undefined },
      particulars: { takeId: s.takeId, hook: show(hook) },
    });
    check('WEBHOOK-LAST-CALL-SHOWN', () => wc.assertLastCallShown(hook, s.takeId));
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-LAST-CALL-RECORD'],
  'a shown {"post_url"} call record names the delivered call',
  async ({ speak }) => {
    const s = await postUrlTake(speak);
    const call = doneCalls(s).at(-1);
    if (!call) throw new Finding(`take ${s.takeId}: the done webhook was not called`);
    const path = `/v1/speak/takes/${encodeURIComponent(s.takeId)}`;
    const take = await takeOnceRecorded(speak, path);
    const hook = field(take, 'done_webhook');
    if (field(hook, 'timestamp_ms') === undefined && field(hook, 'status_code') === undefined) {
      return notObserved(
        coveredIds(),
        `take ${s.takeId}: done_webhook shows no call record (${show(hook)}); the contract does not say it must`,
        'a server whose Take records the call of its done_webhook',
      );
    }
    check('WEBHOOK-LAST-CALL-RECORD', () =>
      wc.assertCallRecorded(
        hook,
        { takeId: s.takeId, timestampMs: field(take, 'timestamp_ms'), path },
        {
          postUrl: `${webhooks.sink().publicUrl}/hooks/${s.token}/done`,
          answeredStatus: call.answeredStatus,
        },
        RECORD_BOUND_MS,
      ),
    );
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-SLOW-SINK-NO-DELAY'],
  'a slowly answering sink does not delay ready',
  async ({ speak }) => {
    // Baseline: the same text with no webhooks at all, made beside the slow-sink take: both share the
    // server alike, and the comparison costs one take's time, not two.
    const throttledBefore = runThrottle().stats();
    const [baselineMs, s] = await Promise.all([
      webhooks.baselineTakeMs(speak),
      // Only the time to ready is judged: a server that delivers one call after another may send the
      // done call long after ready here, and waiting for it would only lengthen the run.
      webhooks.runTakeScenario(speak, {
        hooks: 'status+done',
        behaviour: { delayMs: SLOW_SINK_DELAY_MS },
        awaitCalls: false,
      }),
    ]);
    observeTimelines(s, `sink answering after ${SLOW_SINK_DELAY_MS} ms:`);
    const slowMs = s.polled.entries.at(-1)!.atMs - s.createdMs;
    observe(
      'webhooks.slow-sink-time',
      'time to done: {baselineMs} ms without webhooks, {slowMs} ms with a slow sink',
      {
        particulars: { baselineMs, slowMs },
        caught: true,
      },
    );
    // Our own waits on the server's back-pressure land on one take's clock and not the other's: a
    // difference they could explain is not concluded, never blamed on the sink (issue 37).
    const throttledAfter = runThrottle().stats();
    const waitedS = Math.max(
      throttledAfter.heldS - throttledBefore.heldS,
      throttledAfter.waitedS - throttledBefore.waitedS,
    );
    if (slowMs > wc.slowSinkAllowanceMs(baselineMs, SLOW_SINK_DELAY_MS) && waitedS > 0)
      throw new ClientDiagnostic(
        'throttled',
        `take ${s.takeId} took ${slowMs} ms with a slow sink against ${baselineMs} ms without, but the run waited ${waitedS.toFixed(1)} s on the server's back-pressure meanwhile: the times do not compare`,
        `${speak.config.baseUrl}/v1/speak/takes/${encodeURIComponent(s.takeId)}`,
      );
    const delayMs = SLOW_SINK_DELAY_MS;
    check('WEBHOOK-SLOW-SINK-NO-DELAY', () =>
      wc.assertNotDelayedBySlowSink(slowMs, baselineMs, delayMs, s.takeId),
    );
  },
  { requires: sinkReachable },
);

covers(
  ['WEBHOOK-RETRY-AFTER-5XX'],
  'a done call answered with 500 (its retry is judged at the end of the run)',
  async ({ speak }) => {
    const s = await retriedTake(speak);
    const first = doneCalls(s)[0];
    if (!first) {
      // Nothing to retry: the missing first call is WEBHOOK-DONE-CALLED's failure, not worth 60 s later.
      throw new Finding(`take ${s.takeId}: no done call arrived at all, so no retry could be observed`, {
        expected: 'a first done call (answered 500), then a retry',
        actual: '0 calls',
      });
    }
    observe(
      'webhooks.done-calls-so-far',
      'take {takeId}: done calls so far answered {answered} at {at}; the retry has {windowS} s from the first',
      {
        particulars: {
          takeId: s.takeId,
          answered: show(doneCalls(s).map((c) => c.answeredStatus)),
          at: formatTimeline(s.createdMs, wc.callTimeline(doneCalls(s))),
          windowS: retryWindowMs() / 1000,
        },
        caught: true,
      },
    );
    notObserved('WEBHOOK-RETRY-AFTER-5XX', ...RETRY_JUDGED_LATER);
  },
  { requires: sinkReachable },
);
