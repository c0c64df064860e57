/**
 * The few Speak v1 calls the scenarios share: choose the model, create a voice for the run (and
 * delete it at the end) or use the one VOICE_ID names, ask for a websocket address.
 *
 * Why a run may name its voice: what a take costs the server can depend on the voice (the reference's
 * espeak variants once differed by 2×; a hosted TTS's voices may too), so runs meant to be compared
 * (the steps of one capacity search, a baseline and a release) should speak with the same one.
 */
import { sleep } from 'k6';
// Type-only: erased when k6 strips the types, so the scripts load nothing from schemas/ at run time.
import type { Model, Voice } from '../../schemas/types.ts';
import { envNumber, envString, type Target, target } from './config.ts';
import { voiceSpec } from './data.ts';
import { warmupTakeLatency, warmupTtfc } from './metrics.ts';
import { Session } from './session.ts';
import { runWsTakes, type StreamMode } from './ws-takes.ts';

export interface RunSetup {
  model: string;
  voiceId: string;
  /** made: this run made the voice, and deletes it at its end unless KEEP_VOICE is set; given: VOICE_ID. */
  voiceSource: 'made' | 'given';
  /** Set by scenarios that warm up in setup(): reported in the summary (setup_data). */
  warmup?: WarmUpReport;
}

/** What the warm-up phase did: its takes are kept out of every figure and threshold. */
export interface WarmUpReport {
  kind: 'websocket' | 'rest';
  /** Takes per mode per connection (REST: per worker). */
  takesPerConnection: number;
  connections: number;
  modes: string[];
  takes: number;
  failed: number;
  /** Wall time of the whole warm-up phase. */
  ms: number;
  /** Date.now() when it ended: the measured phase starts right after setup() returns. */
  endedAtMs: number;
}

const VOICE_READY_TIMEOUT_S = 120;

/** setup(): the model under test and one voice made for this run, ready to speak. */
export function prepareRun(t: Target = target()): RunSetup {
  const session = new Session(t);
  const models = session.getJson<Model[]>('/v1/speak/models', 'models');
  const model = t.model ?? models[0]?.name;
  if (!model) throw new Error('the server lists no models');
  if (!models.some((m) => m.name === model)) {
    throw new Error(`model ${model} is not listed (have: ${models.map((m) => m.name).join(', ')})`);
  }
  const given = envString('VOICE_ID', '');
  if (given) return { model, voiceId: readyVoice(session, given), voiceSource: 'given' };
  const res = session.request(
    'POST',
    '/v1/speak/voices/generate',
    JSON.stringify({ name: `${voiceSpec.name}-${Date.now()}`, gender: voiceSpec.gender, model }),
    { tags: { name: 'voices/generate' } },
  );
  if (res.status < 200 || res.status >= 300)
    throw new Error(`voice generation: HTTP ${res.status} ${res.body}`);
  const voice = res.json() as unknown as Voice;
  const voiceId = readyVoice(session, voice.voice_id, voice.status);
  return { model, voiceId, voiceSource: 'made' };
}

/** Waits until the voice is ready (it may still be generating); returns its id. */
function readyVoice(session: Session, voiceId: string, known?: string): string {
  const deadline = Date.now() + VOICE_READY_TIMEOUT_S * 1000;
  let status = known ?? session.getJson<Voice>(`/v1/speak/voices/${voiceId}`, 'voices/{id}').status;
  while (status !== 'ready') {
    if (status === 'error' || status === 'timeout') throw new Error(`voice ${voiceId} ended in ${status}`);
    if (Date.now() > deadline) throw new Error(`voice ${voiceId} not ready after ${VOICE_READY_TIMEOUT_S}s`);
    sleep(0.2);
    status = session.getJson<Voice>(`/v1/speak/voices/${voiceId}`, 'voices/{id}').status;
  }
  return voiceId;
}

/**
 * teardown(): delete the voice this run made (best effort: a server without DELETE keeps it), unless
 * KEEP_VOICE is set (`load capacity` makes one voice in its first step for all the others).
 */
export function cleanupRun(setup: RunSetup, t: Target = target()): void {
  if (setup.voiceSource !== 'made' || envString('KEEP_VOICE', '') !== '') return;
  new Session(t).request('DELETE', `/v1/speak/voices/${setup.voiceId}`, null, {
    tags: { name: 'voices/{id}' },
  });
}

/** setup() data of the websocket scenarios: worker addresses fetched once, so no VU logs in while measuring. */
export interface WsRunSetup extends RunSetup {
  urls: string[];
}

/**
 * WARMUP_CONNECTIONS (2) worker addresses, fetched in setup(): the API hands them out in turn, so
 * they spread over the workers. A VU that starts measuring with one of them skips the login (the
 * API's password hashing is CPU work that would otherwise fall inside the first measured seconds).
 */
export function workerUrls(setup: RunSetup, t: Target = target()): string[] {
  const session = new Session(t);
  const count = Math.max(1, envNumber('WARMUP_CONNECTIONS', 2));
  return Array.from({ length: count }, () => websocketUrl(session, setup.model));
}

/** A worker websocket address for the model (valid one hour: a VU may reuse it). */
export function websocketUrl(session: Session, model: string): string {
  const body = session.getJson<{ websocket_url: string }>(
    `/v1/speak/websocket?model=${encodeURIComponent(model)}`,
    'websocket',
  );
  if (typeof body.websocket_url !== 'string') throw new Error('GET /v1/speak/websocket: no websocket_url');
  return body.websocket_url;
}

/**
 * Warm-up before measuring: WARMUP_TAKES (5) takes per mode over each of WARMUP_CONNECTIONS (2, the
 * embedded stack's workers; the API hands out worker addresses in turn) connections at once, with
 * the scenario's own texts, so the first measured samples carry neither a cold worker (synthesizer
 * load, V8 optimizing espeak only after enough audio) nor k6's first connections. Its samples go to
 * `speak_warmup_ttfc` tagged `phase:warmup`, a metric no figure or threshold reads; the summary
 * reports how long it took. Resolves when every warm-up connection has closed.
 */
export async function warmUp(
  setup: RunSetup,
  modes: StreamMode[] = ['chunks'],
  texts: readonly string[] = ['Warming up.'],
  t: Target = target(),
): Promise<WarmUpReport> {
  const takesPerConnection = envNumber('WARMUP_TAKES', 5);
  const connections = envNumber('WARMUP_CONNECTIONS', 2);
  const startedAt = Date.now();
  const report: WarmUpReport = {
    kind: 'websocket',
    takesPerConnection,
    connections,
    modes,
    takes: 0,
    failed: 0,
    ms: 0,
    endedAtMs: startedAt,
  };
  if (takesPerConnection <= 0 || connections <= 0) return report;
  const session = new Session(t);
  const urls = Array.from({ length: connections }, () => websocketUrl(session, setup.model));
  await Promise.all(
    urls.map(
      (url, c) =>
        new Promise<void>((resolve) => {
          const requests = modes.flatMap((mode) =>
            Array.from({ length: takesPerConnection }, (_, i) => ({
              text: texts[(c + i) % texts.length]!,
              voiceId: setup.voiceId,
              mode,
            })),
          );
          runWsTakes(url, requests, {
            requestTimeoutMs: 60_000,
            onClose: resolve,
            onConnectFailed: (why) => {
              report.failed++;
              console.warn(`warm-up connection failed: ${why}`);
            },
            onResult: (request, result) => {
              report.takes++;
              if (!result.ok) {
                report.failed++;
                console.warn(`warm-up take failed: ${result.error}`);
              } else if (result.stream?.firstPlayableMs !== undefined) {
                warmupTtfc.add(result.stream.firstPlayableMs, { phase: 'warmup', mode: request.mode });
              }
            },
          });
        }),
    ),
  );
  report.endedAtMs = Date.now();
  report.ms = report.endedAtMs - startedAt;
  return report;
}

/**
 * The REST scenarios' warm-up: WARMUP_TAKES (5) takes per worker (WARMUP_CONNECTIONS, 2) posted at
 * once and polled until done, so the measured phase starts on warm workers. Their latency goes to
 * `speak_warmup_take_latency` (tag `phase:warmup`), read by no figure or threshold.
 */
export function warmUpRest(setup: RunSetup, texts: readonly string[], t: Target = target()): WarmUpReport {
  const takesPerConnection = envNumber('WARMUP_TAKES', 5);
  const connections = envNumber('WARMUP_CONNECTIONS', 2);
  const startedAt = Date.now();
  const report: WarmUpReport = {
    kind: 'rest',
    takesPerConnection,
    connections,
    modes: ['rest'],
    takes: 0,
    failed: 0,
    ms: 0,
    endedAtMs: startedAt,
  };
  const session = new Session(t);
  const pending: Array<{ id: string; postedAt: number }> = [];
  for (let i = 0; i < takesPerConnection * connections; i++) {
    const res = session.request(
      'POST',
      '/v1/speak/takes/generate',
      JSON.stringify({ text: texts[i % texts.length], voice_id: setup.voiceId }),
      { tags: { name: 'takes/generate', phase: 'warmup' } },
    );
    report.takes++;
    if (res.status < 200 || res.status >= 300) report.failed++;
    else pending.push({ id: (res.json() as { take_id: string }).take_id, postedAt: Date.now() });
  }
  const deadline = Date.now() + 60_000;
  while (pending.length > 0 && Date.now() < deadline) {
    sleep(0.1);
    for (let i = pending.length - 1; i >= 0; i--) {
      const p = pending[i]!;
      const res = session.request('GET', `/v1/speak/takes/${p.id}`, null, {
        tags: { name: 'takes/{id}', phase: 'warmup' },
      });
      const status = res.status === 200 ? (res.json() as { status: string }).status : 'error';
      if (status === 'ready')
        warmupTakeLatency.add(Date.now() - p.postedAt, { phase: 'warmup', mode: 'rest' });
      if (status === 'ready' || status === 'error' || status === 'timeout') {
        if (status !== 'ready') report.failed++;
        pending.splice(i, 1);
      }
    }
  }
  report.failed += pending.length;
  report.endedAtMs = Date.now();
  report.ms = report.endedAtMs - startedAt;
  return report;
}
