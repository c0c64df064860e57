/** Every answer of a stack with latitude switches on carries `x-speak-latitude`, so its choices are never mistaken for the default ones. */
import type { FastifyInstance } from 'fastify';
import { latitude } from './active.ts';

export const LATITUDE_HEADER = 'x-speak-latitude';

export function installLatitudeHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    const on = latitude.list();
    if (on.length > 0) reply.header(LATITUDE_HEADER, on.join(','));
  });
}
