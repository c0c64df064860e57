/**
 * throughput-rest: takes offered over REST at a constant arrival rate (RATE per second for DURATION).
 * Each iteration POSTs takes/generate and polls the take until it is done (POLL_MS), recording:
 * speak_takes_accepted / speak_takes_completed (their `rate` = takes per second), speak_audio_seconds
 * (its rate = audio seconds per wall second; info.duration / info.audio_rate), speak_queue_wait
 * (accepted → first status past `waiting`, to POLL_MS resolution), speak_take_latency, speak_rest_errors.
 * k6's dropped_iterations counts offered takes the VU pool could not start (the server fell behind).
 *
 * Env: RATE (4), DURATION (10s), PREALLOCATED_VUS (8), MAX_VUS (40), POLL_MS (100), TEXTS (paragraph),
 *      TAKE_TIMEOUT_MS (60000), MIN_AUDIO_S_PER_S (0: off), ERROR_RATE_MAX (0.01). No latency limit
 *      by default on any server; SLO_JSON: the user's SLO (take_latency, queue_wait; load/lib/thresholds.ts).
 */
import { envNumber, envString, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import { restTake } from '../lib/rest-take.ts';
import { Session } from '../lib/session.ts';
import { cleanupRun, prepareRun, type RunSetup, warmUpRest } from '../lib/speak.ts';
import { type SummaryData, writeSummary } from '../lib/summary.ts';
import { planThresholds } from '../lib/thresholds.ts';

const RATE = envNumber('RATE', 4);
const DURATION = envString('DURATION', '10s');
const POLL_MS = envNumber('POLL_MS', 100);
const TAKE_TIMEOUT_MS = envNumber('TAKE_TIMEOUT_MS', 60_000);
const texts = textSet('paragraph');

const MIN_AUDIO_S_PER_S = envNumber('MIN_AUDIO_S_PER_S', 0);
const { thresholds, plan } = planThresholds(
  {
    errorRates: [{ metric: 'speak_rest_errors', defaultMax: 0.01, knob: 'ERROR_RATE_MAX' }],
    // Takes completed, and audio received (the completed takes' audio seconds).
    completeness: {
      speak_takes_completed: ['count>0'],
      speak_audio_seconds: ['count>0', ...(MIN_AUDIO_S_PER_S > 0 ? [`rate>=${MIN_AUDIO_S_PER_S}`] : [])],
    },
    reference: [],
    figures: { take_latency: ['speak_take_latency'], queue_wait: ['speak_queue_wait'] },
  },
  __ENV,
  'throughput-rest',
);

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    rest: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: envNumber('PREALLOCATED_VUS', 8),
      maxVUs: envNumber('MAX_VUS', 40),
      gracefulStop: `${Math.ceil(TAKE_TIMEOUT_MS / 1000) + 5}s`,
      tags: { mode: 'rest' },
    },
  },
  thresholds,
};

const session = new Session(target());

export function setup(): RunSetup {
  const data = prepareRun();
  return { ...data, warmup: warmUpRest(data, texts) };
}

export default function (data: RunSetup): void {
  restTake(session, data.voiceId, pick(texts, __ITER + __VU), {
    pollMs: POLL_MS,
    timeoutMs: TAKE_TIMEOUT_MS,
    tags: { model: data.model, mode: 'rest' },
  });
}

export function teardown(data: RunSetup): void {
  cleanupRun(data);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  return writeSummary(data, 'throughput-rest', { rate: RATE, duration: DURATION, thresholds: plan });
}
