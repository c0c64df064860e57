/**
 * `npm run docs:config`: writes docs/configuration.md from the option table (src/config/options.ts).
 * test/config/option-table.test.ts fails when the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationDoc } from '../src/config/config-docs.ts';

const path = join(import.meta.dirname, '..', 'docs', 'configuration.md');
writeFileSync(path, renderConfigurationDoc());
process.stdout.write(`wrote ${path}\n`);
