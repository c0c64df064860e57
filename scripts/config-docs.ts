/**
 * `npm run docs:config`: writes what the code generates into the docs, so they cannot fall behind:
 * docs/configuration.md from the option table (src/config/options.ts), the Action's inputs and their
 * environment in action.yml from the same table, and README's exit-code table from
 * src/exit-codes.ts. test/config/option-table.test.ts, test/config/action-inputs.test.ts and
 * test/cli/exit-codes.test.ts fail when a committed file differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderActionFile } from '../src/config/action-inputs.ts';
import { renderConfigurationDoc } from '../src/config/config-docs.ts';
import { renderExitCodesSection } from '../src/exit-codes.ts';

const root = join(import.meta.dirname, '..');

function write(relative: string, render: (current: string) => string): void {
  const path = join(root, relative);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // A file written whole (docs/configuration.md) need not exist yet.
  }
  const next = render(current);
  if (next === current) {
    process.stdout.write(`unchanged ${relative}\n`);
    return;
  }
  writeFileSync(path, next);
  process.stdout.write(`wrote ${relative}\n`);
}

write('docs/configuration.md', () => renderConfigurationDoc());
write('action.yml', (current) => renderActionFile(current));
write('README.md', (current) => renderExitCodesSection(current));
