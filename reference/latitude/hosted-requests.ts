/**
 * Latitude hosted-latency on the API: every request waits what a hosted API takes before its route
 * runs (30–80 ms; login and refresh 150 ms), on a timer, so the event loop serves others meanwhile.
 */
import type { FastifyInstance } from 'fastify';
import { hostedLatency, sleep } from './hosted-latency.ts';

export function installHostedRequestLatency(app: FastifyInstance): void {
  const schedule = hostedLatency();
  if (!schedule) return;
  app.addHook('onRequest', async (request) => {
    await sleep(schedule.requestMs(request.method, request.url.split('?')[0]!));
  });
}
