/** GET /v1/speak/version, without a token: `{"version": 1, "minor": N}`. */
import type { FastifyInstance } from 'fastify';

export const API_VERSION = { version: 1, minor: 0 } as const;

export async function versionPlugin(app: FastifyInstance): Promise<void> {
  app.get('/v1/speak/version', { schema: { response: {} } }, async () => API_VERSION);
}
