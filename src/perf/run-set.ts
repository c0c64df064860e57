/**
 * A side of a comparison: one summary.json, or a directory holding repeated runs (every
 * summary.json below it). Repeated runs of the same scenario are reduced to medians later.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadSummary, readSummaryFile } from '../load/summary.ts';

export interface RunSet {
  path: string;
  runs: LoadSummary[];
}

export class RunSetError extends Error {
  override name = 'RunSetError';
}

function summaryFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...summaryFiles(path));
    else if (entry.isFile() && entry.name === 'summary.json') out.push(path);
  }
  return out;
}

export function loadRunSet(path: string): RunSet {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    throw new RunSetError(`${path}: no such file or directory`);
  }
  const files = stats.isDirectory() ? summaryFiles(path) : [path];
  if (files.length === 0) throw new RunSetError(`${path}: no summary.json below this directory`);
  return { path, runs: files.map((file) => readSummaryFile(file)) };
}
