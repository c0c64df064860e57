/** Validates a value against a named schema of schemas/ with the shared Ajv; 422 naming the field. */

import type { Ajv2020 } from 'ajv/dist/2020.js';
import { defects } from '../defects/index.ts';
import { ApiError, describeAjvErrors } from './errors.ts';

export function validateWith(ajv: Ajv2020, schemaName: string, value: unknown, where = 'body'): void {
  const validate = ajv.getSchema(`${schemaName}.json`);
  if (!validate) throw new Error(`schema ${schemaName} is not loaded`);
  const onlyBounds = () => validate.errors?.every((e) => e.keyword === 'maximum' || e.keyword === 'minimum');
  if (!validate(value) && defects.has('prosody-out-of-range-accepted') && onlyBounds()) return;
  if (!validate(value)) throw new ApiError(422, describeAjvErrors(validate.errors, where));
}
