/**
 * The validator compiler of the API's routes: each route's `body` / `querystring` / `params`
 * schema (api/route-schema.ts) compiled by the shared Ajv, which holds every schema of schemas/ by
 * `$id`. A value that fails is answered 422 naming the field (api/errors.ts). The one way request
 * parts are validated.
 */
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';
import type { FastifySchemaCompiler } from 'fastify';
import { createAjv } from '../../schemas/index.ts';
import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { TABLE_FIELDS, unknownFields } from './request-tables.ts';

type Validate = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The value with integer prosody fields clamped to -10..10 (the prosody-out-of-range-accepted defect). */
function withProsodyClamped(value: unknown): unknown {
  const fields = new Set(['pace', 'pitch', 'expression']);
  return JSON.parse(JSON.stringify(value ?? null), (key, v: unknown) =>
    fields.has(key) && Number.isInteger(v) ? Math.max(-10, Math.min(10, v as number)) : v,
  );
}

/** Latitude prosody-clamped: integer prosody fields of the body clamped to -10..10 in place (stored so). */
function clampProsodyInPlace(value: unknown): void {
  const fields = new Set(['pace', 'pitch', 'expression']);
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, v] of Object.entries(node as Record<string, unknown>)) {
      if (fields.has(key) && Number.isInteger(v)) {
        (node as Record<string, unknown>)[key] = Math.max(-10, Math.min(10, v as number));
      } else visit(v);
    }
  };
  visit(value);
}

/**
 * The latitude switches of request validation: prosody-clamped clamps before it validates;
 * strict-request-fields refuses a field the route's table does not list (`body/<field>: unknown
 * field`, answered like any invalid body by api/errors.ts).
 */
function withLatitude(validate: Validate, url: string): Validate {
  const listed = TABLE_FIELDS[url];
  const strict = latitude.has('strict-request-fields') && listed !== undefined;
  const clamp = latitude.has('prosody-clamped');
  if (!strict && !clamp) return validate;
  const chosen: Validate = Object.assign(
    (value: unknown) => {
      if (strict) {
        const unknown = unknownFields(value, listed);
        if (unknown.length > 0) {
          chosen.errors = unknown.map((field) => ({
            keyword: 'unknownField',
            instancePath: `/${field}`,
            schemaPath: '#',
            params: {},
            message: 'unknown field',
          }));
          return false;
        }
      }
      if (clamp) clampProsodyInPlace(value);
      const valid = validate(value);
      chosen.errors = validate.errors;
      return valid;
    },
    { errors: null as ErrorObject[] | null | undefined },
  );
  return chosen;
}

/**
 * Latitude coerced-types: bodies are validated by an Ajv that coerces scalars to the type a field
 * asks for (42 → "42", "5" → 5, true → "true"), as pydantic's lax mode does, and are stored so.
 * Made only when the switch is on: a second Ajv compiles every schema it meets again.
 */
let coercing: Ajv2020 | undefined;
function bodyAjv(ajv: Ajv2020): Ajv2020 {
  if (!latitude.has('coerced-types')) return ajv;
  coercing ??= createAjv({ coerceTypes: true });
  return coercing;
}

/** Defect gender-stored-as-sent: the value with a gender the schema allows, to see what else is wrong. */
function withGenderListed(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || !('gender' in value)) return value;
  return { ...value, gender: 'female' };
}

/**
 * Defects that let a body through as sent when it is valid once mended: its prosody clamped
 * (prosody-out-of-range-accepted), its gender one the schema lists (gender-stored-as-sent).
 */
const LAX_BODY_DEFECTS = [
  ['prosody-out-of-range-accepted', withProsodyClamped],
  ['gender-stored-as-sent', withGenderListed],
] as const;

function withLaxDefects(validate: Validate): Validate {
  const mends = LAX_BODY_DEFECTS.filter(([name]) => defects.has(name)).map(([, mend]) => mend);
  if (mends.length === 0) return validate;
  const lax: Validate = Object.assign(
    (value: unknown) => {
      const valid = validate(value) || mends.some((mend) => validate(mend(value)));
      // The errors of the body as sent, when nothing mended it.
      if (!valid) validate(value);
      lax.errors = validate.errors;
      return valid;
    },
    { errors: null as ErrorObject[] | null | undefined },
  );
  return lax;
}

export function routeValidatorCompiler(ajv: Ajv2020): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart, url }) => {
    const compiled = (httpPart === 'body' ? bodyAjv(ajv) : ajv).compile(schema as object);
    return httpPart === 'body' ? withLaxDefects(withLatitude(compiled, url)) : compiled;
  };
}
