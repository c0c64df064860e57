/**
 * ttfb-wav: POST takes/generate → GET takes/{id}/wav (307, signed Location) → GET Location without
 * the Authorization header, reading the wav while it is generated. speak_wav_ttfb runs from the
 * moment the POST is sent to the first byte of the wav body; speak_wav_complete to its last byte;
 * speak_wav_download is the signed-URL GET alone (request → last byte) and speak_wav_rtf the wav's
 * audio seconds per second of that download (the stream's real-time factor: below 1 a player stalls).
 *
 * Env: VUS (2), DURATION (10s), TEXTS (two_parts); the reference stack's latency limits (held with
 *      THRESHOLDS=reference, or each one given explicitly): WAV_TTFB_P95_MS (1000),
 *      WAV_COMPLETE_P95_MS (10000). Always held: errors < 1 %, checks (the wav arrived as RIFF) > 99 %.
 *      SLO_JSON: the user's SLO (load/lib/thresholds.ts).
 */
import { check } from 'k6';
import http from 'k6/http';
import { envNumber, envString, SUMMARY_TREND_STATS, target } from '../lib/config.ts';
import { pick, textSet } from '../lib/data.ts';
import { readWavHeader } from '../lib/framing.ts';
import {
  wavComplete,
  wavDownload,
  wavErrors,
  wavGenerate,
  wavRedirect,
  wavRtf,
  wavTtfb,
} from '../lib/metrics.ts';
import { Session } from '../lib/session.ts';
import { cleanupRun, prepareRun, type RunSetup, warmUpRest } from '../lib/speak.ts';
import { type SummaryData, writeSummary } from '../lib/summary.ts';
import { planThresholds } from '../lib/thresholds.ts';

const VUS = envNumber('VUS', 2);
const DURATION = envString('DURATION', '10s');
const texts = textSet('two_parts');

const { thresholds, plan } = planThresholds(
  {
    errorRates: [{ metric: 'speak_wav_errors', defaultMax: 0.01 }],
    // Audio received: every take's signed wav came back 200 with a RIFF header.
    completeness: { checks: ['rate>0.99'] },
    reference: [
      { metric: 'speak_wav_ttfb', stat: 'p(95)', op: '<', knob: 'WAV_TTFB_P95_MS', defaultValue: 1000 },
      {
        metric: 'speak_wav_complete',
        stat: 'p(95)',
        op: '<',
        knob: 'WAV_COMPLETE_P95_MS',
        defaultValue: 10_000,
      },
    ],
    figures: { wav_first_byte: ['speak_wav_ttfb'], wav_complete: ['speak_wav_complete'] },
  },
  __ENV,
  'ttfb-wav',
);

export const options = {
  setupTimeout: '150s',
  teardownTimeout: '30s',
  summaryTrendStats: SUMMARY_TREND_STATS,
  scenarios: {
    wav: {
      executor: 'constant-vus',
      vus: VUS,
      duration: DURATION,
      gracefulStop: '30s',
      tags: { mode: 'wav' },
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
  const tags = { model: data.model, mode: 'wav' };
  const sentAt = Date.now();
  const created = session.request(
    'POST',
    '/v1/speak/takes/generate',
    JSON.stringify({ text: pick(texts, __ITER + __VU), voice_id: data.voiceId }),
    { tags: { name: 'takes/generate' } },
  );
  if (!check(created, { 'generate: 2xx': (r) => r.status >= 200 && r.status < 300 })) {
    wavErrors.add(true, tags);
    return;
  }
  wavGenerate.add(created.timings.duration, tags);
  const takeId = (created.json() as { take_id: string }).take_id;

  const redirect = session.request('GET', `/v1/speak/takes/${takeId}/wav`, null, {
    tags: { name: 'takes/{id}/wav' },
  });
  const location = redirect.headers.Location ?? redirect.headers.location;
  if (
    !check(redirect, { 'wav: 307 with Location': (r) => r.status === 307 && typeof location === 'string' })
  ) {
    wavErrors.add(true, tags);
    return;
  }
  wavRedirect.add(redirect.timings.duration, tags);

  // The signed URL authorises itself: no Authorization header (wire-facts.md, Signed audio URLs).
  const beforeAudio = Date.now();
  const audio = http.get(location!, {
    responseType: 'binary',
    timeout: '60s',
    tags: { name: 'signed wav' },
  });
  const body = audio.body as ArrayBuffer | null;
  const riff =
    body !== null && body.byteLength >= 44 && String.fromCharCode(...new Uint8Array(body, 0, 4)) === 'RIFF';
  if (!check(audio, { 'signed wav: 200 RIFF': (r) => r.status === 200 && riff })) {
    wavErrors.add(true, tags);
    return;
  }
  wavErrors.add(false, tags);
  const t = audio.timings;
  const firstByte =
    beforeAudio - sentAt + t.blocked + t.connecting + t.tls_handshaking + t.sending + t.waiting;
  wavTtfb.add(firstByte, tags);
  wavComplete.add(beforeAudio - sentAt + t.duration + t.blocked + t.connecting + t.tls_handshaking, tags);
  wavDownload.add(t.duration, tags);
  const wav = readWavHeader(new Uint8Array(body!));
  if (wav.byteRate && t.duration > 0) wavRtf.add(wav.sampleBytes / wav.byteRate / (t.duration / 1000), tags);
}

export function teardown(data: RunSetup): void {
  cleanupRun(data);
}

export function handleSummary(data: SummaryData): Record<string, string> {
  return writeSummary(data, 'ttfb-wav', { vus: VUS, duration: DURATION, thresholds: plan });
}
