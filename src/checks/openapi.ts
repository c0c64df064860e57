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

type Json = Record<string, unknown>;

/** A local `$ref` (`#/components/...`) resolved in `document`; anything else as it is. */
function resolveRef(document: Json, value: unknown): unknown {
  let current = value;
  for (let hops = 0; hops < 8; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
  }
  return current;
}

/** The values a path parameter's schema allows when it enumerates them (`enum` or `const`). */
function enumeratedValues(document: Json, parameters: unknown[], name: string): Set<string> | undefined {
  for (const raw of parameters) {
    const parameter = resolveRef(document, raw) as Json | undefined;
    if (parameter?.in !== 'path' || parameter.name !== name) continue;
    const schema = resolveRef(document, parameter.schema) as Json | undefined;
    if (Array.isArray(schema?.enum)) return new Set(schema.enum.map(String));
    if (schema && 'const' in schema) return new Set([String(schema.const)]);
    return undefined;
  }
  return undefined;
}

/**
 * Whether the declared path template (with its operation's parameters) covers the contract path: a
 * `{param}` in the contract matches any `{param}` (names do not matter); a literal segment of the
 * contract (`wav`) matches itself, or a `{param}` whose schema enumerates it (one templated
 * `/takes/{take_id}/{format}` with an enum of the formats declares the five audio operations). A
 * parameter without an enum could be anything: it declares no literal operation.
 */
function templateCovers(
  declared: string,
  expected: string,
  enumerated: (name: string) => Set<string> | undefined,
): boolean {
  const have = declared.replace(/\/+$/, '').split('/');
  const want = expected.replace(/\/+$/, '').split('/');
  if (have.length !== want.length) return false;
  return want.every((segment, i) => {
    const mine = have[i]!;
    const param = /^\{([^}]*)\}$/.exec(mine)?.[1];
    if (/^\{[^}]*\}$/.test(segment)) return param !== undefined;
    if (param === undefined) return mine === segment;
    return enumerated(param)?.has(segment) === true;
  });
}

/** Operations of `expected` the document does not declare (path + method). */
export function missingOperations(
  document: { paths?: Record<string, Record<string, unknown>> },
  expected: readonly { method: string; path: string }[],
  basePath = '',
): string[] {
  const doc = document as Json;
  const declared = Object.entries(document.paths ?? {}).map(([path, rawItem]) => {
    const item = (resolveRef(doc, rawItem) ?? {}) as Record<string, unknown>;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    return { path: `${basePath}${path}`, item, shared };
  });
  const covered = (op: { method: string; path: string }) =>
    declared.some(({ path, item, shared }) => {
      const operation = Object.entries(item).find(([m]) => m.toLowerCase() === op.method)?.[1] as
        | Json
        | undefined;
      if (!operation) return false;
      if (normalise(path) === normalise(op.path)) return true;
      // Operation parameters override path-item ones of the same name and place.
      const parameters = [...(Array.isArray(operation.parameters) ? operation.parameters : []), ...shared];
      return templateCovers(path, op.path, (name) => enumeratedValues(doc, parameters, name));
    });
  return expected.filter((op) => !covered(op)).map((op) => `${op.method.toUpperCase()} ${op.path}`);
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
