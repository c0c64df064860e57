/**
 * Voice generation, shared by the REST voices plugin (api/plugins/voices.ts) and the worker
 * websocket (worker/websocket/store-service.ts): the model rules of a VoiceGenerate body, the voice
 * and its example take, and storing both in `waiting` with their creation events. What differs
 * stays with the callers: REST queues the example take's job, a websocket worker speaks it itself
 * and only takes voices of its connection's model.
 */
import type { Database } from 'better-sqlite3';
import { sharedAjv } from '../../schemas/index.ts';
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { findModel, MODELS, versionNameOf } from '../models/catalogue.ts';
import { newId } from '../store/ids.ts';
import { insertTake, type NewTake, type TakeResource } from '../store/takes.ts';
import { insertVoice, type NewVoice, type VoiceResource } from '../store/voices.ts';
import { ApiError, describeAjvErrors } from './errors.ts';
import { checkGender, checkLanguage, checkProsody, checkStyle } from './generation-rules.ts';
import { buildTake, completedProsody, type TakeGenerateBody } from './take-builder.ts';

/** A VoiceGenerate body that passed its schema (schemas/VoiceGenerate.schema.json). */
export interface VoiceGenerateBody {
  name: string;
  gender: string;
  model: string;
  default_prosody?: Record<string, number> | null;
  default_style?: string[] | null;
  description?: string | null;
  example_take?: (Omit<TakeGenerateBody, 'voice_id' | 'text'> & { text?: string }) | null;
  status_webhook?: unknown;
  done_webhook?: unknown;
}

/** What the example take says when the body gives no text. */
export const DEFAULT_EXAMPLE_TEXT = 'Hello! This is how I sound. I hope you like my voice.';

export interface BuiltVoice {
  voice: NewVoice;
  exampleTake: NewTake;
}

/**
 * Checks `body` against its model's rules and builds the voice (its `model` is the model's version
 * name) and its example take, not stored yet. `where` prefixes error pointers (`body` for REST,
 * `data` for a websocket request); `connectionModel`, when given, is the only model allowed.
 * Throws ApiError(422) naming the field.
 */
export function buildVoice(
  userId: string,
  body: VoiceGenerateBody,
  where: string,
  o: { timestampMs: number; connectionModel?: string },
): BuiltVoice {
  const model = findModel(body.model);
  // Any name the catalogue knows (public, version or alias): vendor code passes a voice's `model` back.
  if (!model) {
    throw new ApiError(
      422,
      `${where}/model: unknown model ${JSON.stringify(body.model)} (known: ${MODELS.map((m) => m.name).join(', ')})`,
    );
  }
  if (o.connectionModel !== undefined && model.name !== o.connectionModel) {
    throw new ApiError(
      422,
      `${where}/model: this connection is for model ${o.connectionModel}, not ${body.model}`,
    );
  }
  // Defect gender-stored-as-sent: a gender outside the model's (and the contract's) passes as sent.
  if (!defects.has('gender-stored-as-sent')) checkGender(model, body.gender, `${where}/gender`);
  // Defect nonbinary-refused: the gender check knows female and male only.
  if (body.gender === 'nonbinary' && defects.has('nonbinary-refused'))
    throw new ApiError(422, `${where}/gender: must be "female" or "male"`);
  checkProsody(model, body.default_prosody, `${where}/default_prosody`);
  checkStyle(model, body.default_style, `${where}/default_style`);
  const example = body.example_take ?? {};
  checkExampleWebhook(example.status_webhook, `${where}/example_take/status_webhook`);
  checkExampleWebhook(example.done_webhook, `${where}/example_take/done_webhook`);
  checkLanguage(model, example.override_language, `${where}/example_take/override_language`);
  const voiceId = newId('vc');
  const rendering = {
    voice_id: voiceId,
    model: versionNameOf(model),
    gender: body.gender,
    default_prosody: completedProsody(model, body.default_prosody ?? null),
    // Latitude default-style-empty: "Returned as an empty array or null when not set."
    default_style: body.default_style ?? (latitude.has('default-style-empty') ? [] : null),
  };
  const exampleTake = buildTake(
    userId,
    rendering,
    { ...example, text: example.text ?? DEFAULT_EXAMPLE_TEXT },
    `${where}/example_take`,
    { timestampMs: o.timestampMs, exampleOf: voiceId },
  );
  return {
    voice: {
      ...rendering,
      user_id: userId,
      name: body.name,
      description: body.description ?? null,
      example_take_id: exampleTake.take_id,
      status_webhook: body.status_webhook ?? null,
      done_webhook: body.done_webhook ?? null,
      timestamp_ms: o.timestampMs,
    },
    exampleTake,
  };
}

/**
 * The example take's own webhooks are checked as a take's are (TakeGenerate: NullableWebhook), as
 * they are stored and served on the take. Here rather than in schemas/VoiceGenerate.schema.json:
 * the contract does not show example_take's shape, so the shared schema lists no more of it.
 */
function checkExampleWebhook(value: unknown, field: string): void {
  if (value === undefined) return;
  const check = sharedAjv().getSchema('NullableWebhook.json')!;
  if (!check(value)) throw new ApiError(422, describeAjvErrors(check.errors, field));
}

/**
 * Stores a built voice and its example take in `waiting`, with their creation events, in one
 * transaction; `alsoInTransaction` runs in it too (REST queues the example take's job there).
 */
export function insertVoiceWithExample(
  db: Database,
  built: BuiltVoice,
  alsoInTransaction: (take: NewTake) => void = () => {},
): { voice: VoiceResource; exampleTake: TakeResource } {
  return db
    .transaction(() => {
      const voice = insertVoice(db, built.voice);
      const exampleTake = insertTake(db, built.exampleTake);
      alsoInTransaction(built.exampleTake);
      return { voice, exampleTake };
    })
    .immediate();
}
