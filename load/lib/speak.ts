/**
 * The few Speak v1 calls the scenarios share: choose the model, create a voice for the run (and
 * delete it at the end), ask for a websocket address.
 */
import { sleep } from 'k6';
// Type-only: erased when k6 strips the types, so the scripts load nothing from schemas/ at run time.
import type { Model, Voice } from '../../schemas/types.ts';
import { envNumber, type Target, target } from './config.ts';
import { voiceSpec } from './data.ts';
import { Session } from './session.ts';
import { runWsTakes } from './ws-takes.ts';

export interface RunSetup {
  model: string;
  voiceId: string;
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
  const res = session.request(
    'POST',
    '/v1/speak/voices/generate',
    JSON.stringify({ name: `${voiceSpec.name}-${Date.now()}`, gender: voiceSpec.gender, model }),
    { tags: { name: 'voices/generate' } },
  );
  if (res.status < 200 || res.status >= 300)
    throw new Error(`voice generation: HTTP ${res.status} ${res.body}`);
  const voice = res.json() as unknown as Voice;
  const deadline = Date.now() + VOICE_READY_TIMEOUT_S * 1000;
  let status = voice.status;
  while (status !== 'ready') {
    if (status === 'error' || status === 'timeout')
      throw new Error(`voice ${voice.voice_id} ended in ${status}`);
    if (Date.now() > deadline)
      throw new Error(`voice ${voice.voice_id} not ready after ${VOICE_READY_TIMEOUT_S}s`);
    sleep(0.2);
    status = session.getJson<Voice>(`/v1/speak/voices/${voice.voice_id}`, 'voices/{id}').status;
  }
  return { model, voiceId: voice.voice_id };
}

/** teardown(): delete the run's voice (best effort: a server without DELETE keeps it). */
export function cleanupRun(setup: RunSetup, t: Target = target()): void {
  new Session(t).request('DELETE', `/v1/speak/voices/${setup.voiceId}`, null, {
    tags: { name: 'voices/{id}' },
  });
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
 * Warm-up before measuring: WARMUP_TAKES chunks-mode takes over each of WARMUP_CONNECTIONS fresh
 * websocket connections (the address may pick different workers), results discarded, so the first
 * measured samples do not carry the workers' cold start (synthesizer load, JIT).
 */
export function warmUp(setup: RunSetup, t: Target = target()): void {
  const takes = envNumber('WARMUP_TAKES', 2);
  const connections = envNumber('WARMUP_CONNECTIONS', 2);
  if (takes <= 0) return;
  const session = new Session(t);
  for (let c = 0; c < connections; c++) {
    const requests = Array.from({ length: takes }, () => ({
      text: 'Warming up.',
      voiceId: setup.voiceId,
      mode: 'chunks' as const,
    }));
    runWsTakes(websocketUrl(session, setup.model), requests, {
      requestTimeoutMs: 60_000,
      onResult: (_r, result) => {
        if (!result.ok) console.warn(`warm-up take failed: ${result.error}`);
      },
    });
  }
}
