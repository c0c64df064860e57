/** `speakcheck compare`: read the runs, compare them with the first, write compare.json / .md / .html. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Comparison, compareRuns, type GatingLevel } from './diff.ts';
import { readRuns } from './load-run.ts';
import { renderCompareHtml } from './render-html.ts';
import { renderCompareMarkdown } from './render-md.ts';

export interface CompareResult {
  comparison: Comparison;
  files: { json: string; markdown: string; html: string };
}

export function compareConformance(
  paths: readonly string[],
  o: { labels?: readonly string[]; failOn: readonly GatingLevel[]; outDir: string },
): CompareResult {
  const runs = readRuns(paths, o.labels);
  const comparison = compareRuns(runs, o.failOn);
  mkdirSync(o.outDir, { recursive: true });
  const files = {
    json: join(o.outDir, 'compare.json'),
    markdown: join(o.outDir, 'compare.md'),
    html: join(o.outDir, 'compare.html'),
  };
  writeFileSync(files.json, `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(files.markdown, renderCompareMarkdown(comparison));
  writeFileSync(files.html, renderCompareHtml(comparison));
  return { comparison, files };
}
