import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { SummaryFormatError } from '../../load/summary.ts';
import { EXIT_REGRESSION, perfCompare } from '../../perf/perf-compare.ts';
import { RunSetError } from '../../perf/run-set.ts';
import { DEFAULT_TOLERANCE } from '../../perf/tracked.ts';
import { REPO_ROOT } from '../../stack/embedded.ts';

const EXIT_BAD_INPUT = 2;

function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}

function fraction(value: string): number {
  // Accept 10% as well as 0.1.
  const n = value.endsWith('%') ? Number(value.slice(0, -1)) / 100 : Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('expected a fraction like 0.1 or a percentage like 10%');
  return n;
}

interface CompareFlags {
  tolerance: number;
  noiseFactor: number;
  minMs: number;
  minErrorRate: number;
  out?: string;
}

export function registerPerf(program: Command): void {
  const perf = program.command('perf').description('Performance tracking over load-run summaries');
  perf
    .command('compare')
    .description(
      'Compare two load runs (a summary.json, or a directory of repeated runs: medians). Writes compare.md, ' +
        `compare.html and SVG charts; exits ${EXIT_REGRESSION} when a tracked figure regresses beyond the tolerance.`,
    )
    .argument('<baseline>', 'summary.json or directory of runs (e.g. load/baselines/<name>)')
    .argument('<current>', 'summary.json or directory of runs (e.g. reports/load)')
    .option(
      '--tolerance <fraction>',
      'relative change allowed (0.1 or 10%)',
      fraction,
      DEFAULT_TOLERANCE.relative,
    )
    .option(
      '--noise-factor <k>',
      "multiple of the runs' spread (1.4826 x MAD) treated as noise",
      nonNegative,
      DEFAULT_TOLERANCE.noiseFactor,
    )
    .option('--min-ms <ms>', 'latency changes below this never count', nonNegative, DEFAULT_TOLERANCE.minMs)
    .option(
      '--min-error-rate <fraction>',
      'error-rate changes below this never count',
      fraction,
      DEFAULT_TOLERANCE.minErrorRate,
    )
    .option('--out <dir>', 'report directory (default reports/perf/<timestamp>)')
    .action((baseline: string, current: string, flags: CompareFlags) => {
      const outDir =
        flags.out ?? join(REPO_ROOT, 'reports', 'perf', new Date().toISOString().replace(/[:.]/g, '-'));
      try {
        const { comparison, files } = perfCompare(
          baseline,
          current,
          {
            relative: flags.tolerance,
            noiseFactor: flags.noiseFactor,
            minMs: flags.minMs,
            minErrorRate: flags.minErrorRate,
          },
          outDir,
        );
        for (const f of comparison.regressions) {
          console.error(
            `regression: ${f.scenario} ${f.metric} ${f.stat}: ${f.baseline?.toFixed(3)} -> ${f.current?.toFixed(3)} (allowed ±${f.allowed?.toFixed(3)})`,
          );
        }
        console.log(
          `${comparison.regressions.length} regression(s), ${comparison.improvements.length} improvement(s), ` +
            `${comparison.figures.filter((f) => f.judged).length} figures judged`,
        );
        console.log(`report: ${files.markdown}, ${files.html}`);
        process.exitCode = comparison.regressions.length ? EXIT_REGRESSION : 0;
      } catch (err) {
        if (err instanceof RunSetError || err instanceof SummaryFormatError) {
          console.error(`speakcheck perf compare: ${err.message}`);
          process.exitCode = EXIT_BAD_INPUT;
          return;
        }
        throw err;
      }
    });
}
