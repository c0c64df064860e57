/**
 * One take over REST, as a client without websockets does it: POST takes/generate, then poll the
 * take (POLL_MS; with `pollMaxMs` above it, each wait doubles up to that cap) until it is ready, recording acceptance, queue wait, latency, audio seconds and
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
  /**
   * Back-off: each wait doubles from pollMs up to this cap (default pollMs: a fixed interval). A
   * fixed 50 ms poll turns an overloaded server's queue into a storm of polls (1,500 requests/s at
   * 60 takes/s) that takes the CPU synthesis needs, so the overload feeds itself.
   */
  pollMaxMs?: number;
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
  let wait = o.pollMs;
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
    sleep(wait / 1000);
    wait = Math.min(Math.max(o.pollMaxMs ?? o.pollMs, o.pollMs), wait * 2);
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
