/** GET /v1/speak/version, without a token: `{"version": 1, "minor": N}`. */

import type { FastifyInstance } from 'fastify';
import { neverAnswer } from '../../defects/hang.ts';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { ApiError } from '../errors.ts';
import { json, MALFORMED, NO_AUTH, ref } from '../openapi-parts.ts';

export const API_VERSION = { version: 1, minor: 0 } as const;

export async function versionPlugin(app: FastifyInstance): Promise<void> {
  // Latitude version-at-root: "A `/version` endpoint exists ... Its full path ...: not shown."
  const path = latitude.has('version-at-root') ? '/version' : '/v1/speak/version';
  const schema = {
    operationId: 'getVersion',
    tags: ['meta'],
    summary: 'Interface version',
    security: NO_AUTH,
    responses: { '200': json(ref('Version')), ...MALFORMED },
  };
  app.get(path, { schema }, async (request, reply) => {
    // Defect version-hangs: the preflight's first question never answers.
    if (defects.has('version-hangs')) return neverAnswer(reply);
    if (defects.has('version-needs-token') && request.headers.authorization === undefined) {
      throw new ApiError(401, 'missing Authorization header');
    }
    if (defects.has('version-string')) return { version: '1.0' };
    // Defect version-major-2: the release counter of the service, not the interface's major, as version.
    if (defects.has('version-major-2')) return { ...API_VERSION, version: 2 };
    // Latitude version-major-minor-names: the numbers named major and minor ("response shape: not shown").
    const numbers = latitude.has('version-major-minor-names')
      ? { major: API_VERSION.version, minor: API_VERSION.minor }
      : API_VERSION;
    return latitude.has('version-extra-fields')
      ? { ...numbers, build: '2026.11.24', commit: 'speakcheck-reference' }
      : numbers;
  });
}
