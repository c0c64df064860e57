/**
 * Voices: generate (→ waiting, with an example take queued; the voice is ready when its example take
 * is), list, get, update (POST /voices/{id}, partial, answers true), delete (answers true).
 * A voice's `model` is the model's version name (the same as its name in the default catalogue).
 */

import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
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
import { listRows } from '../lists.ts';
import { buildVoice, insertVoiceWithExample, type VoiceGenerateBody } from '../voice-generation.ts';

function voiceOf(ctx: ApiContext, userId: string, voiceId: string): VoiceRow {
  const row = getUserVoiceRow(ctx.db, userId, voiceId);
  if (!row) throw new ApiError(404, `voice ${JSON.stringify(voiceId)} not found`);
  return row;
}

export async function voicesPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  // SDK-form hooks with their last call, as for takes (takes.ts).
  const shown = (voice: VoiceResource) => withLastWebhookCalls(ctx.db, 'voice', voice);
  app.get('/v1/speak/voices', async (request) =>
    listRows<VoiceRow>(ctx.db, 'voices', 'voice_id', request.userId, request.query).map((row) =>
      shown(voiceResource(row)),
    ),
  );

  app.get('/v1/speak/voices/:voice_id', async (request) => {
    const { voice_id } = request.params as { voice_id: string };
    const voice = shown(voiceResource(voiceOf(ctx, request.userId, voice_id)));
    if (defects.has('voice-get-drops-prosody')) voice.default_prosody = null;
    return defects.has('voice-get-array') ? [voice] : voice;
  });

  app.post(
    '/v1/speak/voices/generate',
    { schema: { body: { $ref: 'VoiceGenerate.json' } } },
    async (request) => {
      const built = buildVoice(request.userId, request.body as VoiceGenerateBody, 'body', {
        timestampMs: Date.now(),
      });
      const created = insertVoiceWithExample(ctx.db, built, (take) => enqueueJob(ctx.db, take.take_id)).voice;
      ctx.wakeWorkers();
      ctx.wakeEvents();
      const answered = shown(created);
      return defects.has('voice-generate-ready') ? { ...answered, status: 'ready' } : answered;
    },
  );

  app.post(
    '/v1/speak/voices/:voice_id',
    { schema: { body: { $ref: 'VoiceUpdate.json' } } },
    async (request) => {
      const { voice_id } = request.params as { voice_id: string };
      const row = voiceOf(ctx, request.userId, voice_id);
      const changes = request.body as VoiceChanges;
      const model = findModel(row.model);
      if (model) {
        if (changes.gender !== undefined) checkGender(model, changes.gender, 'body/gender');
        checkProsody(model, changes.default_prosody, 'body/default_prosody');
        checkStyle(model, changes.default_style, 'body/default_style');
      }
      if (!updateVoiceRow(ctx.db, request.userId, voice_id, changes)) {
        throw new ApiError(404, `voice ${JSON.stringify(voice_id)} not found`);
      }
      return true;
    },
  );

  app.delete('/v1/speak/voices/:voice_id', async (request) => {
    const { voice_id } = request.params as { voice_id: string };
    if (!deleteVoiceRow(ctx.db, request.userId, voice_id)) {
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
