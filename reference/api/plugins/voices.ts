/**
 * Voices: generate (→ waiting, with an example take queued; the voice is ready when its example take
 * is), list, get, update (POST /voices/{id}, partial, answers true), delete (answers true).
 * A voice's `model` is the model's version name (e.g. studio → studio-2026.11).
 */

import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { enqueueJob } from '../../jobs/job-queue.ts';
import { findModel, MODELS } from '../../models/catalogue.ts';
import { fromJsonColumn } from '../../store/db.ts';
import { newId } from '../../store/ids.ts';
import { insertTake } from '../../store/takes.ts';
import {
  deleteVoiceRow,
  getUserVoiceRow,
  insertVoice,
  updateVoiceRow,
  type VoiceChanges,
  type VoiceResource,
  type VoiceRow,
  voiceResource,
} from '../../store/voices.ts';
import { withLastWebhookCalls } from '../../webhooks/index.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { checkGender, checkLanguage, checkProsody, checkStyle } from '../generation-rules.ts';
import { listRows } from '../lists.ts';
import { buildTake, type TakeGenerateBody } from '../take-builder.ts';

interface VoiceGenerateBody {
  name: string;
  gender: string;
  model: string;
  default_prosody?: Record<string, number> | null;
  default_style?: string[] | null;
  description?: string | null;
  example_take?: Omit<TakeGenerateBody, 'voice_id'> | null;
  status_webhook?: unknown;
  done_webhook?: unknown;
}

const DEFAULT_EXAMPLE_TEXT = 'Hello! This is how I sound. I hope you like my voice.';

function voiceOf(ctx: ApiContext, userId: string, voiceId: string): VoiceRow {
  const row = getUserVoiceRow(ctx.db, userId, voiceId);
  if (!row) throw new ApiError(404, `voice ${JSON.stringify(voiceId)} not found`);
  return row;
}

/** A voice as the API answers it: SDK-form hooks with their last call, as for takes (takes.ts). */
function shownVoice(ctx: ApiContext, voice: VoiceResource) {
  return withLastWebhookCalls(ctx.db, 'voice', voice);
}

export async function voicesPlugin(app: FastifyInstance, ctx: ApiContext): Promise<void> {
  app.get('/v1/speak/voices', async (request) =>
    listRows<VoiceRow>(ctx.db, 'voices', 'voice_id', request.userId, request.query).map((row) =>
      shownVoice(ctx, voiceResource(row)),
    ),
  );

  app.get('/v1/speak/voices/:voice_id', async (request) => {
    const { voice_id } = request.params as { voice_id: string };
    const voice = shownVoice(ctx, voiceResource(voiceOf(ctx, request.userId, voice_id)));
    return defects.has('voice-get-array') ? [voice] : voice;
  });

  app.post(
    '/v1/speak/voices/generate',
    { schema: { body: { $ref: 'VoiceGenerate.json' } } },
    async (request) => {
      const body = request.body as VoiceGenerateBody;
      const model = findModel(body.model);
      if (!model || model.name !== body.model) {
        throw new ApiError(
          422,
          `body/model: unknown model ${JSON.stringify(body.model)} (known: ${MODELS.map((m) => m.name).join(', ')})`,
        );
      }
      checkGender(model, body.gender, 'body/gender');
      checkProsody(model, body.default_prosody, 'body/default_prosody');
      checkStyle(model, body.default_style, 'body/default_style');
      const example: Omit<TakeGenerateBody, 'voice_id' | 'text'> & { text?: string } =
        body.example_take ?? {};
      checkLanguage(model, example.override_language, 'body/example_take/override_language');
      const now = Date.now();
      const voiceId = newId('vc');
      const voice = {
        voice_id: voiceId,
        model: model.versionName,
        gender: body.gender,
        default_prosody: body.default_prosody ?? null,
        default_style: body.default_style ?? null,
      };
      const take = buildTake(
        request.userId,
        voice,
        { ...example, text: example.text ?? DEFAULT_EXAMPLE_TEXT },
        'body/example_take',
        { timestampMs: now, exampleOf: voiceId },
      );
      const created = ctx.db
        .transaction(() => {
          const item = insertVoice(ctx.db, {
            ...voice,
            user_id: request.userId,
            name: body.name,
            description: body.description ?? null,
            example_take_id: take.take_id,
            status_webhook: body.status_webhook ?? null,
            done_webhook: body.done_webhook ?? null,
            timestamp_ms: now,
          });
          insertTake(ctx.db, take);
          enqueueJob(ctx.db, take.take_id);
          return item;
        })
        .immediate();
      ctx.wakeWorkers();
      ctx.wakeEvents();
      const shown = shownVoice(ctx, created);
      return defects.has('voice-generate-ready') ? { ...shown, status: 'ready' } : shown;
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
