/**
 * ramp: websocket takes (chunks mode, one per connection) at a stepped arrival rate, STEPS takes per
 * second, each held for STEP_S seconds, after a warm-up phase in setup() (load/lib/speak.ts: its
 * samples are kept out of every figure and threshold). Every time-to-first-playable-audio sample and
 * every error is tagged with the step's rate; the summary reports p50/p95 and the error rate per step
 * and the first rate whose p95 crosses LIMIT_MS (`speakcheck.ramp.crossing_rate`, null when none did).
 *
 * The run is judged at SUSTAINED_RATE: errors < 1 % and playable audio there, against any server;
 * p95 < LIMIT_MS there only with THRESHOLDS=reference (the rate the reference stack is meant to hold
 * even on a shared 2-core machine; the CLI sets it for the embedded and container stacks), with
 * LIMIT_MS given explicitly, or as the user's SLO (SLO_JSON, load/lib/thresholds.ts). The steps
 * above it look for the bend and are reported, not judged. VUs use worker addresses fetched in setup(), so no
 * login (the API's password hashing) falls inside the measured steps.
 *
 * Env: STEPS (8,16,32,64,96), STEP_S (5), LIMIT_MS (300), SUSTAINED_RATE (16, or the highest step below; MIN_SUSTAINED_RATE is
 *      its old name), MAX_VUS (100), TEXTS (short), WARMUP_TAKES (5), WARMUP_CONNECTIONS (2).
 */
import exec from 'k6/execution';
import { envList, envNumber, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import { addStreamFigures, rampTtfc, streamSummaryThresholds, wsErrors, wsNoAudio } from '../lib/metrics.ts';
import { Session } from '../lib/session.ts';
import {
  cleanupRun,
  prepareRun,
  type RunSetup,
  type WsRunSetup,
  warmUp,
  websocketUrl,
  workerUrls,
} from '../lib/speak.ts';
import { type SummaryData, writeSummary } from '../lib/summary.ts';
import { planThresholds } from '../lib/thresholds.ts';
import { runWsTakes } from '../lib/ws-takes.ts';

const STEPS = envList('STEPS', [8, 16, 32, 64, 96]);
const STEP_S = envNumber('STEP_S', 5);
const LIMIT_MS = envNumber('LIMIT_MS', 300);
/** 16 takes/s, or the highest step below it when STEPS stop lower (the first step when all are above). */
function defaultSustainedRate(steps: number[]): number {
  const below = steps.filter((rate) => rate <= 16);
  return below.length ? Math.max(...below) : steps[0]!;
}
const SUSTAINED_RATE = envNumber(
  'SUSTAINED_RATE',
  envNumber('MIN_SUSTAINED_RATE', defaultSustainedRate(STEPS)),
);
const MAX_VUS = envNumber('MAX_VUS', 100);
const texts = textSet('short');

if (!STEPS.includes(SUSTAINED_RATE)) {
  throw new Error(`SUSTAINED_RATE=${SUSTAINED_RATE} is not one of STEPS=${STEPS.join(',')}`);
}

function stepThresholds(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // k6 puts a tagged sub-metric into the summary only when a threshold names it.
  for (const rate of STEPS) {
    out[`speak_ramp_ttfc{rate:${rate}}`] = ['p(95)>=0'];
    out[`speak_ws_errors{rate:${rate}}`] = ['rate>=0'];
  }
  return { ...out, ...streamSummaryThresholds(['chunks']) };
}

const { thresholds, plan } = planThresholds(
  {
    errorRates: [{ metric: `speak_ws_errors{rate:${SUSTAINED_RATE}}`, defaultMax: 0.01 }],
    completeness: { [`speak_ws_no_audio{rate:${SUSTAINED_RATE}}`]: ['rate<0.01'] },
    reference: [
      {
        metric: `speak_ramp_ttfc{rate:${SUSTAINED_RATE}}`,
        stat: 'p(95)',
        op: '<',
        knob: 'LIMIT_MS',
        defaultValue: 300,
      },
    ],
    figures: { first_playable: [`speak_ramp_ttfc{rate:${SUSTAINED_RATE}}`] },
    exposed: stepThresholds(),
  },
  __ENV,
  'ramp',
);

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: STEPS[0],
      timeUnit: '1s',
      preAllocatedVUs: Math.min(MAX_VUS, Math.max(...STEPS)),
      maxVUs: MAX_VUS,
      // Each step: one second to reach the rate, then hold it.
      stages: STEPS.flatMap((rate) => [
        { target: rate, duration: '1s' },
        { target: rate, duration: `${STEP_S - 1}s` },
      ]),
      gracefulStop: '30s',
      tags: { mode: 'chunks' },
    },
  },
  thresholds,
};

const session = new Session(target());
let url: string | undefined;
/** Set once an address from setup() failed: ask the API for fresh ones from then on. */
let askForAddresses = false;

/** The step in effect now, from the time since the scenario started. */
function currentRate(): number {
  const elapsedS = (Date.now() - exec.scenario.startTime) / 1000;
  return STEPS[Math.min(STEPS.length - 1, Math.floor(elapsedS / STEP_S))]!;
}

export async function setup(): Promise<WsRunSetup> {
  const data = prepareRun();
  const urls = workerUrls(data);
  return { ...data, urls, warmup: await warmUp(data, ['chunks'], texts) };
}

export default function (data: WsRunSetup): void {
  url ??= askForAddresses
    ? websocketUrl(session, data.model)
    : data.urls[exec.vu.idInTest % data.urls.length]!;
  const rate = currentRate();
  const tags = { model: data.model, mode: 'chunks', rate: String(rate) };
  runWsTakes(
    url,
    [{ text: pick(texts, exec.scenario.iterationInTest), voiceId: data.voiceId, mode: 'chunks' }],
    {
      requestTimeoutMs: 30_000,
      onConnectFailed: (why) => {
        wsErrors.add(true, tags);
        console.warn(`ramp at ${rate}/s: ${why}; asking for a new address`);
        url = undefined;
        askForAddresses = true;
      },
      onResult: (_request, r) => {
        wsErrors.add(!r.ok, tags);
        if (!r.ok) {
          console.warn(`ramp take failed at ${rate}/s: ${r.error}`);
          return;
        }
        wsNoAudio.add(r.stream?.firstPlayableMs === undefined, tags);
        if (r.stream?.firstPlayableMs !== undefined) rampTtfc.add(r.stream.firstPlayableMs, tags);
        addStreamFigures(r, tags);
      },
    },
  );
}

export function teardown(data: RunSetup): void {
  cleanupRun(data);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  const setupData = data.setup_data as RunSetup | undefined;
  // The executor starts right after setup() returns, i.e. when the warm-up ended.
  const startMs = setupData?.warmup?.endedAtMs;
  const steps = STEPS.map((rate, i) => {
    const values = data.metrics[`speak_ramp_ttfc{rate:${rate}}`]?.values;
    const errors = data.metrics[`speak_ws_errors{rate:${rate}}`]?.values;
    return {
      rate,
      p50_ms: values?.med ?? null,
      p95_ms: values?.['p(95)'] ?? null,
      p99_ms: values?.['p(99)'] ?? null,
      samples: values?.count ?? 0,
      error_rate: errors?.rate ?? null,
      // Takes that ended in the step (successes and failures) per second: the achieved rate.
      achieved_rate: errors ? ((errors.passes ?? 0) + (errors.fails ?? 0)) / STEP_S : null,
      ...(startMs === undefined
        ? {}
        : { start_ms: startMs + i * STEP_S * 1000, end_ms: startMs + (i + 1) * STEP_S * 1000 }),
    };
  });
  const crossing = steps.find((s) => s.p95_ms !== null && s.p95_ms > LIMIT_MS);
  return writeSummary(data, 'ramp', {
    ramp: {
      limit_ms: LIMIT_MS,
      sustained_rate: SUSTAINED_RATE,
      step_s: STEP_S,
      steps,
      crossing_rate: crossing ? crossing.rate : null,
    },
    thresholds: plan,
  });
}
