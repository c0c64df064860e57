/**
 * WebsocketTakeService on the stack's stores: takes and voices made over a websocket go into the same
 * tables, with the same rules (api/take-builder.ts, api/generation-rules.ts) and item events, and their
 * audio into the same file (`store/audio-files.ts`), as REST ones. Differences, on purpose: no job is
 * queued (this worker speaks the take itself), and the voice must be of the connection's model.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Database } from 'better-sqlite3';
import { sharedAjv } from '../../../schemas/index.ts';
import { ApiError, describeAjvErrors } from '../../api/errors.ts';
import { ownerFor } from '../../api/ownership.ts';
import { voiceForTake } from '../../api/plugins/voices.ts';
import { TABLE_FIELDS, unknownFields } from '../../api/request-tables.ts';
import { buildTake, type TakeGenerateBody } from '../../api/take-builder.ts';
import { buildVoice, insertVoiceWithExample, type VoiceGenerateBody } from '../../api/voice-generation.ts';
import { pcmBytes, WAV_HEADER_BYTES, wavHeader } from '../../audio/wav.ts';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { findModel } from '../../models/catalogue.ts';
import { takeAudioDir, takeAudioPath } from '../../store/audio-files.ts';
import { advanceTake, getTakeRow, insertTake, type NewTake, takeResource } from '../../store/takes.ts';
import { getUserVoiceRow, getVoiceRow, voiceResource } from '../../store/voices.ts';
import { outputSampleRate, splitIntoParts } from '../../synth/index.ts';
import type { Created, Json, TakeToSpeak, WebsocketTakeService } from './service.ts';

export interface StoreServiceContext {
  db: Database;
  dataDir: string;
  workerId: string;
  /** Item events were written: the API process wakes its event tail (webhooks). */
  notifyEvents(): void;
}

function toSpeak(take: NewTake, item: Json): TakeToSpeak {
  return { takeId: take.take_id, take: item, parts: splitIntoParts(take.text), voice: take.rendering };
}

/** Runs a step that may throw ApiError (a rule of the contract) and turns that into a message. */
function attempt<T>(step: () => T): Created<T> {
  try {
    return { ok: true, value: step() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, message: error.detail };
    throw error;
  }
}

/**
 * The bytes stored for a websocket take's samples. Defect ws-stored-audio-lossy: the stored copy goes
 * through a lossy path that clears each sample's lowest bit (the streamed PCM is untouched).
 */
function storedBytes(pcm: Parameters<typeof pcmBytes>[0]): Buffer {
  const bytes = pcmBytes(pcm);
  if (!defects.has('ws-stored-audio-lossy')) return bytes;
  const lossy = Buffer.from(bytes);
  for (let i = 0; i < lossy.length; i += 2) lossy[i]! &= 0xfe;
  return lossy;
}

export function createStoreService(ctx: StoreServiceContext): WebsocketTakeService {
  const ajv: Ajv2020 = sharedAjv();
  const validate = (schema: string, value: unknown) => {
    const check = ajv.getSchema(`${schema}.json`)!;
    if (!check(value)) throw new ApiError(422, describeAjvErrors(check.errors, 'data'));
  };
  const changed = <T>(value: T): T => {
    ctx.notifyEvents();
    return value;
  };
  const takeNow = (takeId: string): Json => {
    const row = getTakeRow(ctx.db, takeId);
    if (!row) throw new Error(`take ${takeId} no longer exists`);
    return takeResource(row);
  };

  return {
    async createTake(userId, model, body) {
      return attempt(() => {
        validate('TakeGenerate', body);
        if (latitude.has('strict-request-fields')) {
          const unknown = unknownFields(body, TABLE_FIELDS['/v1/speak/takes/generate']!);
          if (unknown.length) throw new ApiError(422, `data/${unknown[0]}: unknown field`);
        }
        const b = body as TakeGenerateBody & { voice_id: string };
        const owner = ownerFor(ctx, 'ws-foreign-voice-usable', 'voice', userId, b.voice_id);
        const voice = getUserVoiceRow(ctx.db, owner, b.voice_id);
        if (!voice) throw new ApiError(404, `data/voice_id: voice ${JSON.stringify(b.voice_id)} not found`);
        const voiceModel = findModel(voice.model)?.name;
        if (voiceModel !== model) {
          throw new ApiError(
            422,
            `data/voice_id: voice ${b.voice_id} is of model ${voice.model}; this connection is for model ${model}`,
          );
        }
        const take = buildTake(userId, voiceForTake(voice), b, 'data', { timestampMs: Date.now() });
        const item = ctx.db.transaction(() => insertTake(ctx.db, take)).immediate();
        return changed(toSpeak(take, item));
      });
    },

    async createVoice(userId, model, body) {
      return attempt(() => {
        validate('VoiceGenerate', body);
        const built = buildVoice(userId, body as VoiceGenerateBody, 'data', {
          timestampMs: Date.now(),
          connectionModel: model,
        });
        const created = insertVoiceWithExample(ctx.db, built);
        return changed({ voice: created.voice, example: toSpeak(built.exampleTake, created.exampleTake) });
      });
    },

    async advanceTake(takeId, status) {
      // Defect ws-progress-not-stored: the progress statuses go out on the socket but are never
      // stored (no item event, so no status call; GET shows started until ready).
      if (status.startsWith('progress') && defects.has('ws-progress-not-stored')) {
        const now = takeNow(takeId);
        return now && { ...now, status };
      }
      const item = advanceTake(ctx.db, takeId, status, { worker: ctx.workerId });
      return item ? changed(item) : takeNow(takeId);
    },

    openTakeAudio(takeId) {
      // As the REST worker does (worker/synthesize-take.ts): an unknown-length header, the samples as
      // they come (the signed wav URL can stream them before ready), then the real sizes.
      mkdirSync(takeAudioDir(ctx.dataDir, takeId), { recursive: true });
      const fd = openSync(takeAudioPath(ctx.dataDir, takeId, 'wav'), 'w');
      writeSync(fd, wavHeader({ sampleRate: outputSampleRate(), dataBytes: null }));
      let dataBytes = 0;
      let open = true;
      const close = () => {
        if (open) closeSync(fd);
        open = false;
      };
      return {
        write(pcm) {
          // Late samples of an aborted part must not reach a closed (or reused) descriptor.
          if (!open) return;
          const bytes = storedBytes(pcm);
          writeSync(fd, bytes, 0, bytes.length, WAV_HEADER_BYTES + dataBytes);
          dataBytes += bytes.length;
        },
        finish() {
          if (!open) return;
          writeSync(fd, wavHeader({ sampleRate: outputSampleRate(), dataBytes }), 0, WAV_HEADER_BYTES, 0);
          close();
        },
        abort: close,
      };
    },

    async completeTake(takeId, info) {
      // Defect ws-info-not-stored: the take is stored ready without its info; only the ready Take the
      // websocket sends carries it.
      const unstored = defects.has('ws-info-not-stored');
      const item = advanceTake(ctx.db, takeId, 'ready', {
        ...(unstored ? {} : { info }),
        worker: ctx.workerId,
      });
      const ready = item ? changed(item) : takeNow(takeId);
      return unstored ? { ...ready, info } : ready;
    },

    async failTake(takeId, reason) {
      const item = advanceTake(ctx.db, takeId, 'error', { error: reason, worker: ctx.workerId });
      if (item) return changed(item);
      const row = getTakeRow(ctx.db, takeId);
      return row ? takeResource(row) : undefined;
    },

    async getVoice(voiceId) {
      const row = getVoiceRow(ctx.db, voiceId);
      return row ? voiceResource(row) : undefined;
    },
  };
}
