/**
 * Every custom metric of the load scenarios, defined once. Time Trends are in milliseconds (`true`
 * marks them as time so k6 prints units); the real-time factors are plain ratios. Samples carry the
 * tags `model` and `mode` (parts | chunks | wav | rest) so thresholds and reports can split by them.
 */
import { Counter, Rate, Trend } from 'k6/metrics';
import type { StreamFigures } from './stream-figures.ts';

// Websocket streaming (ttfc-websocket, ramp): measured from the moment the request frame is sent.
// What each figure means exactly: load/lib/stream-figures.ts.
export const wsFirstStatus = new Trend('speak_ws_first_status', true);
export const wsTtfc = new Trend('speak_ws_ttfc', true); // time to first PLAYABLE audio (part 0's header + its first samples)
export const wsFirstFrame = new Trend('speak_ws_first_frame', true); // first frame carrying audio bytes
export const wsFirstSamples = new Trend('speak_ws_first_samples', true); // first frame holding samples
export const wsFirstPartEnd = new Trend('speak_ws_first_part_end', true); // part 0 complete on the wire
export const wsLastByte = new Trend('speak_ws_ttlb', true); // last frame carrying audio bytes
export const wsEndOfTake = new Trend('speak_ws_end_of_take', true);
export const wsRtf = new Trend('speak_ws_rtf'); // audio seconds / wall seconds, request → last byte
export const wsMinCumRtf = new Trend('speak_ws_min_cum_rtf'); // lowest buffered-audio / played-time ratio
export const wsUnderrun = new Rate('speak_ws_underrun'); // takes whose minimum cumulative RTF is below 1
export const wsChunkGap = new Trend('speak_ws_chunk_gap', true); // between consecutive audio frames
export const wsConnect = new Trend('speak_ws_connect', true);
export const wsTakes = new Counter('speak_ws_takes');
export const wsErrors = new Rate('speak_ws_errors');
// Takes that ended without error but gave no playable audio (part 0 lacked its header or chunk 1).
export const wsNoAudio = new Rate('speak_ws_no_audio');

// Streaming wav over REST (ttfb-wav).
export const wavGenerate = new Trend('speak_wav_generate', true); // POST takes/generate round trip
export const wavRedirect = new Trend('speak_wav_redirect', true); // GET takes/{id}/wav → 307
export const wavTtfb = new Trend('speak_wav_ttfb', true); // POST sent → first byte of the wav body
export const wavComplete = new Trend('speak_wav_complete', true); // POST sent → last byte of the wav
export const wavDownload = new Trend('speak_wav_download', true); // signed-URL GET: request → last byte
export const wavRtf = new Trend('speak_wav_rtf'); // wav audio seconds / signed-URL download seconds
export const wavErrors = new Rate('speak_wav_errors');

// REST throughput (throughput-rest).
export const takesAccepted = new Counter('speak_takes_accepted');
export const takesCompleted = new Counter('speak_takes_completed');
export const audioSeconds = new Counter('speak_audio_seconds'); // its rate = audio seconds per wall second
export const queueWait = new Trend('speak_queue_wait', true); // accepted → first status past `waiting`
export const takeLatency = new Trend('speak_take_latency', true); // accepted → ready
export const restErrors = new Rate('speak_rest_errors');

// Warm-up (setup(), tag phase:warmup): recorded so the warm-up can be seen, read by no figure or threshold.
export const warmupTtfc = new Trend('speak_warmup_ttfc', true);
export const warmupTakeLatency = new Trend('speak_warmup_take_latency', true);

// Ramp: time to first playable audio per arrival-rate step (tag `rate`).
export const rampTtfc = new Trend('speak_ramp_ttfc', true);

/** Adds one successful websocket take's stream figures (all but the TTFC, which ttfc/ramp name differently). */
export function addStreamFigures(
  r: { firstStatusMs?: number; firstSamplesMs?: number; endMs?: number; stream?: StreamFigures },
  tags: Record<string, string>,
): void {
  const s = r.stream;
  if (r.firstStatusMs !== undefined) wsFirstStatus.add(r.firstStatusMs, tags);
  if (r.firstSamplesMs !== undefined) wsFirstSamples.add(r.firstSamplesMs, tags);
  if (r.endMs !== undefined) wsEndOfTake.add(r.endMs, tags);
  if (!s) return;
  if (s.firstFrameMs !== undefined) wsFirstFrame.add(s.firstFrameMs, tags);
  if (s.firstPartEndMs !== undefined) wsFirstPartEnd.add(s.firstPartEndMs, tags);
  if (s.lastByteMs !== undefined) wsLastByte.add(s.lastByteMs, tags);
  if (s.realTimeFactor !== undefined) wsRtf.add(s.realTimeFactor, tags);
  if (s.minCumulativeRtf !== undefined) wsMinCumRtf.add(s.minCumulativeRtf, tags);
  // A take with nothing after its playable moment cannot stall.
  wsUnderrun.add(s.minCumulativeRtf !== undefined && s.minCumulativeRtf < 1, tags);
  for (const gap of s.gapsMs) wsChunkGap.add(gap, tags);
}

/** Per-mode sub-metrics reach the summary only when a threshold names them: these always-true ones do. */
export function streamSummaryThresholds(modes: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const trends = [
    'speak_ws_first_status',
    'speak_ws_first_frame',
    'speak_ws_first_samples',
    'speak_ws_first_part_end',
    'speak_ws_ttlb',
    'speak_ws_rtf',
    'speak_ws_min_cum_rtf',
    'speak_ws_chunk_gap',
  ];
  for (const mode of modes) {
    for (const name of trends) out[`${name}{mode:${mode}}`] = ['p(95)>=0'];
    out[`speak_ws_underrun{mode:${mode}}`] = ['rate>=0'];
  }
  return out;
}
