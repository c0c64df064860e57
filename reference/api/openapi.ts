/**
 * The OpenAPI 3.1 document, generated from schemas/ (components.schemas = the schema files, their
 * `$ref`s rewritten to `#/components/schemas/...`) and declaring every path of the contract and of
 * the wire facts. OpenAPI 3.1 uses JSON Schema 2020-12, so the schemas go in unchanged otherwise.
 *
 * It states exactly what this server accepts and answers, so that fuzzers and client generators
 * built from it are right (issue 17, CI stage scripts/schemathesis-stage.sh):
 * - list parameters come from schemas/ListQuery.schema.json, the bounds store/list-query.ts enforces;
 * - the voice generation body is narrowed per model from models/catalogue.ts (the model rules of
 *   api/generation-rules.ts: genders, styles, prosody types, languages, text with something to speak);
 * - every status an operation can give is declared with the Error body (400 malformed request,
 *   401 bearer, 413/415 body, 422 invalid, 404 unknown id, 409, 503);
 * - links from login to refresh/logout and from voice/take generation to the operations that use
 *   the returned ids, so stateful testing reaches every operation.
 * Undeclared methods on a declared path answer 405 with `Allow` (api/method-not-allowed.ts).
 */
import { schemas } from '../../schemas/index.ts';
import { MODELS, type ModelEntry, modelStyles } from '../models/catalogue.ts';
import { SPEAKABLE_TEXT_PATTERN } from './generation-rules.ts';
import { API_VERSION } from './plugins/version.ts';

type Json = Record<string, unknown>;

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === '$ref' && typeof inner === 'string' && inner.endsWith('.json')) {
      out.$ref = `#/components/schemas/${inner.slice(0, -'.json'.length)}`;
    } else out[key] = rewriteRefs(inner);
  }
  return out;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
});
const error = (description: string) => json(ref('Error'), description);
/** Any request: a URL that is not valid percent-encoding (or a malformed JSON body) is a 400. */
const MALFORMED = { '400': error('Malformed request: invalid percent-encoding or malformed JSON body') };
const AUTH = { '401': error('Missing, invalid or expired access token') };
const INVALID = { '422': error('Invalid request (the detail names the field)') };
/** What an operation with a JSON body can answer about the body itself. */
const BODY_ERRORS = {
  ...MALFORMED,
  '413': error('Body larger than 1 MiB'),
  '415': error('Content type other than application/json'),
  ...INVALID,
};
const FIRST_MODEL = MODELS[0]!;
/** Placeholder ids of the examples: well-formed, unknown to any server (so 404). */
const EXAMPLE_VOICE_ID = 'vc_00000000000000000000';
const EXAMPLE_TAKE_ID = 'tk_00000000000000000000';
const pathParam = (
  name: string,
  description: string,
  example: string,
  schema: Json = { type: 'string', minLength: 1 },
) => ({ name, in: 'path', required: true, description, schema, example });

const LIST_EXAMPLES: Record<string, unknown> = {
  voice_id: EXAMPLE_VOICE_ID,
  take_id: EXAMPLE_TAKE_ID,
  length: 10,
  page: 1,
  older: 4102444800000,
  newer: 0,
};

/** The list query parameters, from schemas/ListQuery.schema.json (what store/list-query.ts enforces). */
function listParams(idName: 'voice_id' | 'take_id'): Json[] {
  const properties = schemas.ListQuery!.properties as Record<string, Json>;
  return [idName, 'length', 'page', 'older', 'newer'].map((name) => {
    const { description, ...schema } = properties[name]!;
    return { name, in: 'query', description, schema, example: LIST_EXAMPLES[name] };
  });
}

/** A JSON request body with one example (Schemathesis' examples phase sends it as is). */
const body = (schema: unknown, example: unknown, required = true) => ({
  required,
  content: { 'application/json': { schema, example } },
});
const redirect = {
  description: 'Redirect to a signed URL (X-Amz-Signature) serving the audio; no Authorization there.',
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
};
const LIST_ORDER = 'Order: timestamp_ms descending (newest first), then id descending.';

/** Every name a model is found by (its public name and the version name its voices carry). */
const MODEL_NAMES = [...new Set(MODELS.flatMap((m) => [m.name, m.versionName]))];
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
function voiceGenerateForModels(): Json {
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
function takeGenerateForModels(): Json {
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
const VOICE_LINKS = {
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
const AUDIO_FORMATS = ['wav', 'mp3', 'm4a', 'flac', 'webm'] as const;
const TAKE_LINKS = {
  GetTake: byId('getTake', 'take_id', '$response.body#/take_id'),
  DeleteTake: byId('deleteTake', 'take_id', '$response.body#/take_id'),
  ListTakes: byId('listTakes', 'take_id', '$response.body#/take_id'),
  GetVoiceOfTake: byId('getVoice', 'voice_id', '$response.body#/voice_id'),
  ...Object.fromEntries(
    AUDIO_FORMATS.map((f) => [
      `GetAudio${f}`,
      byId(`getTakeAudio${f}`, 'take_id', '$response.body#/take_id'),
    ]),
  ),
};
const SESSION_LINKS = {
  Refresh: { operationId: 'refresh', requestBody: { refresh_token: '$response.body#/refresh_token' } },
  Logout: { operationId: 'logout', requestBody: { refresh_token: '$response.body#/refresh_token' } },
};
const withLinks = (response: Json, links: Json) => ({ ...response, links });

export function buildOpenApi(): Json {
  const components: Json = {};
  for (const [name, schema] of Object.entries(schemas)) components[name] = rewriteRefs(schema);
  components.VoiceGenerateForModels = voiceGenerateForModels();
  components.TakeGenerateForModels = takeGenerateForModels();
  components.TakeGenerateBatchForModels = {
    ...(components.TakeGenerateBatch as Json),
    items: ref('TakeGenerateForModels'),
  };
  const noAuth = { security: [] };
  const modelName = { type: 'string', enum: MODEL_NAMES };
  const takeId = pathParam('take_id', 'The take', EXAMPLE_TAKE_ID);
  const voiceId = pathParam('voice_id', 'The voice', EXAMPLE_VOICE_ID);
  const audioPaths: Json = {};
  for (const format of AUDIO_FORMATS) {
    audioPaths[`/v1/speak/takes/{take_id}/${format}`] = {
      get: {
        operationId: `getTakeAudio${format}`,
        tags: ['audio'],
        summary: `Audio of a take as ${format}`,
        description:
          format === 'wav'
            ? 'Available before ready: the signed URL streams the wav while it is generated.'
            : 'Only when the take is ready; before that 409.',
        parameters: [takeId],
        responses: {
          '307': redirect,
          ...MALFORMED,
          ...AUTH,
          '404': error('Unknown take'),
          '409': error('Not available yet, or the take ended in error/timeout'),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Speak v1 (speakcheck reference stack)',
      version: `${API_VERSION.version}.${API_VERSION.minor}`,
      description:
        'Text-to-speech: models, voices and takes, token authentication, signed audio URLs. Every error is JSON with `detail`. A declared path asked with an undeclared method answers 405 with `Allow`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'auth' },
      { name: 'models' },
      { name: 'voices' },
      { name: 'takes' },
      { name: 'audio' },
      { name: 'meta' },
    ],
    paths: {
      '/auth/login': {
        post: {
          operationId: 'login',
          tags: ['auth'],
          summary: 'Log in',
          description: 'The access token is the bearer of every other operation (security scheme `bearer`).',
          ...noAuth,
          requestBody: body(ref('LoginRequest'), {
            email: 'demo@speakcheck.local',
            password: 'not-the-password',
          }),
          responses: {
            '200': withLinks(json(ref('TokenPair')), SESSION_LINKS),
            ...BODY_ERRORS,
            '401': error('Bad credentials'),
          },
        },
      },
      '/auth/refresh': {
        post: {
          operationId: 'refresh',
          tags: ['auth'],
          summary: 'New token pair for a refresh token (the used one stops working)',
          description: 'The refresh token comes from the body or, without one, from `Authorization: Bearer`.',
          ...noAuth,
          requestBody: body(ref('RefreshRequest'), { refresh_token: 'rt_unknown' }, false),
          responses: {
            '200': withLinks(json(ref('TokenPair')), SESSION_LINKS),
            ...BODY_ERRORS,
            '401': error('Unknown, revoked or used refresh token'),
          },
        },
      },
      '/auth/logout': {
        post: {
          operationId: 'logout',
          tags: ['auth'],
          summary: 'Revoke a refresh token',
          description: 'The refresh token comes from the body or, without one, from `Authorization: Bearer`.',
          ...noAuth,
          requestBody: body(ref('LogoutRequest'), { refresh_token: 'rt_unknown' }, false),
          responses: {
            '200': json(ref('TrueLiteral')),
            ...BODY_ERRORS,
            '401': error('Unknown or revoked refresh token'),
          },
        },
      },
      '/v1/speak/version': {
        get: {
          operationId: 'getVersion',
          tags: ['meta'],
          summary: 'Interface version',
          ...noAuth,
          responses: { '200': json(ref('Version')), ...MALFORMED },
        },
      },
      '/v1/speak/models': {
        get: {
          operationId: 'listModels',
          tags: ['models'],
          summary: 'List models',
          responses: { '200': json(ref('ModelList')), ...MALFORMED, ...AUTH },
        },
      },
      '/v1/speak/models/{name}': {
        get: {
          operationId: 'getModel',
          tags: ['models'],
          summary: 'One model (by its name, or by the version name a voice carries)',
          parameters: [pathParam('name', 'Model name', FIRST_MODEL.name, modelName)],
          responses: { '200': json(ref('Model')), ...MALFORMED, ...AUTH, '404': error('Unknown model') },
        },
      },
      '/v1/speak/voices': {
        get: {
          operationId: 'listVoices',
          tags: ['voices'],
          summary: 'List voices',
          description: LIST_ORDER,
          parameters: listParams('voice_id'),
          responses: { '200': json(ref('VoiceList')), ...MALFORMED, ...AUTH, ...INVALID },
        },
      },
      '/v1/speak/voices/generate': {
        post: {
          operationId: 'generateVoice',
          tags: ['voices'],
          summary: 'Generate a voice (waiting; ready once its example take is)',
          requestBody: body(ref('VoiceGenerateForModels'), {
            name: 'Narrator',
            gender: FIRST_MODEL.genders[0],
            model: FIRST_MODEL.name,
            example_take: { text: 'Hello, this is my voice.' },
          }),
          responses: {
            '200': withLinks(json(ref('Voice')), VOICE_LINKS),
            ...BODY_ERRORS,
            ...AUTH,
          },
        },
      },
      '/v1/speak/voices/{voice_id}': {
        get: {
          operationId: 'getVoice',
          tags: ['voices'],
          summary: 'One voice',
          parameters: [voiceId],
          responses: { '200': json(ref('Voice')), ...MALFORMED, ...AUTH, '404': error('Unknown voice') },
        },
        post: {
          operationId: 'updateVoice',
          tags: ['voices'],
          summary: "Update a voice (partial; gender, prosody and style must suit the voice's model)",
          parameters: [voiceId],
          requestBody: body(ref('VoiceUpdate'), { name: 'Renamed' }),
          responses: {
            '200': json(ref('TrueLiteral')),
            ...BODY_ERRORS,
            ...AUTH,
            '404': error('Unknown voice'),
          },
        },
        delete: {
          operationId: 'deleteVoice',
          tags: ['voices'],
          summary: 'Delete a voice',
          parameters: [voiceId],
          responses: {
            '200': json(ref('TrueLiteral')),
            ...MALFORMED,
            ...AUTH,
            '404': error('Unknown voice'),
          },
        },
      },
      '/v1/speak/takes': {
        get: {
          operationId: 'listTakes',
          tags: ['takes'],
          summary: 'List takes',
          description: LIST_ORDER,
          parameters: listParams('take_id'),
          responses: { '200': json(ref('TakeList')), ...MALFORMED, ...AUTH, ...INVALID },
        },
      },
      '/v1/speak/takes/generate': {
        post: {
          operationId: 'generateTake',
          tags: ['takes'],
          summary: 'Generate a take, or a batch (array → array in the same order)',
          description:
            "An unknown voice_id is a 404, prosody, style or override_language the voice's model does not offer a 422, each naming the field.",
          requestBody: body(
            { anyOf: [ref('TakeGenerateForModels'), ref('TakeGenerateBatchForModels')] },
            { voice_id: EXAMPLE_VOICE_ID, text: 'Hello there.' },
          ),
          responses: {
            '200': withLinks(json(ref('TakeGenerateResult')), TAKE_LINKS),
            ...BODY_ERRORS,
            ...AUTH,
            '404': error('Unknown voice_id (the detail names the field)'),
          },
        },
      },
      '/v1/speak/takes/{take_id}': {
        get: {
          operationId: 'getTake',
          tags: ['takes'],
          summary: 'One take',
          parameters: [takeId],
          responses: { '200': json(ref('Take')), ...MALFORMED, ...AUTH, '404': error('Unknown take') },
        },
        delete: {
          operationId: 'deleteTake',
          tags: ['takes'],
          summary: 'Delete a take',
          parameters: [takeId],
          responses: { '200': json(ref('TrueLiteral')), ...MALFORMED, ...AUTH, '404': error('Unknown take') },
        },
      },
      ...audioPaths,
      '/v1/speak/websocket': {
        get: {
          operationId: 'getWebsocketUrl',
          tags: ['meta'],
          summary: 'Address of a worker websocket for a model',
          parameters: [
            { name: 'model', in: 'query', required: true, schema: modelName, example: FIRST_MODEL.name },
          ],
          responses: {
            '200': json(ref('WebsocketUrl')),
            ...MALFORMED,
            ...AUTH,
            '404': error('Unknown model'),
            ...INVALID,
            '503': error('No live worker holds the model yet; try again shortly'),
          },
        },
      },
      '/v1/speak/websocket/{model}': {
        get: {
          operationId: 'getWorkerWebsocketUrl',
          tags: ['meta'],
          summary: "Address of a worker websocket for a model (the SDK's form)",
          parameters: [pathParam('model', 'Model name', FIRST_MODEL.name, modelName)],
          responses: {
            '200': json(ref('WorkerWebsocketUrl')),
            ...MALFORMED,
            ...AUTH,
            '404': error('Unknown model'),
            '503': error('No live worker holds the model yet; try again shortly'),
          },
        },
      },
    },
    components: {
      schemas: components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The access_token of POST /auth/login (or a permanent token).',
        },
      },
    },
  };
}

export const AUDIO_FORMAT_NAMES = ['wav', 'mp3', 'm4a', 'flac', 'webm'] as const;

/**
 * The five audio paths declared as one templated `/v1/speak/takes/{take_id}/{format}` whose
 * `format` enumerates `formats` (valid OpenAPI declaring the same operations; latitude
 * templated-audio-path uses all five, defect openapi-format-enum-incomplete leaves one out).
 */
export function templateAudioPaths(document: Json, formats: readonly string[]): void {
  const paths = document.paths as Json;
  const wav = paths['/v1/speak/takes/{take_id}/wav'] as { get: Json };
  for (const format of AUDIO_FORMAT_NAMES) delete paths[`/v1/speak/takes/{take_id}/${format}`];
  paths['/v1/speak/takes/{take_id}/{format}'] = {
    get: {
      ...wav.get,
      summary: 'Audio of a take in one format',
      description: 'wav is available before ready (streamed while generated); the other formats once ready.',
      parameters: [
        pathParam('take_id', 'The take', EXAMPLE_TAKE_ID),
        {
          name: 'format',
          in: 'path',
          required: true,
          schema: { type: 'string', enum: [...formats] },
          example: formats[0],
        },
      ],
    },
  };
}
