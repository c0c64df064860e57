/**
 * Writes schemas/requirement-ids.ts (the RequirementId union) from the catalogue:
 * `node --import tsx scripts/requirement-ids.ts` (npm run requirements:ids). Run it after adding,
 * renaming or removing a requirement in src/requirements/catalogue/; the output is committed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requirementIdsSource } from '../src/requirements/id-union.ts';
import { catalogue } from '../src/requirements/index.ts';

const FILE = join(import.meta.dirname, '..', 'schemas', 'requirement-ids.ts');
writeFileSync(FILE, requirementIdsSource(catalogue.map((r) => r.id)));
console.log(`wrote ${FILE} (${catalogue.length} ids)`);
