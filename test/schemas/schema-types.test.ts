import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchemaTypes, TYPES_FILE } from '../../schemas/generate-types.ts';
import { schemas } from '../../schemas/index.ts';

describe('schemas/types.ts', () => {
  it('is what schemas/generate-types.ts makes of the schema files now (else: npm run schemas:types)', async () => {
    const committed = readFileSync(TYPES_FILE, 'utf8');
    expect(
      committed === (await generateSchemaTypes()),
      'schemas/types.ts is stale: run npm run schemas:types',
    ).toBe(true);
  });

  it('declares one type per schema file', () => {
    const committed = readFileSync(TYPES_FILE, 'utf8');
    for (const name of Object.keys(schemas)) {
      const typeName = name === 'Error' ? 'ErrorBody' : name;
      expect(committed).toMatch(new RegExp(`^export (interface|type) ${typeName}\\b`, 'm'));
    }
  });
});
