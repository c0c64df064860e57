/**
 * Module hook registered by the CLI after tsx: ES modules from node_modules are loaded as Node
 * loads them, without tsx's load hook. tsx has nothing to do there (no TypeScript), yet it
 * re-reads, scans and keeps a copy of each source in its hooks thread: with vitest, vite and
 * rollup in `speakcheck run` that cost ~150 MB of RSS and ~3 s of start-up (measured: importing
 * vitest/node 250 MB / 4.9 s with tsx, 105 MB / 1.9 s with this hook). CommonJS and anything with a
 * query (tsx's own annotations) still go through tsx. Plain JavaScript: hooks load before tsx
 * would help them.
 */
import { readFile } from 'node:fs/promises';

export async function load(url, context, nextLoad) {
  if (
    context.format === 'module' &&
    url.startsWith('file:') &&
    url.includes('/node_modules/') &&
    /\.m?js$/.test(url)
  ) {
    return { format: 'module', source: await readFile(new URL(url)), shortCircuit: true };
  }
  return nextLoad(url, context);
}
