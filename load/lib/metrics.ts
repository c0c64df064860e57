/**
 * Every custom metric of the load scenarios, defined once. Trends are in milliseconds (`true` marks
 * them as time so k6 prints units). Samples carry the tags `model` and `mode` (parts | chunks |
 * rest) so thresholds and reports can split by them.
 */
import { Counter, Rate, Trend } from 'k6/metrics';

// Websocket streaming (ttfc-websocket, ramp): measured from the moment the request frame is sent.
export const wsFirstStatus = new Trend('speak_ws_first_status', true);
export const wsFirstAudio = new Trend('speak_ws_ttfc', true); // time to first chunk (first audio frame)
export const wsFirstSamples = new Trend('speak_ws_first_samples', true); // first frame holding samples
export const wsEndOfTake = new Trend('speak_ws_end_of_take', true);
export const wsConnect = new Trend('speak_ws_connect', true);
export const wsTakes = new Counter('speak_ws_takes');
export const wsErrors = new Rate('speak_ws_errors');

// Streaming wav over REST (ttfb-wav).
export const wavGenerate = new Trend('speak_wav_generate', true); // POST takes/generate round trip
export const wavRedirect = new Trend('speak_wav_redirect', true); // GET takes/{id}/wav → 307
export const wavTtfb = new Trend('speak_wav_ttfb', true); // POST sent → first byte of the wav body
export const wavComplete = new Trend('speak_wav_complete', true); // POST sent → last byte of the wav
export const wavErrors = new Rate('speak_wav_errors');

// REST throughput (throughput-rest).
export const takesAccepted = new Counter('speak_takes_accepted');
export const takesCompleted = new Counter('speak_takes_completed');
export const audioSeconds = new Counter('speak_audio_seconds'); // its rate = audio seconds per wall second
export const queueWait = new Trend('speak_queue_wait', true); // accepted → first status past `waiting`
export const takeLatency = new Trend('speak_take_latency', true); // accepted → ready
export const restErrors = new Rate('speak_rest_errors');

// Ramp: time to first chunk per arrival-rate step (tag `rate`).
export const rampTtfc = new Trend('speak_ramp_ttfc', true);
