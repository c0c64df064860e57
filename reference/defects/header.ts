/** Every answer of a stack with defect switches on carries `x-speak-defects`, so it never passes for a clean one. */
import type { FastifyInstance } from 'fastify';
import { defects } from './active.ts';

export const DEFECTS_HEADER = 'x-speak-defects';

export function installDefectHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    const on = defects.list();
    if (on.length > 0) reply.header(DEFECTS_HEADER, on.join(','));
  });
}
