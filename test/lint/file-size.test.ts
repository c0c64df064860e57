/**
 * A file holds one concern, about 500 lines at most (issue 44): a harness or suite file that grows
 * past the bound fails here, naming itself, before it turns into a scenario engine again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const MAX_LINES = 500;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

test(`no file under src/ or suites/ is over ${MAX_LINES} lines`, () => {
  const over = ['src', 'suites']
    .flatMap((dir) => sources(join(REPO_ROOT, dir)))
    .map((path) => ({
      path: relative(REPO_ROOT, path),
      lines: readFileSync(path, 'utf8').split('\n').length,
    }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ path, lines }) => `${path}: ${lines} lines`);
  expect(over, 'split by concern (scenarios and helpers go to suites/support)').toEqual([]);
});
