/**
 * Every schema file is a valid JSON Schema 2020-12 document: the check createAjv() leaves out of
 * every thread that validates (schemas/index.ts: it would compile the meta-schema in each) is made
 * here, once, as Ajv makes it when told to.
 */
import { describe, expect, it } from 'vitest';
import { createAjv, schemas, sharedAjv } from '../../schemas/index.ts';

describe('the schema files against the 2020-12 meta-schema', () => {
  const checking = createAjv({ validateSchema: true });

  it.each(Object.keys(schemas))('%s is a valid 2020-12 schema', (name) => {
    const valid = checking.validateSchema(schemas[name]!);
    expect(checking.errors ?? [], `${name}: ${checking.errorsText()}`).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the check catches a schema that is not one (the test can fail)', () => {
    expect(checking.validateSchema({ type: 'nonsense', required: 'id' })).toBe(false);
    expect(() => createAjv({ validateSchema: true }).compile({ type: 'nonsense' })).toThrow(
      /schema is invalid/,
    );
  });

  it('the thread shares one Ajv, holding every schema', () => {
    expect(sharedAjv()).toBe(sharedAjv());
    for (const schema of Object.values(schemas))
      expect(sharedAjv().getSchema(schema.$id)).toBeTypeOf('function');
  });
});
