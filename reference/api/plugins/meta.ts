/**
 * GET /v1/speak/_meta/workers (bearer): the synthesis workers (id, pid, alive, restarts; standalone workers also their models,
 * websocket URL and defect switches). Outside the
 * contract's shapes; lets tests and benchmarks see how jobs spread (see also `x-speak-worker`).
 */
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.ts';

export async function metaPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  app.get('/v1/speak/_meta/workers', async () => ctx.workers());
}
