/** Validates a value against a named schema of schemas/ with the shared Ajv; 422 naming the field. */

import type { Ajv2020 } from 'ajv/dist/2020.js';
import { defects } from '../defects/index.ts';
import { ApiError, describeAjvErrors } from './errors.ts';

export function validateWith(ajv: Ajv2020, schemaName: string, value: unknown, where = 'body'): void {
  const validate = ajv.getSchema(`${schemaName}.json`);
  if (!validate) throw new Error(`schema ${schemaName} is not loaded`);
  if (defects.has('prosody-out-of-range-accepted') && validate(withProsodyClamped(value))) return;
  if (!validate(value)) throw new ApiError(422, describeAjvErrors(validate.errors, where));
}

/** The value with integer prosody fields clamped to -10..10 (the prosody-out-of-range-accepted defect). */
function withProsodyClamped(value: unknown): unknown {
  const fields = new Set(['pace', 'pitch', 'expression']);
  return JSON.parse(JSON.stringify(value ?? null), (key, v: unknown) =>
    fields.has(key) && Number.isInteger(v) ? Math.max(-10, Math.min(10, v as number)) : v,
  );
}
