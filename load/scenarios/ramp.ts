/**
 * ramp: websocket takes (chunks mode, one per connection) at a stepped arrival rate, STEPS takes per
 * second, each held for STEP_S seconds. Every time-to-first-playable-audio sample is tagged with the step's
 * rate; the summary reports p95 per step and the first rate whose p95 crosses LIMIT_MS
 * (`speakcheck.ramp.crossing_rate`, null when no step crossed).
 * The run fails when p95 already crosses the limit at MIN_SUSTAINED_RATE (default: the first step).
 *
 * Env: STEPS (1,2,4,6), STEP_S (5), LIMIT_MS (50), MIN_SUSTAINED_RATE (first step), MAX_VUS (30), TEXTS (short).
 */
import exec from 'k6/execution';
import { envList, envNumber, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import { addStreamFigures, rampTtfc, streamSummaryThresholds, wsErrors } from '../lib/metrics.ts';
import { Session } from '../lib/session.ts';
import { cleanupRun, prepareRun, type RunSetup, warmUp, websocketUrl } from '../lib/speak.ts';
import { type SummaryData, writeSummary } from '../lib/summary.ts';
import { runWsTakes } from '../lib/ws-takes.ts';

const STEPS = envList('STEPS', [1, 2, 4, 6]);
const STEP_S = envNumber('STEP_S', 5);
const LIMIT_MS = envNumber('LIMIT_MS', 50);
const MIN_SUSTAINED_RATE = envNumber('MIN_SUSTAINED_RATE', STEPS[0]!);
const texts = textSet('short');

function stepThresholds(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  // k6 puts a tagged sub-metric into the summary only when a threshold names it.
  for (const rate of STEPS) out[`speak_ramp_ttfc{rate:${rate}}`] = ['p(95)>=0'];
  out[`speak_ramp_ttfc{rate:${MIN_SUSTAINED_RATE}}`] = [`p(95)<${LIMIT_MS}`];
  return out;
}

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: STEPS[0],
      timeUnit: '1s',
      preAllocatedVUs: Math.min(envNumber('MAX_VUS', 30), Math.max(...STEPS) * 2),
      maxVUs: envNumber('MAX_VUS', 30),
      // Each step: one second to reach the rate, then hold it.
      stages: STEPS.flatMap((rate) => [
        { target: rate, duration: '1s' },
        { target: rate, duration: `${STEP_S - 1}s` },
      ]),
      gracefulStop: '30s',
      tags: { mode: 'chunks' },
    },
  },
  thresholds: { ...stepThresholds(), ...streamSummaryThresholds(['chunks']), speak_ws_errors: ['rate<0.05'] },
};

const session = new Session(target());
let url: string | undefined;

/** The step in effect now, from the time since the scenario started. */
function currentRate(): number {
  const elapsedS = (Date.now() - exec.scenario.startTime) / 1000;
  return STEPS[Math.min(STEPS.length - 1, Math.floor(elapsedS / STEP_S))]!;
}

export function setup(): RunSetup {
  const data = prepareRun();
  warmUp(data);
  return data;
}

export default function (data: RunSetup): void {
  url ??= websocketUrl(session, data.model);
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
      },
      onResult: (_request, r) => {
        wsErrors.add(!r.ok, tags);
        if (!r.ok) {
          console.warn(`ramp take failed at ${rate}/s: ${r.error}`);
          return;
        }
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
  const steps = STEPS.map((rate) => {
    const values = data.metrics[`speak_ramp_ttfc{rate:${rate}}`]?.values;
    return { rate, p95_ms: values?.['p(95)'] ?? null, samples: values?.count ?? 0 };
  });
  const crossing = steps.find((s) => s.p95_ms !== null && s.p95_ms > LIMIT_MS);
  return writeSummary(data, 'ramp', {
    ramp: { limit_ms: LIMIT_MS, step_s: STEP_S, steps, crossing_rate: crossing ? crossing.rate : null },
  });
}
