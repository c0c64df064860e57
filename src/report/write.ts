/** Writes conformance.json, conformance.md and conformance.html into the report directory. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConformanceReport } from './model.ts';
import { renderHtml } from './render-html.ts';
import { renderMarkdown } from './render-md.ts';

export async function writeReport(dir: string, report: ConformanceReport): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files = {
    'conformance.json': `${JSON.stringify(report, null, 2)}\n`,
    'conformance.md': renderMarkdown(report),
    'conformance.html': renderHtml(report),
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return Object.keys(files).map((name) => join(dir, name));
}
