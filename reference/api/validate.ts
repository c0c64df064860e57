/**
 * The validator compiler of the API's routes: each route's `body` / `querystring` / `params`
 * schema (api/route-schema.ts) compiled by the shared Ajv, which holds every schema of schemas/ by
 * `$id`. A value that fails is answered 422 naming the field (api/errors.ts). The one way request
 * parts are validated.
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifySchemaCompiler } from 'fastify';
import { defects } from '../defects/index.ts';

/** The value with integer prosody fields clamped to -10..10 (the prosody-out-of-range-accepted defect). */
function withProsodyClamped(value: unknown): unknown {
  const fields = new Set(['pace', 'pitch', 'expression']);
  return JSON.parse(JSON.stringify(value ?? null), (key, v: unknown) =>
    fields.has(key) && Number.isInteger(v) ? Math.max(-10, Math.min(10, v as number)) : v,
  );
}

export function routeValidatorCompiler(ajv: Ajv2020): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    const validate = ajv.compile(schema as object);
    if (httpPart !== 'body' || !defects.has('prosody-out-of-range-accepted')) return validate;
    // Defect prosody-out-of-range-accepted: a body valid once its prosody is clamped passes as sent.
    const lax = Object.assign(
      (value: unknown) => {
        const valid = validate(withProsodyClamped(value)) || validate(value);
        lax.errors = validate.errors;
        return valid;
      },
      { errors: null as typeof validate.errors },
    );
    return lax;
  };
}
