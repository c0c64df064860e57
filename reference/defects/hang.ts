/**
 * A part of the server that accepts the request and never answers (issue 49's defect switches): the
 * reply is taken over and never written, the connection stays open until the client gives up or
 * the stack closes (the API's forceCloseConnections ends it).
 */
import type { FastifyReply } from 'fastify';

export function neverAnswer(reply: FastifyReply): FastifyReply {
  reply.hijack();
  return reply;
}
