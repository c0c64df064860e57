/**
 * capacity-step: one step of `speakcheck load capacity` (src/load/capacity.ts): a constant load held
 * for STEP_S seconds after a warm-up in setup() whose samples stay out of the figures.
 *
 * LOAD=rate:    RATE takes per second arrive (constant-arrival-rate): websocket modes open one
 *               connection per take, REST posts a take and polls it.
 * LOAD=streams: STREAMS concurrent websocket connections, each sending its takes back to back
 *               (REQUESTS_PER_CONNECTION per connection), for STEP_S seconds.
 *
 * Figures: speak_ws_ttfc (first playable audio), speak_ws_end_of_take, speak_ws_errors for the
 * websocket modes; speak_take_latency, speak_queue_wait, speak_rest_errors for REST; each error Rate
 * counts every take that ended, which gives the achieved rate.
 *
 * Env: MODE (chunks | parts | rest), LOAD (rate), RATE (8), STREAMS (4), STEP_S (10), TEXTS
 *      (paragraph), MAX_VUS (200), POLL_MS (50), POLL_MAX_MS (250), REQUESTS_PER_CONNECTION (5), WARMUP_TAKES, WARMUP_CONNECTIONS.
 *      VOICE_ID (speak with this voice; the search passes step 1's to every later step), KEEP_VOICE
 *      (keep the voice this run made: step 1), as in every scenario (load/lib/speak.ts).
 */
import exec from 'k6/execution';
import { envNumber, envString, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import { addStreamFigures, wsErrors, wsTtfc } from '../lib/metrics.ts';
import { restTake } from '../lib/rest-take.ts';
import { Session } from '../lib/session.ts';
import {
  cleanupRun,
  prepareRun,
  type RunSetup,
  type WsRunSetup,
  warmUp,
  warmUpRest,
  websocketUrl,
  workerUrls,
} from '../lib/speak.ts';
import { type SummaryData, writeSummary } from '../lib/summary.ts';
import { runWsTakes, type StreamMode } from '../lib/ws-takes.ts';

const MODE = envString('MODE', 'chunks');
if (!['chunks', 'parts', 'rest'].includes(MODE)) throw new Error(`MODE=${MODE}: use chunks, parts or rest`);
const LOAD = envString('LOAD', 'rate');
if (LOAD !== 'rate' && LOAD !== 'streams') throw new Error(`LOAD=${LOAD}: use rate or streams`);
if (LOAD === 'streams' && MODE === 'rest') throw new Error('LOAD=streams is for the websocket modes');
const RATE = envNumber('RATE', 8);
const STREAMS = envNumber('STREAMS', 4);
const STEP_S = envNumber('STEP_S', 10);
const MAX_VUS = envNumber('MAX_VUS', 200);
const POLL_MS = envNumber('POLL_MS', 50);
// REST polls back off (50, 100, 200, 250, 250 ms ...): a fixed 50 ms poll made overloaded steps
// feed themselves (load/lib/rest-take.ts); 250 ms keeps the latency's resolution well inside a 2 s SLO.
const POLL_MAX_MS = envNumber('POLL_MAX_MS', 250);
const PER_CONNECTION = envNumber('REQUESTS_PER_CONNECTION', 5);
const texts = textSet('paragraph');

function scenario(): object {
  const common = { tags: { mode: MODE }, gracefulStop: '30s' };
  if (LOAD === 'streams')
    return { ...common, executor: 'constant-vus', vus: STREAMS, duration: `${STEP_S}s` };
  return {
    ...common,
    executor: 'constant-arrival-rate',
    rate: RATE,
    timeUnit: '1s',
    duration: `${STEP_S}s`,
    preAllocatedVUs: Math.min(MAX_VUS, Math.ceil(RATE * 2)),
    maxVUs: MAX_VUS,
  };
}

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: { step: scenario() },
  // The search judges the SLO in Node from these figures; the always-true thresholds only make k6
  // put them into the summary.
  thresholds:
    MODE === 'rest'
      ? { speak_take_latency: ['p(95)>=0'], speak_queue_wait: ['p(95)>=0'], speak_rest_errors: ['rate>=0'] }
      : { speak_ws_ttfc: ['p(95)>=0'], speak_ws_end_of_take: ['p(95)>=0'], speak_ws_errors: ['rate>=0'] },
};

const session = new Session(target());
let url: string | undefined;
let askForAddresses = false;

export async function setup(): Promise<WsRunSetup> {
  const data = prepareRun();
  if (MODE === 'rest') return { ...data, urls: [], warmup: warmUpRest(data, texts) };
  return { ...data, urls: workerUrls(data), warmup: await warmUp(data, [MODE as StreamMode], texts) };
}

function wsStep(data: WsRunSetup): void {
  // Arrivals take the workers in turn, as the API hands out addresses: tied to the VU instead, the
  // split followed whichever VUs k6's arrival-rate pool happened to pick. A stream keeps its worker.
  if (LOAD === 'rate' && !askForAddresses) url = data.urls[exec.scenario.iterationInTest % data.urls.length]!;
  url ??= askForAddresses
    ? websocketUrl(session, data.model)
    : data.urls[exec.vu.idInTest % data.urls.length]!;
  const mode = MODE as StreamMode;
  const tags = { model: data.model, mode };
  const count = LOAD === 'streams' ? PER_CONNECTION : 1;
  const first = exec.scenario.iterationInTest * count;
  const requests = Array.from({ length: count }, (_, i) => ({
    text: pick(texts, first + i),
    voiceId: data.voiceId,
    mode,
  }));
  runWsTakes(url, requests, {
    requestTimeoutMs: 30_000,
    onConnectFailed: (why) => {
      wsErrors.add(true, tags);
      console.warn(`capacity step: ${why}; asking for a new address`);
      url = undefined;
      askForAddresses = true;
    },
    onResult: (_request, r) => {
      wsErrors.add(!r.ok, tags);
      if (!r.ok) {
        console.warn(`capacity step take failed: ${r.error}`);
        return;
      }
      if (r.stream?.firstPlayableMs !== undefined) wsTtfc.add(r.stream.firstPlayableMs, tags);
      addStreamFigures(r, tags);
    },
  });
}

export default function (data: WsRunSetup): void {
  if (MODE === 'rest') {
    restTake(session, data.voiceId, pick(texts, exec.scenario.iterationInTest), {
      pollMs: POLL_MS,
      pollMaxMs: POLL_MAX_MS,
      timeoutMs: 60_000,
      tags: { model: data.model, mode: 'rest' },
    });
    return;
  }
  wsStep(data);
}

export function teardown(data: RunSetup): void {
  cleanupRun(data);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  return writeSummary(data, 'capacity-step', {
    step: { mode: MODE, load: LOAD, rate: RATE, streams: STREAMS, step_s: STEP_S },
  });
}
