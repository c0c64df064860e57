/**
 * A side of a comparison: one summary.json, or a directory holding repeated runs (every
 * summary.json below it). Repeated runs of the same scenario are reduced to medians later.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SpeakcheckError } from '../errors.ts';
import { type LoadSummary, readSummaryFile } from '../load/summary.ts';

export interface RunSet {
  path: string;
  runs: LoadSummary[];
  /** The summary.json each run came from, in the same order. */
  files: string[];
}

export class RunSetError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_PERF_RUN_SET';
  override name = 'RunSetError';
}

/**
 * Every summary.json at or below `dir`, sorted by path (run directories start with an ISO timestamp:
 * path order is time order). A run split into segments counts once: its merged summary.json, not
 * the segments' own ones in segment-<i>/.
 */
export function summaryFiles(dir: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  const merged = entries.some((e) => e.isFile() && e.name === 'summary.json');
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && merged && /^segment-\d+$/.test(entry.name)) continue;
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
  return { path, runs: files.map((file) => readSummaryFile(file)), files };
}
