/**
 * A part of the server that accepts the request and never answers (issue 49's defect switches): the
 * reply is taken over and never written, the connection stays open until the client gives up or
 * the stack closes (the API's forceCloseConnections ends it).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

export function neverAnswer(reply: FastifyReply): FastifyReply {
  reply.hijack();
  return reply;
}

/**
 * Defect api-wedges-after-first-take: once the API answered its first take generation, it accepts
 * every later request (its root included) and never answers: a server wedged mid-run, which the
 * run must learn once (src/client/server-silence.ts) instead of waiting it out test by test.
 */
export function wedgeAfterFirstTake(app: FastifyInstance): void {
  let wedged = false;
  app.addHook('onRequest', async (_request, reply) => {
    if (wedged) return neverAnswer(reply);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (
      request.method === 'POST' &&
      request.url.startsWith('/v1/speak/takes/generate') &&
      reply.statusCode < 300
    )
      wedged = true;
  });
}
