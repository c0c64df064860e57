/**
 * Voices: generate (→ waiting, with an example take queued; the voice is ready when its example take
 * is), list, get, update (POST /voices/{id}, partial, answers true), delete (answers true).
 * A voice's `model` is the model's version name (the same as its name in the default catalogue).
 */

import type { FastifyInstance } from 'fastify';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { voiceBeforeUpdate } from '../../defects/sequence-memory.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import { latitude } from '../../latitude/index.ts';
import { findModel } from '../../models/catalogue.ts';
import { fromJsonColumn } from '../../store/db.ts';
import {
  deleteVoiceRow,
  getUserVoiceRow,
  updateVoiceRow,
  type VoiceChanges,
  type VoiceResource,
  type VoiceRow,
  voiceResource,
} from '../../store/voices.ts';
import { withLastWebhookCalls } from '../../webhooks/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { checkGender, checkProsody, checkStyle } from '../generation-rules.ts';
import { registerListRoute } from '../lists.ts';
import {
  AUTH,
  BODY_ERRORS,
  EXAMPLE_VOICE_ID,
  error,
  FIRST_MODEL,
  json,
  MALFORMED,
  ref,
  VOICE_LINKS,
  withLinks,
} from '../openapi-parts.ts';
import { ownerFor } from '../ownership.ts';
import { stringParams, type VoiceIdParams } from '../route-schema.ts';
import { completedProsody } from '../take-builder.ts';
import { buildVoice, insertVoiceWithExample, type VoiceGenerateBody } from '../voice-generation.ts';

const VOICE_ID = stringParams({ voice_id: 'The voice' });
const VOICE_ID_EXAMPLE = { parameters: { voice_id: { example: EXAMPLE_VOICE_ID } } };
const UNKNOWN_VOICE = { '404': error('Unknown voice') };

/** Defect voice-list-stale-after-update: a listed voice as it was before its last update. */
function staleAfterUpdate<V extends object>(voiceId: string, voice: V): V {
  const before = defects.has('voice-list-stale-after-update') ? voiceBeforeUpdate.get(voiceId) : undefined;
  return before ? { ...voice, ...before } : voice;
}

/**
 * Latitude voice-waiting-after-update: a voice updated in the last REPROCESS_MS is shown `waiting`
 * (a server that re-processes a changed voice), then `ready` again.
 */
const reprocessedUntil = new Map<string, number>();
const REPROCESS_MS = 2_000;
function reprocessing<V extends object>(voiceId: string, voice: V): V {
  const until = reprocessedUntil.get(voiceId);
  return until !== undefined && Date.now() < until ? { ...voice, status: 'waiting' } : voice;
}

function voiceOf(ctx: ApiContext, userId: string, voiceId: string): VoiceRow {
  const row = getUserVoiceRow(ctx.db, userId, voiceId);
  if (!row) throw new ApiError(404, `voice ${JSON.stringify(voiceId)} not found`);
  return row;
}

export async function voicesPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // SDK-form hooks with their last call, as for takes (takes.ts).
  const shown = (voice: VoiceResource) => withLastWebhookCalls(ctx.db, 'voice', voice);
  registerListRoute(app, ctx.db, {
    path: '/v1/speak/voices',
    table: 'voices',
    idColumn: 'voice_id',
    operationId: 'listVoices',
    tag: 'voices',
    summary: 'List voices',
    listSchema: 'VoiceList',
    show: (row: VoiceRow) =>
      reprocessing(row.voice_id, staleAfterUpdate(row.voice_id, shown(voiceResource(row)))),
  });

  const one = {
    operationId: 'getVoice',
    tags: ['voices'],
    summary: 'One voice',
    params: VOICE_ID,
    documented: VOICE_ID_EXAMPLE,
    responses: { '200': json(ref('Voice')), ...MALFORMED, ...AUTH, ...UNKNOWN_VOICE },
  };
  app.get<{ Params: VoiceIdParams }>('/v1/speak/voices/:voice_id', { schema: one }, async (request) => {
    const { voice_id } = request.params;
    const owner = ownerFor(ctx, 'leak-voice-by-id', 'voice', request.userId, voice_id);
    const voice = reprocessing(voice_id, shown(voiceResource(voiceOf(ctx, owner, voice_id))));
    if (defects.has('voice-get-drops-prosody')) voice.default_prosody = null;
    return defects.has('voice-get-array') ? [voice] : voice;
  });

  const generate = {
    operationId: 'generateVoice',
    tags: ['voices'],
    summary: 'Generate a voice (waiting; ready once its example take is)',
    body: { $ref: 'VoiceGenerate.json' },
    documented: {
      // The model rules (genders, styles, prosody types, languages per model) are checked in code.
      body: ref('VoiceGenerateForModels'),
      bodyExample: {
        name: 'Narrator',
        gender: FIRST_MODEL.genders[0],
        model: FIRST_MODEL.name,
        example_take: { text: 'Hello, this is my voice.' },
      },
    },
    responses: { '200': withLinks(json(ref('Voice')), VOICE_LINKS), ...BODY_ERRORS, ...AUTH },
  };
  app.post<{ Body: VoiceGenerateBody }>(
    '/v1/speak/voices/generate',
    { schema: generate },
    async (request, reply) => {
      // Defect voice-generate-hangs: voice generation accepts the request and never answers.
      if (defects.has('voice-generate-hangs')) return neverAnswer(reply);
      const built = buildVoice(request.userId, request.body, 'body', {
        timestampMs: Date.now(),
      });
      const created = insertVoiceWithExample(ctx.db, built, (take) => enqueueJob(ctx.db, take.take_id)).voice;
      ctx.wakeWorkers();
      ctx.wakeEvents();
      const answered = shown(created);
      return defects.has('voice-generate-ready') ? { ...answered, status: 'ready' } : answered;
    },
  );

  const update = {
    operationId: 'updateVoice',
    tags: ['voices'],
    summary: "Update a voice (partial; gender, prosody and style must suit the voice's model)",
    params: VOICE_ID,
    body: { $ref: 'VoiceUpdate.json' },
    documented: { ...VOICE_ID_EXAMPLE, bodyExample: { name: 'Renamed' } },
    responses: { '200': json(ref('TrueLiteral')), ...BODY_ERRORS, ...AUTH, ...UNKNOWN_VOICE },
  };
  app.post<{ Params: VoiceIdParams; Body: VoiceChanges }>(
    '/v1/speak/voices/:voice_id',
    { schema: update },
    async (request, reply) => {
      // Latitude no-update: update is a wire fact, not the contract; a server without it answers as for any unknown route.
      if (latitude.has('no-update')) return reply.callNotFound();
      const { voice_id } = request.params;
      const owner = ownerFor(ctx, 'foreign-update', 'voice', request.userId, voice_id);
      const row = voiceOf(ctx, owner, voice_id);
      let changes = request.body;
      const model = findModel(row.model);
      if (model) {
        if (changes.gender !== undefined) checkGender(model, changes.gender, 'body/gender');
        checkProsody(model, changes.default_prosody, 'body/default_prosody');
        checkStyle(model, changes.default_style, 'body/default_style');
        // Stored complete, as on generation (take-builder.ts completedProsody).
        changes = { ...changes, default_prosody: completedProsody(model, changes.default_prosody) };
      }
      // Defect update-does-nothing: the voice is answered `true` and left as it was.
      if (defects.has('update-does-nothing')) return true;
      // Defect voice-list-stale-after-update: the list keeps showing the voice as it was before.
      if (defects.has('voice-list-stale-after-update'))
        voiceBeforeUpdate.set(voice_id, { name: row.name, description: row.description });
      if (!updateVoiceRow(ctx.db, owner, voice_id, changes)) {
        throw new ApiError(404, `voice ${JSON.stringify(voice_id)} not found`);
      }
      if (latitude.has('voice-waiting-after-update'))
        reprocessedUntil.set(voice_id, Date.now() + REPROCESS_MS);
      return true;
    },
  );

  const remove = {
    operationId: 'deleteVoice',
    tags: ['voices'],
    summary: 'Delete a voice',
    params: VOICE_ID,
    documented: VOICE_ID_EXAMPLE,
    responses: { '200': json(ref('TrueLiteral')), ...MALFORMED, ...AUTH, ...UNKNOWN_VOICE },
  };
  app.delete<{ Params: VoiceIdParams }>('/v1/speak/voices/:voice_id', { schema: remove }, async (request) => {
    const { voice_id } = request.params;
    const owner = ownerFor(ctx, 'foreign-delete', 'voice', request.userId, voice_id);
    if (!deleteVoiceRow(ctx.db, owner, voice_id)) {
      throw new ApiError(404, `voice ${JSON.stringify(voice_id)} not found`);
    }
    return true;
  });
}

/** The voice fields a take needs, from its row. */
export function voiceForTake(row: VoiceRow) {
  return {
    voice_id: row.voice_id,
    model: row.model,
    gender: row.gender,
    default_prosody: fromJsonColumn<Record<string, number>>(row.default_prosody),
    default_style: fromJsonColumn<string[]>(row.default_style),
  };
}
