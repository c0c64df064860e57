/** Validates a value against a named schema of schemas/ with the shared Ajv; 422 naming the field. */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { ApiError, describeAjvErrors } from './errors.ts';

export function validateWith(ajv: Ajv2020, schemaName: string, value: unknown, where = 'body'): void {
  const validate = ajv.getSchema(`${schemaName}.json`);
  if (!validate) throw new Error(`schema ${schemaName} is not loaded`);
  if (!validate(value)) throw new ApiError(422, describeAjvErrors(validate.errors, where));
}
