/**
 * A run to compare: a report directory holding conformance.json, or that file itself, read as the
 * report's model (src/report/model.ts). Only what a comparison needs is checked; a file that is not a
 * conformance report is said as such (exit 2), never compared as an empty run.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SpeakcheckError } from '../errors.ts';
import type { ConformanceReport } from '../report/model.ts';
import { upgradeReport } from '../report/report-version.ts';

export class CompareInputError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_COMPARE_INPUT';
  override name = 'CompareInputError';
}

export interface LoadedRun {
  /** The conformance.json read. */
  file: string;
  /** The name the pages give the run: --label, else its directory's name. */
  label: string;
  report: ConformanceReport;
}

/** The conformance.json of `path` (a report directory or the file). */
export function conformanceFileOf(path: string): string {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new CompareInputError(`${path}: no such file or directory`);
  }
  return isDirectory ? join(path, 'conformance.json') : path;
}

export function readRun(path: string, label?: string): LoadedRun {
  const file = conformanceFileOf(path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : (err as Error).message;
    throw new CompareInputError(`${file}: cannot read a conformance report (${why})`);
  }
  const report = parsed as Partial<ConformanceReport>;
  const wellFormed =
    typeof report === 'object' &&
    report !== null &&
    typeof report.run === 'object' &&
    report.run !== null &&
    Array.isArray(report.requirements) &&
    report.requirements.every((r) => typeof r?.id === 'string' && typeof r?.status === 'string');
  if (!wellFormed) {
    throw new CompareInputError(
      `${file}: not a conformance report (conformance.json of speakcheck run: run and requirements)`,
    );
  }
  // Through the versioned reader: a report of an older speakcheck reads as the current model.
  return {
    file,
    label: label ?? basename(dirname(file)),
    report: upgradeReport(report as ConformanceReport),
  };
}

/**
 * Every run, the first the baseline. Labels: as given (one per run), else each directory's name;
 * when two runs would share a name, each is called "run N" after its position instead.
 */
export function readRuns(paths: readonly string[], labels: readonly string[] = []): LoadedRun[] {
  if (paths.length < 2)
    throw new CompareInputError('compare needs two runs or more (the first is the baseline)');
  if (labels.length > 0 && labels.length !== paths.length) {
    throw new CompareInputError(
      `${labels.length} --label for ${paths.length} runs: give one label per run, in the same order, or none`,
    );
  }
  const runs = paths.map((path, i) => readRun(path, labels[i]));
  const names = runs.map((r) => r.label);
  const unique = new Set(names).size === names.length;
  if (!unique && labels.length > 0) throw new CompareInputError(`--label names repeat: ${names.join(', ')}`);
  return unique ? runs : runs.map((r, i) => ({ ...r, label: `run ${i + 1}` }));
}
