/**
 * The one source of the contract's bodies and messages, shared by the three wings:
 * the reference stack validates requests with it and builds its OpenAPI document from it,
 * the harness validates responses with it, the k6 scripts use its field names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export const SCHEMA_DIR = dirname(fileURLToPath(import.meta.url));

export type JsonSchema = Record<string, unknown> & { $id: string; title: string };

/** Every schema, by its title (the file name without `.schema.json`). */
export const schemas: Readonly<Record<string, JsonSchema>> = Object.freeze(
  Object.fromEntries(
    readdirSync(SCHEMA_DIR)
      .filter((file) => file.endsWith('.schema.json'))
      .sort()
      .map((file) => {
        const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as JsonSchema;
        return [schema.title, schema];
      }),
  ),
);

export type SchemaName = keyof typeof schemas & string;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * A fresh Ajv (2020-12, formats on, all errors) holding every schema; compile once, reuse.
 *
 * The schemas are not checked against the 2020-12 meta-schema here (`validateSchema: false`): that
 * check compiles the meta-schema, ~55 ms of CPU in every thread and process that validates anything
 * (a run has seven: its suite threads, the API, the synthesis worker). They are our own files, checked
 * once by test/schemas/meta-schema.test.ts instead.
 */
export function createAjv(
  options: { coerceTypes?: boolean; useDefaults?: boolean; validateSchema?: boolean } = {},
): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false, ...options });
  addFormats(ajv);
  for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  return ajv;
}

let shared: Ajv2020 | undefined;

/**
 * This thread's one Ajv with the default options (createAjv()), for every module that only
 * validates: a schema it references (Status, Prosody, …) is compiled once per thread, not once per
 * module that needs a validator (the harness's expectSchema and websocket frames; the worker's
 * websocket requests and takes).
 */
export function sharedAjv(): Ajv2020 {
  shared ??= createAjv();
  return shared;
}

/**
 * A schema file's content with its cross-file refs (`X.json`) pointing at `${prefix}X` instead, and
 * without `$id` and `$schema`: how a bundle of the schemas (the OpenAPI document's components, the
 * generated types' $defs) writes them.
 */
export function rewriteSchemaRefs(value: unknown, prefix: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteSchemaRefs(item, prefix));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === '$ref' && typeof inner === 'string' && inner.endsWith('.json')) {
      out.$ref = `${prefix}${inner.slice(0, -'.json'.length)}`;
    } else out[key] = rewriteSchemaRefs(inner, prefix);
  }
  return out;
}

/** The `$ref` value that points at a named schema, as the schema files write it. */
export function schemaRef(name: string): string {
  return `${name}.json`;
}
