/** GET /v1/speak/models and /v1/speak/models/{name} (a voice's version name finds its model too). */

import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { findModel, MODELS, modelResource } from '../../models/catalogue.ts';
import { ApiError } from '../errors.ts';

export async function modelsPlugin(app: FastifyInstance): Promise<void> {
  app.get('/v1/speak/models', async () => MODELS.map(modelResource));
  app.get('/v1/speak/models/:name', async (request) => {
    const { name } = request.params as { name: string };
    const model = findModel(name);
    if (!model) throw new ApiError(404, `model ${JSON.stringify(name)} not found`);
    return defects.has('model-get-array') ? [modelResource(model)] : modelResource(model);
  });
}
