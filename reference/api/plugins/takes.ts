/**
 * Takes: generate (one TakeGenerate → one Take; an array → an array of Takes in the same order; the
 * whole batch is validated before anything is created), list, get (with `x-speak-worker`: the worker
 * that synthesized it, outside the contract's shapes), delete (answers true; its audio is removed).
 */

import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import {
  deleteTakeRow,
  getUserTakeRow,
  insertTake,
  type TakeResource,
  type TakeRow,
  takeResource,
} from '../../store/takes.ts';
import { getUserVoiceRow } from '../../store/voices.ts';
import { withLastWebhookCalls } from '../../webhooks/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { listRows } from '../lists.ts';
import { buildTake, type TakeGenerateBody } from '../take-builder.ts';
import { validateWith } from '../validate.ts';
import { voiceForTake } from './voices.ts';

export function takeOf(ctx: ApiContext, userId: string, takeId: string): TakeRow {
  const row = getUserTakeRow(ctx.db, userId, takeId);
  if (!row) throw new ApiError(404, `take ${JSON.stringify(takeId)} not found`);
  return row;
}

export async function takesPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // Every answer shows an SDK-form hook (`{"post_url"}`) as `{post_url, timestamp_ms, status_code}`
  // of its last call (null before any, wire-facts.md); a URL string stays as given.
  const shown = (take: TakeResource) => withLastWebhookCalls(ctx.db, 'take', take);
  app.get('/v1/speak/takes', async (request) =>
    listRows<TakeRow>(ctx.db, 'takes', 'take_id', request.userId, request.query).map((row) =>
      shown(takeResource(row)),
    ),
  );

  app.get('/v1/speak/takes/:take_id', async (request, reply) => {
    const { take_id } = request.params as { take_id: string };
    const row = takeOf(ctx, request.userId, take_id);
    if (row.worker) reply.header('x-speak-worker', row.worker);
    const take = shown(takeResource(row));
    return defects.has('take-get-array') ? [take] : take;
  });

  app.post('/v1/speak/takes/generate', async (request) => {
    const batch = Array.isArray(request.body);
    validateWith(ctx.ajv, batch ? 'TakeGenerateBatch' : 'TakeGenerate', request.body);
    const bodies = (batch ? request.body : [request.body]) as (TakeGenerateBody & { voice_id: string })[];
    const now = Date.now();
    const takes = bodies.map((body, i) => {
      const where = batch ? `body/${i}` : 'body';
      const voice = getUserVoiceRow(ctx.db, request.userId, body.voice_id);
      // A voice that does not exist (or is another user's) is a missing resource, as on the worker
      // websocket (worker/websocket/store-service.ts) and for GET /voices/{id}: 404 naming the field.
      if (!voice)
        throw new ApiError(404, `${where}/voice_id: voice ${JSON.stringify(body.voice_id)} not found`);
      return buildTake(request.userId, voiceForTake(voice), body, where, { timestampMs: now });
    });
    const created = ctx.db
      .transaction(() =>
        takes.map((take) => {
          const item = insertTake(ctx.db, take);
          enqueueJob(ctx.db, take.take_id);
          return item;
        }),
      )
      .immediate();
    ctx.wakeWorkers();
    ctx.wakeEvents();
    const answered = created.map(shown);
    return batch ? answered : answered[0];
  });

  app.delete('/v1/speak/takes/:take_id', async (request) => {
    const { take_id } = request.params as { take_id: string };
    if (!deleteTakeRow(ctx.db, request.userId, take_id)) {
      throw new ApiError(404, `take ${JSON.stringify(take_id)} not found`);
    }
    await ctx.audio.remove(take_id);
    return true;
  });
}
