/**
 * The OpenAPI vocabulary the routes declare their operations with (api/route-schema.ts): the error
 * responses, the links between operations, the parameter examples and the request bodies narrowed
 * per model. api/openapi.ts assembles the document from the routes.
 *
 * It states exactly what this server accepts and answers, so that fuzzers and client generators
 * built from the document are right (issue 17, CI stage scripts/schemathesis-stage.sh):
 * - list parameters come from schemas/ListQuery.schema.json, the bounds store/list-query.ts enforces;
 * - the voice generation body is narrowed per model from models/catalogue.ts (the model rules of
 *   api/generation-rules.ts: genders, styles, prosody types, languages, text with something to speak);
 * - every status an operation can give is declared with the Error body (400 malformed request,
 *   401 bearer, 413/415 body, 422 invalid, 404 unknown id, 409, 503);
 * - links from login to refresh/logout and from voice/take generation to the operations that use
 *   the returned ids, so stateful testing reaches every operation.
 */
import { AUDIO_FORMATS, type AudioFormat } from '../audio/formats.ts';
import { MODELS, type ModelEntry, modelStyles } from '../models/catalogue.ts';
import { SPEAKABLE_TEXT_PATTERN } from './generation-rules.ts';
import type { Json } from './route-schema.ts';

export const AUDIO_FORMAT_NAMES = Object.keys(AUDIO_FORMATS) as readonly AudioFormat[];

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: unknown, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
});
export const error = (description: string) => json(ref('Error'), description);
/** Any request: a URL that is not valid percent-encoding (or a malformed JSON body) is a 400. */
export const MALFORMED = {
  '400': error('Malformed request: invalid percent-encoding or malformed JSON body'),
};
export const AUTH = { '401': error('Missing, invalid or expired access token') };
export const INVALID = { '422': error('Invalid request (the detail names the field)') };
/** What an operation with a JSON body can answer about the body itself. */
export const BODY_ERRORS = {
  ...MALFORMED,
  '413': error('Body larger than 1 MiB'),
  '415': error('Content type other than application/json'),
  ...INVALID,
};
export const FIRST_MODEL = MODELS[0]!;
/** Placeholder ids of the examples: well-formed, unknown to any server (so 404). */
export const EXAMPLE_VOICE_ID = 'vc_00000000000000000000';
export const EXAMPLE_TAKE_ID = 'tk_00000000000000000000';

/** Examples of the list query parameters. */
export const LIST_EXAMPLES = {
  voice_id: { example: EXAMPLE_VOICE_ID },
  take_id: { example: EXAMPLE_TAKE_ID },
  length: { example: 10 },
  page: { example: 1 },
  older: { example: 4102444800000 },
  newer: { example: 0 },
};

export const redirect = {
  description: 'Redirect to a signed URL (X-Amz-Signature) serving the audio; no Authorization there.',
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
};
export const LIST_ORDER = 'Order: timestamp_ms descending (newest first), then id descending.';

/** Every name a model is found by (its public name and the version name its voices carry). */
const MODEL_NAMES = [...new Set(MODELS.flatMap((m) => [m.name, m.versionName]))];
/** A model name parameter in the document: one of the catalogue's (the route answers 404 for others). */
export const MODEL_NAME_PARAMETER = {
  schema: { type: 'string', enum: MODEL_NAMES },
  example: FIRST_MODEL.name,
};

const PROSODY_SCHEMA: Record<string, string> = {
  simple: 'SimpleProsody',
  affect: 'AffectProsody',
  signal: 'SignalProsody',
};
const nullOr = (schema: Json) => ({ anyOf: [{ type: 'null' }, schema] });

/** The body rules of one model (api/generation-rules.ts), as schema properties. */
function modelRules(model: ModelEntry): { prosody: Json; style: Json; language: Json } {
  const styles = [...modelStyles(model)];
  return {
    prosody: nullOr({ anyOf: model.prosody_types.map((type) => ref(PROSODY_SCHEMA[type]!)) }),
    style: nullOr(
      styles.length > 0 ? { type: 'array', items: { enum: styles } } : { type: 'array', maxItems: 0 },
    ),
    language: nullOr({ enum: model.languages }),
  };
}

/**
 * VoiceGenerate as this server accepts it: one alternative per model (its public name), each with
 * the model's genders, prosody types, styles and languages; the example take's text must have
 * something to speak.
 */
export function voiceGenerateForModels(): Json {
  return {
    oneOf: MODELS.map((model) => {
      const rules = modelRules(model);
      return {
        allOf: [
          ref('VoiceGenerate'),
          {
            type: 'object',
            properties: {
              model: { const: model.name },
              gender: { enum: model.genders },
              default_prosody: rules.prosody,
              default_style: rules.style,
              example_take: nullOr({
                type: 'object',
                properties: {
                  text: { type: 'string', pattern: SPEAKABLE_TEXT_PATTERN },
                  prosody: rules.prosody,
                  style: rules.style,
                  override_language: rules.language,
                },
              }),
            },
          },
        ],
      };
    }),
  };
}

/**
 * TakeGenerate as this server accepts it whatever the voice: text with something to speak, and
 * prosody types, styles and languages some model offers. Which of those the voice's own model
 * offers the body cannot show (the operation's description says so).
 */
export function takeGenerateForModels(): Json {
  const styles = [...new Set(MODELS.flatMap((m) => [...modelStyles(m)]))];
  const types = [...new Set(MODELS.flatMap((m) => m.prosody_types))];
  return {
    allOf: [
      ref('TakeGenerate'),
      {
        type: 'object',
        properties: {
          text: { type: 'string', pattern: SPEAKABLE_TEXT_PATTERN },
          prosody: nullOr({ anyOf: types.map((type) => ref(PROSODY_SCHEMA[type]!)) }),
          style: nullOr(
            styles.length > 0 ? { type: 'array', items: { enum: styles } } : { type: 'array', maxItems: 0 },
          ),
          override_language: nullOr({ enum: [...new Set(MODELS.flatMap((m) => m.languages))] }),
        },
      },
    ],
  };
}

/** OpenAPI links: where the ids an answer carries are used (Schemathesis' stateful phase follows them). */
const byId = (operationId: string, parameter: string, from: string) => ({
  operationId,
  parameters: { [parameter]: from },
});
export const VOICE_LINKS = {
  GetVoice: byId('getVoice', 'voice_id', '$response.body#/voice_id'),
  UpdateVoice: byId('updateVoice', 'voice_id', '$response.body#/voice_id'),
  DeleteVoice: byId('deleteVoice', 'voice_id', '$response.body#/voice_id'),
  ListVoices: byId('listVoices', 'voice_id', '$response.body#/voice_id'),
  GetExampleTake: byId('getTake', 'take_id', '$response.body#/example_take_id'),
  GenerateTake: {
    operationId: 'generateTake',
    requestBody: { voice_id: '$response.body#/voice_id', text: 'Hello.' },
  },
};
/** The operation of a take's audio in one format (the audio route declares one per format). */
export const audioOperationId = (format: string) => `getTakeAudio${format}`;

export const TAKE_LINKS = {
  GetTake: byId('getTake', 'take_id', '$response.body#/take_id'),
  DeleteTake: byId('deleteTake', 'take_id', '$response.body#/take_id'),
  ListTakes: byId('listTakes', 'take_id', '$response.body#/take_id'),
  GetVoiceOfTake: byId('getVoice', 'voice_id', '$response.body#/voice_id'),
  ...Object.fromEntries(
    AUDIO_FORMAT_NAMES.map((f) => [
      `GetAudio${f}`,
      byId(audioOperationId(f), 'take_id', '$response.body#/take_id'),
    ]),
  ),
};
export const SESSION_LINKS = {
  Refresh: { operationId: 'refresh', requestBody: { refresh_token: '$response.body#/refresh_token' } },
  Logout: { operationId: 'logout', requestBody: { refresh_token: '$response.body#/refresh_token' } },
};
export const withLinks = (response: Json, links: Json) => ({ ...response, links });
/** The operation is public: no bearer token. */
export const NO_AUTH: Array<Record<string, string[]>> = [];
