/**
 * Takes: generate (one TakeGenerate → one Take; an array → an array of Takes in the same order; the
 * whole batch is validated before anything is created), list, get (with `x-speak-worker`: the worker
 * that synthesized it, outside the contract's shapes), delete (answers true; its audio is removed).
 */

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SECOND_EMAIL } from '../../auth/users.ts';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { deletedTakes, lastGeneration, takeDeletedMs } from '../../defects/sequence-memory.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import { latitude } from '../../latitude/index.ts';
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
import { registerListRoute } from '../lists.ts';
import {
  AUTH,
  BODY_ERRORS,
  EXAMPLE_TAKE_ID,
  EXAMPLE_VOICE_ID,
  error,
  json,
  MALFORMED,
  ref,
  TAKE_LINKS,
  withLinks,
} from '../openapi-parts.ts';
import { ownerFor } from '../ownership.ts';
import { stringParams, type TakeIdParams } from '../route-schema.ts';
import { buildTake, type TakeGenerateBody } from '../take-builder.ts';
import { voiceForTake } from './voices.ts';

export const TAKE_ID = stringParams({ take_id: 'The take' });
export const TAKE_ID_EXAMPLE = { take_id: { example: EXAMPLE_TAKE_ID } };
const UNKNOWN_TAKE = { '404': error('Unknown take') };
/** One TakeGenerate, or a batch of them (an array), each validated against its schema. */
const TAKE_GENERATE_BODY = {
  if: { type: 'array' },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else (errors name the right form's fields); never awaited.
  then: { $ref: 'TakeGenerateBatch.json' },
  else: { $ref: 'TakeGenerate.json' },
};
type TakeGenerateOne = TakeGenerateBody & { voice_id: string };

export function takeOf(ctx: ApiContext, userId: string, takeId: string): TakeRow {
  const row = getUserTakeRow(ctx.db, userId, takeId);
  if (!row) throw new ApiError(404, `take ${JSON.stringify(takeId)} not found`);
  return row;
}

/**
 * Defect get-answers-newest-after-delete: once `userId` deleted a take, the customer's newest take
 * (a per-customer "latest take" entry the delete path refills and the GET handler reads first).
 */
function newestAfterDelete(ctx: ApiContext, userId: string): TakeRow | undefined {
  if (![...deletedTakes.values()].includes(userId)) return undefined;
  return ctx.db
    .prepare('SELECT * FROM takes WHERE user_id = ? ORDER BY timestamp_ms DESC, take_id DESC LIMIT 1')
    .get(userId) as TakeRow | undefined;
}

/**
 * Defect refused-take-stored: a refused take body whose text and voice are usable is stored anyway
 * (a draft row written before validation that the refusal does not roll back).
 */
function storeRefusedDraft(ctx: ApiContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const body = request.body as { text?: unknown; voice_id?: unknown } | null | undefined;
    if (typeof body?.text !== 'string' || typeof body.voice_id !== 'string') return;
    const voice = getUserVoiceRow(ctx.db, request.userId, body.voice_id);
    if (!voice) return;
    const draft = { voice_id: body.voice_id, text: body.text };
    storeAndQueue(ctx, [
      buildTake(request.userId, voiceForTake(voice), draft, 'body', { timestampMs: Date.now() }),
    ]);
  };
}

/** Stores `takes` and queues them for synthesis in one transaction, then wakes the workers. */
function storeAndQueue(ctx: ApiContext, takes: ReturnType<typeof buildTake>[]): TakeResource[] {
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
  return created;
}

/** Whether `userId` is the stack's second seeded customer (defect second-customer-delete-ignored). */
function isSecondCustomer(ctx: ApiContext, userId: string): boolean {
  const row = ctx.db.prepare('SELECT email FROM users WHERE user_id = ?').get(userId) as
    | { email: string }
    | undefined;
  return row?.email === SECOND_EMAIL;
}

export async function takesPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // Every answer shows an SDK-form hook (`{"post_url"}`) as `{post_url, timestamp_ms, status_code}`
  // of its last call (null before any, wire-facts.md); a URL string stays as given.
  const shown = (take: TakeResource) => withLastWebhookCalls(ctx.db, 'take', take);
  /** The take the user's previous generation made, when `body` is that body again (defect repeat-generate-same-take). */
  const repeatOf = (userId: string, body: unknown) => {
    const last = lastGeneration.get(userId);
    if (!last || last.body !== JSON.stringify(body)) return undefined;
    const row = getUserTakeRow(ctx.db, userId, last.takeId);
    return row ? shown(takeResource(row)) : undefined;
  };
  registerListRoute(app, ctx.db, {
    path: '/v1/speak/takes',
    table: 'takes',
    idColumn: 'take_id',
    operationId: 'listTakes',
    tag: 'takes',
    summary: 'List takes',
    listSchema: 'TakeList',
    show: (row: TakeRow) => shown(takeResource(row)),
  });

  const one = {
    operationId: 'getTake',
    tags: ['takes'],
    summary: 'One take',
    params: TAKE_ID,
    documented: { parameters: TAKE_ID_EXAMPLE },
    responses: { '200': json(ref('Take')), ...MALFORMED, ...AUTH, ...UNKNOWN_TAKE },
  };
  app.get<{ Params: TakeIdParams }>('/v1/speak/takes/:take_id', { schema: one }, async (request, reply) => {
    const { take_id } = request.params;
    const found = takeOf(ctx, ownerFor(ctx, 'leak-take-by-id', 'take', request.userId, take_id), take_id);
    const row = defects.has('get-answers-newest-after-delete')
      ? (newestAfterDelete(ctx, request.userId) ?? found)
      : found;
    // Defect take-get-hangs-when-ready: a ready take's GET never answers (a wedged read path).
    if (row.status === 'ready' && defects.has('take-get-hangs-when-ready')) return neverAnswer(reply);
    if (row.worker) reply.header('x-speak-worker', row.worker);
    const take = shown(takeResource(row));
    return defects.has('take-get-array') ? [take] : take;
  });

  const generate = {
    operationId: 'generateTake',
    tags: ['takes'],
    summary: 'Generate a take, or a batch (array → array in the same order)',
    description:
      "An unknown voice_id is a 404, prosody, style or override_language the voice's model does not offer a 422, each naming the field.",
    body: TAKE_GENERATE_BODY,
    documented: {
      body: { anyOf: [ref('TakeGenerateForModels'), ref('TakeGenerateBatchForModels')] },
      bodyExample: { voice_id: EXAMPLE_VOICE_ID, text: 'Hello there.' },
    },
    responses: {
      '200': withLinks(json(ref('TakeGenerateResult')), TAKE_LINKS),
      ...BODY_ERRORS,
      ...AUTH,
      '404': error('Unknown voice_id (the detail names the field)'),
    },
  };
  app.post<{ Body: TakeGenerateOne | TakeGenerateOne[] }>(
    '/v1/speak/takes/generate',
    { schema: generate, ...(defects.has('refused-take-stored') ? { onError: storeRefusedDraft(ctx) } : {}) },
    async (request) => {
      const batch = Array.isArray(request.body);
      // Latitude no-batch: batch is a wire fact; a server without it refuses an array as not one TakeGenerate.
      if (batch && latitude.has('no-batch'))
        throw new ApiError(422, 'body: must be object (one TakeGenerate)');
      // Defect repeat-generate-same-take: the customer's previous body, sent again, answers its take.
      const repeated =
        !batch && defects.has('repeat-generate-same-take')
          ? repeatOf(request.userId, request.body)
          : undefined;
      if (repeated) return repeated;
      const bodies = Array.isArray(request.body) ? request.body : [request.body];
      const now = Date.now();
      const takes = bodies.map((body, i) => {
        const where = batch ? `body/${i}` : 'body';
        const owner = ownerFor(ctx, 'foreign-voice-usable', 'voice', request.userId, body.voice_id);
        const voice = getUserVoiceRow(ctx.db, owner, body.voice_id);
        // A voice that does not exist (or is another user's) is a missing resource, as on the worker
        // websocket (worker/websocket/store-service.ts) and for GET /voices/{id}: 404 naming the field.
        if (!voice)
          throw new ApiError(404, `${where}/voice_id: voice ${JSON.stringify(body.voice_id)} not found`);
        return buildTake(request.userId, voiceForTake(voice), body, where, { timestampMs: now });
      });
      const created = storeAndQueue(ctx, takes);
      // Defect take-generate-500: the takes are stored and queued, then the answer fails.
      if (defects.has('take-generate-500')) throw new Error('the created take could not be serialized');
      const answered = created.map(shown);
      // Defect take-generate-started: the answer shows the take as claimed by a worker already.
      if (defects.has('take-generate-started'))
        for (const take of answered) if (take.status === 'waiting') take.status = 'started';
      if (!batch && defects.has('repeat-generate-same-take'))
        lastGeneration.set(request.userId, {
          body: JSON.stringify(request.body),
          takeId: takes[0]!.take_id,
        });
      // Defect batch-reversed: the batch answer lists the takes last first.
      if (batch && defects.has('batch-reversed')) answered.reverse();
      // Defect batch-rotated-past-two: a batch of three or more answers its first take last.
      if (batch && answered.length > 2 && defects.has('batch-rotated-past-two'))
        answered.push(answered.shift()!);
      return batch ? answered : answered[0];
    },
  );

  const remove = {
    operationId: 'deleteTake',
    tags: ['takes'],
    summary: 'Delete a take',
    params: TAKE_ID,
    documented: { parameters: TAKE_ID_EXAMPLE },
    responses: { '200': json(ref('TrueLiteral')), ...MALFORMED, ...AUTH, ...UNKNOWN_TAKE },
  };
  app.delete<{ Params: TakeIdParams }>(
    '/v1/speak/takes/:take_id',
    { schema: remove },
    async (request, reply) => {
      // Latitude no-delete: delete is a wire fact, not the contract; a server without it answers as for any unknown route.
      if (latitude.has('no-delete')) return reply.callNotFound();
      const { take_id } = request.params;
      const owner = ownerFor(ctx, 'foreign-delete', 'take', request.userId, take_id);
      // Defect delete-twice-500: the store throws on a row deleted before (a 500, not a 404).
      if (defects.has('delete-twice-500') && deletedTakes.has(take_id))
        throw new Error(`take row ${take_id} vanished while deleting`);
      // Defect second-customer-delete-ignored: only the first seeded customer's deletes take effect.
      if (
        defects.has('second-customer-delete-ignored') &&
        isSecondCustomer(ctx, owner) &&
        getUserTakeRow(ctx.db, owner, take_id)
      )
        return true;
      // Defect delete-does-nothing: an existing take is answered `true` and kept.
      if (defects.has('delete-does-nothing') && getUserTakeRow(ctx.db, owner, take_id)) return true;
      if (!deleteTakeRow(ctx.db, owner, take_id)) {
        throw new ApiError(404, `take ${JSON.stringify(take_id)} not found`);
      }
      // Deleting a voice's example take may have failed the voice (store/takes.ts): its event is written.
      ctx.wakeEvents();
      await ctx.audio.remove(take_id);
      deletedTakes.set(take_id, owner);
      if (defects.has('list-stale-after-delete')) takeDeletedMs.set(take_id, Date.now());
      return true;
    },
  );
}
