/** GET /v1/speak/models and /v1/speak/models/{name} (a voice's version name finds its model too). */

import type { FastifyInstance } from 'fastify';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { findModel, MODELS, type ModelEntry, modelResource } from '../../models/catalogue.ts';
import { ApiError } from '../errors.ts';
import { AUTH, error, json, MALFORMED, MODEL_NAME_PARAMETER, ref } from '../openapi-parts.ts';
import { stringParams } from '../route-schema.ts';

/**
 * A model as answered. Defect simple-prosody-unlisted: prosody_types lists only the types a model
 * adds to simple (which every model has).
 */
function shownModel(model: ModelEntry): Record<string, unknown> {
  const shown = modelResource(model);
  if (!defects.has('simple-prosody-unlisted')) return shown;
  return { ...shown, prosody_types: model.prosody_types.filter((type) => type !== 'simple') };
}

export async function modelsPlugin(app: FastifyInstance): Promise<void> {
  const list = {
    operationId: 'listModels',
    tags: ['models'],
    summary: 'List models',
    responses: { '200': json(ref('ModelList')), ...MALFORMED, ...AUTH },
  };
  app.get('/v1/speak/models', { schema: list }, async (_request, reply) =>
    // Defect models-hangs: the model list (the preflight's question) never answers.
    defects.has('models-hangs') ? neverAnswer(reply) : MODELS.map(shownModel),
  );
  const one = {
    operationId: 'getModel',
    tags: ['models'],
    summary: 'One model (by its name, or by the version name a voice carries)',
    params: stringParams({ name: 'Model name' }),
    documented: { parameters: { name: MODEL_NAME_PARAMETER } },
    responses: { '200': json(ref('Model')), ...MALFORMED, ...AUTH, '404': error('Unknown model') },
  };
  app.get<{ Params: { name: string } }>('/v1/speak/models/:name', { schema: one }, async (request) => {
    const { name } = request.params;
    const model = findModel(name);
    if (!model) throw new ApiError(404, `model ${JSON.stringify(name)} not found`);
    const shown = shownModel(model);
    // Defect model-get-no-displayname: one model is answered by a summary serializer without displayname.
    if (defects.has('model-get-no-displayname')) delete shown.displayname;
    return defects.has('model-get-array') ? [shown] : shown;
  });
}
