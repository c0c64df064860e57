/**
 * One take over REST, as a client without websockets does it: POST takes/generate, then poll the
 * take (POLL_MS) until it is ready, recording acceptance, queue wait, latency, audio seconds and
 * errors (throughput-rest, capacity-step).
 */
import { sleep } from 'k6';
import type { Take } from '../../schemas/types.ts';
import {
  audioSeconds,
  queueWait,
  restErrors,
  takeLatency,
  takesAccepted,
  takesCompleted,
} from './metrics.ts';
import type { Session } from './session.ts';

export interface RestTakeOptions {
  pollMs: number;
  timeoutMs: number;
  tags: Record<string, string>;
}

export function restTake(session: Session, voiceId: string, text: string, o: RestTakeOptions): void {
  const { tags } = o;
  const created = session.request(
    'POST',
    '/v1/speak/takes/generate',
    JSON.stringify({ text, voice_id: voiceId }),
    { tags: { name: 'takes/generate' } },
  );
  if (created.status < 200 || created.status >= 300) {
    restErrors.add(true, tags);
    return;
  }
  const acceptedAt = Date.now();
  takesAccepted.add(1, tags);
  let take = created.json() as unknown as Take;
  let queued = take.status === 'waiting';
  if (!queued) queueWait.add(0, tags);
  while (take.status !== 'ready') {
    if (take.status === 'error' || take.status === 'timeout') {
      restErrors.add(true, tags);
      return;
    }
    if (Date.now() - acceptedAt > o.timeoutMs) {
      console.warn(`take ${take.take_id} not done after ${o.timeoutMs} ms (status ${take.status})`);
      restErrors.add(true, tags);
      return;
    }
    sleep(o.pollMs / 1000);
    const res = session.request('GET', `/v1/speak/takes/${take.take_id}`, null, {
      tags: { name: 'takes/{id}' },
    });
    if (res.status !== 200) {
      restErrors.add(true, tags);
      return;
    }
    take = res.json() as unknown as Take;
    if (queued && take.status !== 'waiting') {
      queued = false;
      queueWait.add(Date.now() - acceptedAt, tags);
    }
  }
  const doneAt = Date.now();
  restErrors.add(false, tags);
  takesCompleted.add(1, tags);
  takeLatency.add(doneAt - acceptedAt, tags);
  if (take.info && take.info.audio_rate > 0)
    audioSeconds.add(take.info.duration / take.info.audio_rate, tags);
}
