/** GET /v1/speak/version, without a token: `{"version": 1, "minor": N}`. */

import type { FastifyInstance } from 'fastify';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { ApiError } from '../errors.ts';

export const API_VERSION = { version: 1, minor: 0 } as const;

export async function versionPlugin(app: FastifyInstance): Promise<void> {
  app.get('/v1/speak/version', { schema: { response: {} } }, async (request) => {
    if (defects.has('version-needs-token') && request.headers.authorization === undefined) {
      throw new ApiError(401, 'missing Authorization header');
    }
    if (defects.has('version-string')) return { version: '1.0' };
    return latitude.has('version-extra-fields')
      ? { ...API_VERSION, build: '2026.11.24', commit: 'speakcheck-reference' }
      : API_VERSION;
  });
}
