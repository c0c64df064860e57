/**
 * `speakcheck compare RUN_DIR…`: conformance runs side by side, the first the baseline (src/compare/).
 * Exit 1 when a later run is worse than the baseline on a requirement of a --fail-on level, 0
 * otherwise, 2 for bad options or a run that cannot be read: commander's own usage errors included,
 * since its default (1) would read as a regression here.
 */
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { compareConformance } from '../../compare/compare-runs.ts';
import { GATING_LEVELS, type GatingLevel } from '../../compare/diff.ts';
import { CompareInputError } from '../../compare/load-run.ts';
import { EXIT, exitCodesHelp } from '../../exit-codes.ts';
import { REPO_ROOT } from '../../stack/embedded.ts';
import { addReportDirOption, reportDirOf } from '../option-parsers.ts';

/** `--fail-on must,should,security` (any of them, any case), or `none`: the levels a regression counts at. */
export function failOnLevels(value: string): GatingLevel[] {
  const names = value
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  if (names.length === 1 && names[0] === 'NONE') return [];
  const unknown = names.filter((n) => !(GATING_LEVELS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `expected a comma-separated list of ${GATING_LEVELS.map((l) => l.toLowerCase()).join(', ')} (or none)`,
    );
  }
  return GATING_LEVELS.filter((level) => names.includes(level));
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

const timestamp = () => new Date().toISOString().replace(/[:.]/g, '-');

interface CompareFlags {
  label?: string[];
  failOn: GatingLevel[];
  reportDir?: string;
  out?: string;
}

export function registerCompare(program: Command): void {
  const compare = program
    .command('compare')
    .description(
      'Compare conformance runs side by side, the first the baseline (vendors for a buyer, releases for an ' +
        "implementer): each run's verdict and counts, every requirement changed against the baseline (new failure, " +
        'fixed, newly judged, no longer judged, observation changed; worst first) and the matrix of every requirement ' +
        `by area. Writes compare.html, compare.md and compare.json. ${exitCodesHelp(['ok', 'failed', 'usage'])} ` +
        `(${EXIT.failed}: a later run is worse than the baseline at a --fail-on level).`,
    )
    .argument('<runs...>', 'two or more report directories of `speakcheck run` (or their conformance.json)')
    .option('--label <name>', 'the name of a run on the pages, one per run in order (repeatable)', collect)
    .option(
      '--fail-on <levels>',
      'levels at which a worse requirement fails the comparison: must, should, security, comma-separated, or none',
      failOnLevels,
      [...GATING_LEVELS],
    );
  addReportDirOption(compare, 'report directory (default reports/compare/<timestamp>)');
  // A usage error is exit 2 here, never commander's 1 (that would read as a regression).
  compare.exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage));
  compare.action((runs: string[], flags: CompareFlags) => {
    const outDir = reportDirOf(flags, 'compare') ?? join(REPO_ROOT, 'reports', 'compare', timestamp());
    try {
      const { comparison, files } = compareConformance(runs, {
        labels: flags.label ?? [],
        failOn: flags.failOn,
        outDir,
      });
      for (const [i, run] of comparison.runs.entries()) {
        console.log(`${i === 0 ? 'baseline' : `run ${i}`} ${run.label}: ${run.verdict}`);
      }
      for (const r of comparison.regressions) {
        const run = comparison.runs[r.change.run]!;
        console.error(`worse: ${r.id} (${r.level}) in ${run.label}: ${r.change.from} -> ${r.change.to}`);
      }
      const changes = comparison.changed.length;
      const regressions = new Set(comparison.regressions.map((r) => r.id)).size;
      console.log(
        `${changes} requirement(s) changed against the baseline, ${regressions} worse at ${
          flags.failOn.length ? flags.failOn.join(', ') : 'no level'
        }`,
      );
      for (const note of comparison.notes) console.log(note);
      console.log(`report: ${files.html}, ${files.markdown}, ${files.json}`);
      process.exitCode = comparison.regressions.length > 0 ? EXIT.failed : EXIT.ok;
    } catch (err) {
      if (!(err instanceof CompareInputError)) throw err;
      console.error(`speakcheck compare: ${err.message}`);
      process.exitCode = EXIT.usage;
    }
  });
}
