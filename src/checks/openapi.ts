/**
 * The published machine-readable definition: a valid OpenAPI document (validated by
 * @seriousme/openapi-schema-validator) that declares every path of the contract.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Finding, show } from './finding.ts';

/** Every /v1/speak path of speak-v1.md's Endpoints, with the method the contract gives. */
export const CONTRACT_OPERATIONS: readonly { method: string; path: string }[] = [
  { method: 'get', path: '/v1/speak/models' },
  { method: 'get', path: '/v1/speak/models/{name}' },
  { method: 'get', path: '/v1/speak/voices' },
  { method: 'get', path: '/v1/speak/voices/{voice_id}' },
  { method: 'post', path: '/v1/speak/voices/generate' },
  { method: 'get', path: '/v1/speak/takes' },
  { method: 'get', path: '/v1/speak/takes/{take_id}' },
  { method: 'post', path: '/v1/speak/takes/generate' },
  ...['wav', 'mp3', 'm4a', 'flac', 'webm'].map((format) => ({
    method: 'get',
    path: `/v1/speak/takes/{take_id}/${format}`,
  })),
  { method: 'get', path: '/v1/speak/websocket' },
];

export const AUTH_OPERATIONS: readonly { method: string; path: string }[] = [
  { method: 'post', path: '/auth/login' },
  { method: 'post', path: '/auth/refresh' },
  { method: 'post', path: '/auth/logout' },
];

/** `/takes/{id}/wav` and `/takes/{take_id}/wav` are the same path: parameter names do not matter. */
function normalise(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '');
}

export async function assertValidOpenApi(document: unknown, where: string): Promise<string> {
  if (document === null || typeof document !== 'object') {
    throw new Finding(`${where}: the OpenAPI document is not a JSON object (${show(document)})`, { where });
  }
  const validator = new Validator();
  // The validator keeps the object it validates: give it a copy.
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
  if (!result.valid) {
    const errors = Array.isArray(result.errors) ? result.errors.slice(0, 3) : result.errors;
    throw new Finding(`${where}: not a valid OpenAPI document: ${show(errors, 600)}`, {
      where,
      actual: errors,
    });
  }
  return validator.version;
}

/** Operations of `expected` the document does not declare (path + method). */
export function missingOperations(
  document: { paths?: Record<string, Record<string, unknown>> },
  expected: readonly { method: string; path: string }[],
  basePath = '',
): string[] {
  const declared = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    declared.set(
      normalise(`${basePath}${path}`),
      new Set(Object.keys(item ?? {}).map((m) => m.toLowerCase())),
    );
  }
  return expected
    .filter((op) => !declared.get(normalise(op.path))?.has(op.method))
    .map((op) => `${op.method.toUpperCase()} ${op.path}`);
}

export function assertDeclaresOperations(
  document: { paths?: Record<string, Record<string, unknown>>; servers?: { url?: string }[] },
  expected: readonly { method: string; path: string }[],
  where: string,
): void {
  // A document may put a common prefix in servers[0].url (e.g. "/" or "http://host/"): paths are relative to it.
  let basePath = '';
  const server = document.servers?.[0]?.url;
  if (server) {
    try {
      basePath = new URL(server, 'http://placeholder').pathname.replace(/\/+$/, '');
    } catch {
      basePath = '';
    }
  }
  const missing = missingOperations(document, expected, basePath);
  if (missing.length) {
    throw new Finding(`${where}: the OpenAPI document does not declare ${missing.join(', ')}`, {
      where,
      expected: expected.map((op) => `${op.method.toUpperCase()} ${op.path}`),
      actual: Object.keys(document.paths ?? {}),
    });
  }
}
