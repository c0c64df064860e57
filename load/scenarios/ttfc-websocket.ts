/**
 * ttfc-websocket: takes streamed over a worker websocket, parts mode then chunks mode, each for
 * DURATION with VUS connections. Per request, from the moment the request frame is sent:
 * speak_ws_first_status (first status frame), speak_ws_ttfc (first PLAYABLE audio: part 0's WAV header
 * and the samples after it), speak_ws_first_frame (first audio frame), speak_ws_first_samples (first
 * frame with samples), speak_ws_first_part_end, speak_ws_ttlb (last audio byte), speak_ws_end_of_take;
 * per take the real-time factor, the minimum cumulative real-time factor (underrun when < 1) and the
 * gaps between audio frames (load/lib/stream-figures.ts).
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:PORT load/scenarios/ttfc-websocket.ts   (+ SPEAK_EMAIL/PASSWORD in the env)
 * Env: VUS (2), DURATION (10s), MODES (parts,chunks), REQUESTS_PER_CONNECTION (5), TEXTS (short),
 *      ITERATIONS (0 = run for DURATION; else that many connections per VU, DURATION as the bound),
 *      the reference stack's latency limits (held with THRESHOLDS=reference, which the CLI sets for the
 *      embedded and container stacks, or each one given explicitly): TTFC_CHUNKS_P50_MS (40),
 *      TTFC_CHUNKS_P95_MS (100), TTFC_PARTS_P95_MS (1000), END_P95_MS (5000). Always held: errors < 1 %,
 *      takes completed, playable audio in < 1 % missing. SLO_JSON: the user's SLO (load/lib/thresholds.ts).
 */
import { envNumber, envString, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import {
  addStreamFigures,
  streamSummaryThresholds,
  wsConnect,
  wsErrors,
  wsNoAudio,
  wsTakes,
  wsTtfc,
} from '../lib/metrics.ts';
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
import { planThresholds, type ReferenceLimit } from '../lib/thresholds.ts';
import { runWsTakes, type StreamMode } from '../lib/ws-takes.ts';

const VUS = envNumber('VUS', 2);
const DURATION = envString('DURATION', '10s');
const MODES = envString('MODES', 'parts,chunks').split(',') as StreamMode[];
const PER_CONNECTION = envNumber('REQUESTS_PER_CONNECTION', 5);
const ITERATIONS = envNumber('ITERATIONS', 0);
const texts = textSet('short');

// One mode after the other, so the two never compete for the same worker.
function scenarios(): Record<string, object> {
  const out: Record<string, object> = {};
  MODES.forEach((mode, i) => {
    const common = {
      exec: mode,
      vus: VUS,
      startTime: `${i * (parseDurationS(DURATION) + 2)}s`,
      tags: { mode },
    };
    out[mode] =
      ITERATIONS > 0
        ? // A fixed number of connections per VU (the k6-vs-Node cross-check), bounded by DURATION.
          { ...common, executor: 'per-vu-iterations', iterations: ITERATIONS, maxDuration: DURATION }
        : { ...common, executor: 'constant-vus', duration: DURATION, gracefulStop: '30s' };
  });
  return out;
}

function parseDurationS(d: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(d);
  if (!m) throw new Error(`DURATION=${d}: use e.g. 500ms, 10s or 2m`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : n;
}

/**
 * Time to first PLAYABLE audio on the reference: chunk 0 carries a header sized for the whole part,
 * so a part is synthesized before it is sent (one sentence takes ~20-25 ms there). These limits
 * describe our stack, not a good TTS service: against a server not ours they are not held.
 */
function referenceLimits(): ReferenceLimit[] {
  const limits: ReferenceLimit[] = [];
  for (const mode of MODES) {
    if (mode === 'chunks') {
      limits.push(
        {
          metric: 'speak_ws_ttfc{mode:chunks}',
          stat: 'med',
          op: '<=',
          knob: 'TTFC_CHUNKS_P50_MS',
          defaultValue: 40,
        },
        {
          metric: 'speak_ws_ttfc{mode:chunks}',
          stat: 'p(95)',
          op: '<',
          knob: 'TTFC_CHUNKS_P95_MS',
          defaultValue: 100,
        },
      );
    } else {
      limits.push({
        metric: `speak_ws_ttfc{mode:${mode}}`,
        stat: 'p(95)',
        op: '<',
        knob: 'TTFC_PARTS_P95_MS',
        defaultValue: 1000,
      });
    }
    limits.push({
      metric: `speak_ws_end_of_take{mode:${mode}}`,
      stat: 'p(95)',
      op: '<',
      knob: 'END_P95_MS',
      defaultValue: 5000,
    });
  }
  return limits;
}

const { thresholds, plan } = planThresholds(
  {
    errorRates: [{ metric: 'speak_ws_errors', defaultMax: 0.01 }],
    completeness: { speak_ws_takes: ['count>0'], speak_ws_no_audio: ['rate<0.01'] },
    reference: referenceLimits(),
    figures: {
      first_playable: MODES.map((mode) => `speak_ws_ttfc{mode:${mode}}`),
      end_of_take: MODES.map((mode) => `speak_ws_end_of_take{mode:${mode}}`),
    },
    exposed: streamSummaryThresholds(MODES),
  },
  __ENV,
  'ttfc-websocket',
);

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: scenarios(),
  thresholds,
};

const session = new Session(target());
let url: string | undefined;
/** Set once an address from setup() failed: ask the API for fresh ones from then on. */
let askForAddresses = false;

function takes(data: WsRunSetup, mode: StreamMode): void {
  url ??= askForAddresses ? websocketUrl(session, data.model) : data.urls[__VU % data.urls.length]!;
  const tags = { model: data.model, mode };
  const requests = Array.from({ length: PER_CONNECTION }, (_, i) => ({
    text: pick(texts, __ITER * PER_CONNECTION + i + __VU),
    voiceId: data.voiceId,
    mode,
  }));
  runWsTakes(url, requests, {
    requestTimeoutMs: envNumber('REQUEST_TIMEOUT_MS', 30_000),
    onConnected: (ms) => wsConnect.add(ms, tags),
    onConnectFailed: (why) => {
      wsErrors.add(true, tags);
      console.warn(`${mode}: ${why}; asking for a new address`);
      url = undefined;
      askForAddresses = true;
    },
    onResult: (_request, r) => {
      wsErrors.add(!r.ok, tags);
      if (!r.ok) {
        console.warn(`${mode} take failed: ${r.error}`);
        return;
      }
      wsTakes.add(1, tags);
      const playable = r.stream?.firstPlayableMs;
      wsNoAudio.add(playable === undefined, tags);
      if (playable === undefined)
        console.warn(`${mode} take: no playable audio (part 0 lacks a header or chunk 1)`);
      else wsTtfc.add(playable, tags);
      addStreamFigures(r, tags);
    },
  });
}

export async function setup(): Promise<WsRunSetup> {
  const data = prepareRun();
  return { ...data, urls: workerUrls(data), warmup: await warmUp(data, MODES, texts) };
}

export function parts(data: WsRunSetup): void {
  takes(data, 'parts');
}

export function chunks(data: WsRunSetup): void {
  takes(data, 'chunks');
}

export function teardown(data: RunSetup): void {
  cleanupRun(data);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  return writeSummary(data, 'ttfc-websocket', {
    vus: VUS,
    duration: DURATION,
    modes: MODES,
    thresholds: plan,
  });
}
