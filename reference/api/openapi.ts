/**
 * The OpenAPI 3.1 document, generated from schemas/ (components.schemas = the schema files, their
 * `$ref`s rewritten to `#/components/schemas/...`) and declaring every path of the contract and of
 * the wire facts. OpenAPI 3.1 uses JSON Schema 2020-12, so the schemas go in unchanged otherwise.
 */
import { schemas } from '../../schemas/index.ts';
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
const COMMON_ERRORS = {
  '401': error('Missing, invalid or expired access token'),
  '422': error('Invalid request'),
};
const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});
const listParams = (idName: string) => [
  {
    name: idName,
    in: 'query',
    description: 'Comma-separated identifiers: return only these.',
    schema: { type: 'string' },
  },
  {
    name: 'length',
    in: 'query',
    description: 'Page size; absent = unlimited.',
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'page',
    in: 'query',
    description: 'Page number, from 1 (default 1).',
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'older',
    in: 'query',
    description: 'Only items with timestamp_ms <= this.',
    schema: { type: 'integer' },
  },
  {
    name: 'newer',
    in: 'query',
    description: 'Only items with timestamp_ms >= this.',
    schema: { type: 'integer' },
  },
];
const body = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const redirect = {
  description: 'Redirect to a signed URL (X-Amz-Signature) serving the audio; no Authorization there.',
  headers: { Location: { schema: { type: 'string', format: 'uri' } } },
};
const LIST_ORDER = 'Order: timestamp_ms descending (newest first), then id descending.';

export function buildOpenApi(): Json {
  const components: Json = {};
  for (const [name, schema] of Object.entries(schemas)) components[name] = rewriteRefs(schema);
  const noAuth = { security: [] };
  const audioPaths: Json = {};
  for (const format of ['wav', 'mp3', 'm4a', 'flac', 'webm']) {
    audioPaths[`/v1/speak/takes/{take_id}/${format}`] = {
      get: {
        tags: ['audio'],
        summary: `Audio of a take as ${format}`,
        description:
          format === 'wav'
            ? 'Available before ready: the signed URL streams the wav while it is generated.'
            : 'Only when the take is ready; before that 409.',
        parameters: [pathParam('take_id', 'The take')],
        responses: {
          '307': redirect,
          '404': error('Unknown take'),
          '409': error('Not available yet'),
          ...COMMON_ERRORS,
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
        'Text-to-speech: models, voices and takes, token authentication, signed audio URLs. Every error is JSON with `detail`.',
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
          tags: ['auth'],
          summary: 'Log in',
          ...noAuth,
          requestBody: body(ref('LoginRequest')),
          responses: {
            '200': json(ref('TokenPair')),
            '401': error('Bad credentials'),
            '422': error('Invalid body'),
          },
        },
      },
      '/auth/refresh': {
        post: {
          tags: ['auth'],
          summary: 'New token pair for a refresh token (the used one stops working)',
          ...noAuth,
          requestBody: body(ref('RefreshRequest')),
          responses: {
            '200': json(ref('TokenPair')),
            '401': error('Unknown, revoked or used refresh token'),
          },
        },
      },
      '/auth/logout': {
        post: {
          tags: ['auth'],
          summary: 'Revoke a refresh token',
          ...noAuth,
          requestBody: body(ref('LogoutRequest')),
          responses: { '200': json(ref('TrueLiteral')), '401': error('Unknown or revoked refresh token') },
        },
      },
      '/v1/speak/version': {
        get: {
          tags: ['meta'],
          summary: 'Interface version',
          ...noAuth,
          responses: { '200': json(ref('Version')) },
        },
      },
      '/v1/speak/models': {
        get: {
          tags: ['models'],
          summary: 'List models',
          responses: { '200': json(ref('ModelList')), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/models/{name}': {
        get: {
          tags: ['models'],
          summary: 'One model',
          parameters: [pathParam('name', 'Model name')],
          responses: { '200': json(ref('Model')), '404': error('Unknown model'), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/voices': {
        get: {
          tags: ['voices'],
          summary: 'List voices',
          description: LIST_ORDER,
          parameters: listParams('voice_id'),
          responses: { '200': json(ref('VoiceList')), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/voices/generate': {
        post: {
          tags: ['voices'],
          summary: 'Generate a voice (waiting; ready once its example take is)',
          requestBody: body(ref('VoiceGenerate')),
          responses: { '200': json(ref('Voice')), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/voices/{voice_id}': {
        get: {
          tags: ['voices'],
          summary: 'One voice',
          parameters: [pathParam('voice_id', 'The voice')],
          responses: { '200': json(ref('Voice')), '404': error('Unknown voice'), ...COMMON_ERRORS },
        },
        post: {
          tags: ['voices'],
          summary: 'Update a voice (partial)',
          parameters: [pathParam('voice_id', 'The voice')],
          requestBody: body(ref('VoiceUpdate')),
          responses: { '200': json(ref('TrueLiteral')), '404': error('Unknown voice'), ...COMMON_ERRORS },
        },
        delete: {
          tags: ['voices'],
          summary: 'Delete a voice',
          parameters: [pathParam('voice_id', 'The voice')],
          responses: { '200': json(ref('TrueLiteral')), '404': error('Unknown voice'), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/takes': {
        get: {
          tags: ['takes'],
          summary: 'List takes',
          description: LIST_ORDER,
          parameters: listParams('take_id'),
          responses: { '200': json(ref('TakeList')), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/takes/generate': {
        post: {
          tags: ['takes'],
          summary: 'Generate a take, or a batch (array → array in the same order)',
          requestBody: body({ anyOf: [ref('TakeGenerate'), ref('TakeGenerateBatch')] }),
          responses: { '200': json(ref('TakeGenerateResult')), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/takes/{take_id}': {
        get: {
          tags: ['takes'],
          summary: 'One take',
          parameters: [pathParam('take_id', 'The take')],
          responses: { '200': json(ref('Take')), '404': error('Unknown take'), ...COMMON_ERRORS },
        },
        delete: {
          tags: ['takes'],
          summary: 'Delete a take',
          parameters: [pathParam('take_id', 'The take')],
          responses: { '200': json(ref('TrueLiteral')), '404': error('Unknown take'), ...COMMON_ERRORS },
        },
      },
      ...audioPaths,
      '/v1/speak/websocket': {
        get: {
          tags: ['meta'],
          summary: 'Address of a worker websocket for a model',
          parameters: [{ name: 'model', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '200': json(ref('WebsocketUrl')), '404': error('Unknown model'), ...COMMON_ERRORS },
        },
      },
      '/v1/speak/websocket/{model}': {
        get: {
          tags: ['meta'],
          summary: "Address of a worker websocket for a model (the SDK's form)",
          parameters: [pathParam('model', 'Model name')],
          responses: {
            '200': json(ref('WorkerWebsocketUrl')),
            '404': error('Unknown model'),
            ...COMMON_ERRORS,
          },
        },
      },
    },
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
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
        pathParam('take_id', 'The take'),
        { name: 'format', in: 'path', required: true, schema: { type: 'string', enum: [...formats] } },
      ],
    },
  };
}
