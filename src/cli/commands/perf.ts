import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { FILE_OPTIONS, TARGET_OPTIONS } from '../../config/options.ts';
import { ConfigError, resolveCommandTarget } from '../../config/resolve.ts';
import type { TargetFlags } from '../../config/types.ts';
import { EXIT, exitCodesHelp } from '../../exit-codes.ts';
import { isScenario, SCENARIOS } from '../../load/scenarios.ts';
import { SummaryFormatError } from '../../load/summary.ts';
import { loadHistory, writeHistory } from '../../perf/history.ts';
import { isTarget, runInterleaved } from '../../perf/interleave.ts';
import { perfCompare, perfCompareExitCode } from '../../perf/perf-compare.ts';
import { verdictLine } from '../../perf/report-markdown.ts';
import { RunSetError } from '../../perf/run-set.ts';
import { DEFAULT_TOLERANCE, type Tolerance } from '../../perf/tracked.ts';
import { REPO_ROOT } from '../../stack/embedded.ts';
import {
  addReportDirOption,
  addTableOptions,
  keyValue,
  positiveInt,
  reportDirOf,
} from '../option-parsers.ts';
import { reportDirSentence, unwritableDir } from '../writable-dir.ts';

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
  alpha: number;
  tolerance: number;
  minMs: number;
  minErrorRate: number;
  reportDir?: string;
  out?: string;
  interleave?: number;
  scenario?: string;
  vus?: number;
  duration?: string;
  env?: Record<string, string>;
  email?: string;
  password?: string;
  token?: string;
  model?: string;
  config?: string;
}

/** --interleave's credentials: flags > SPEAK_* environment > config file, as every command (src/config/resolve.ts). */
function credentialsOf(flags: CompareFlags): TargetFlags {
  const { email, password, token, model } = resolveCommandTarget(flags).target;
  return { email, password, token, model };
}

const timestamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** With --interleave and two targets: runs the scenario alternately and returns the two run directories. */
async function interleavedSides(
  baseline: string,
  current: string,
  flags: CompareFlags,
  outDir: string,
): Promise<[string, string] | undefined> {
  if (!isTarget(baseline) || !isTarget(current)) {
    console.error(
      'speakcheck perf compare: --interleave needs two targets (a base URL or "embedded") as BASELINE and CURRENT',
    );
    return undefined;
  }
  if (!flags.scenario || !isScenario(flags.scenario)) {
    console.error(`speakcheck perf compare: --interleave needs --scenario (${SCENARIOS.join(', ')})`);
    return undefined;
  }
  let credentials: TargetFlags;
  try {
    credentials = credentialsOf(flags);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`speakcheck perf compare: ${err.message}`);
    return undefined;
  }
  const r = await runInterleaved({
    scenario: flags.scenario,
    rounds: flags.interleave!,
    baseline,
    candidate: current,
    credentials,
    outDir,
    vus: flags.vus,
    duration: flags.duration,
    env: flags.env,
  });
  for (const f of r.failures) console.error(`speakcheck perf compare: ${f}`);
  return [r.baselineDir, r.candidateDir];
}

export function registerPerf(program: Command): void {
  const perf = program.command('perf').description('Performance tracking over load-run summaries');
  const compare = perf
    .command('compare')
    .description(
      'Compare two sets of load runs (a summary.json, or a directory of repeated runs): per figure the median of ' +
        'each side with a bootstrap 95% confidence interval, the Mann-Whitney U p-value and a verdict (worse, ' +
        'better, ~). With --interleave N and two targets (base URLs or "embedded") the scenario first runs N times ' +
        `on each, alternating. Writes compare.md, compare.html and SVG charts. ${exitCodesHelp(['ok', 'failed', 'usage', 'inconclusive'])}`,
    )
    .argument('<baseline>', 'summary.json or directory of runs (e.g. load/baselines/<name>), or a target')
    .argument('<current>', 'summary.json or directory of runs (e.g. reports/load), or a target')
    .option('--alpha <p>', 'significance level of the Mann-Whitney U test', fraction, DEFAULT_TOLERANCE.alpha)
    .option(
      '--tolerance <fraction>',
      'smallest relative change that counts even when significant (0.1 or 10%)',
      fraction,
      DEFAULT_TOLERANCE.relative,
    )
    .option('--min-ms <ms>', 'latency changes below this never count', nonNegative, DEFAULT_TOLERANCE.minMs)
    .option(
      '--min-error-rate <fraction>',
      'error-rate changes below this never count',
      fraction,
      DEFAULT_TOLERANCE.minErrorRate,
    );
  addReportDirOption(compare, 'report directory (default reports/perf/<timestamp>)');
  // URL targets' credentials and the config file: the same entries as run's (src/config/options.ts).
  const { email, password, token, model } = TARGET_OPTIONS;
  addTableOptions(compare, { email, password, token, model, config: FILE_OPTIONS.config }, '--interleave: ');
  compare
    .option(
      '--interleave <n>',
      'with two targets: runs per side, alternating baseline and candidate',
      positiveInt,
    )
    .option('--scenario <name>', `--interleave: the scenario to run (${SCENARIOS.join(', ')})`)
    .option('--vus <n>', '--interleave: virtual users per run', positiveInt)
    .option('--duration <d>', '--interleave: duration per scenario phase, e.g. 10s')
    .option('--env <NAME=value>', '--interleave: scenario knob passed to k6 (repeatable)', keyValue)
    .action(async (baseline: string, current: string, flags: CompareFlags) => {
      const outDir = reportDirOf(flags, 'perf compare') ?? join(REPO_ROOT, 'reports', 'perf', timestamp());
      const outDirProblem = unwritableDir(outDir);
      if (outDirProblem) {
        console.error(`speakcheck perf compare: ${reportDirSentence(outDir, outDirProblem)}`);
        process.exitCode = EXIT.usage;
        return;
      }
      if (flags.interleave) {
        const sides = await interleavedSides(baseline, current, flags, outDir);
        if (!sides) {
          process.exitCode = EXIT.usage;
          return;
        }
        [baseline, current] = sides;
      }
      const tolerance: Tolerance = {
        alpha: flags.alpha,
        relative: flags.tolerance,
        minMs: flags.minMs,
        minErrorRate: flags.minErrorRate,
      };
      try {
        const { comparison, capacities, files } = perfCompare(baseline, current, tolerance, outDir);
        for (const w of comparison.warnings) console.error(`warning: ${w}`);
        const undecided = [...comparison.likelyRegressions, ...comparison.inconclusive];
        for (const f of [...comparison.regressions, ...undecided]) {
          console.error(
            `${f.verdict}: ${f.scenario} ${f.metric} ${f.stat}: ${f.baseline?.toFixed(3)} -> ${f.current?.toFixed(3)} (p ${f.p?.toFixed(4)})`,
          );
        }
        const count = (verdict: string) => comparison.figures.filter((f) => f.verdict === verdict).length;
        console.log(
          `${comparison.regressions.length} worse, ${comparison.likelyRegressions.length} likely worse, ` +
            `${comparison.inconclusive.length} inconclusive, ${comparison.improvements.length} better, ` +
            `${count('~')} ~ (of ${comparison.figures.filter((f) => f.judged).length} figures judged)`,
        );
        for (const c of capacities) {
          const side = (b: typeof c.baseline) =>
            b ? `${b.good} [${b.good} – ${Number.isFinite(b.bad) ? b.bad : '–'}] ${b.unit}` : '–';
          console.log(`capacity ${c.scenario}: ${side(c.baseline)} -> ${side(c.current)}: ${c.verdict}`);
        }
        console.log(`report: ${files.markdown}, ${files.html}`);
        // The headline last, where a terminal's reader looks: the same words as compare.md's.
        console.log(`verdict: ${verdictLine(comparison)}`);
        process.exitCode = perfCompareExitCode({ comparison, capacities });
      } catch (err) {
        if (err instanceof RunSetError || err instanceof SummaryFormatError) {
          console.error(`speakcheck perf compare: ${err.message}`);
          process.exitCode = EXIT.usage;
          return;
        }
        throw err;
      }
    });
  const history = perf
    .command('history')
    .description(
      'Trend chart per tracked figure over stored runs (each DIR a run or a directory of runs, in path = time ' +
        'order) and the change points E-Divisive finds (permutation test), each named by the run where it happened. ' +
        'Writes history.md and history.html.',
    )
    .argument('<dirs...>', 'run directories or directories of runs (e.g. reports/load)')
    .option('--alpha <p>', 'significance level of the permutation test', fraction, 0.05)
    .option('--permutations <n>', 'permutations per test', positiveInt, 199);
  addReportDirOption(history, 'report directory (default reports/perf/history-<timestamp>)');
  history.action(
    (dirs: string[], flags: { alpha: number; permutations: number; reportDir?: string; out?: string }) => {
      const outDir =
        reportDirOf(flags, 'perf history') ?? join(REPO_ROOT, 'reports', 'perf', `history-${timestamp()}`);
      try {
        const history = loadHistory(dirs, { alpha: flags.alpha, permutations: flags.permutations });
        const files = writeHistory(history, outDir);
        const changes = history.figures.flatMap((f) => f.changes.map((c) => ({ f, c })));
        for (const { f, c } of changes) {
          console.log(
            `change point: ${f.scenario} ${f.metric} ${f.stat} from run ${c.index + 1} (${c.run}): ` +
              `${c.before.toFixed(3)} -> ${c.after.toFixed(3)} (p ${c.p.toFixed(3)}, ${c.direction})`,
          );
        }
        console.log(
          `${history.runs.length} run(s), ${history.figures.length} figure(s), ${changes.length} change point(s)`,
        );
        console.log(`report: ${files.markdown}, ${files.html}`);
      } catch (err) {
        if (err instanceof RunSetError || err instanceof SummaryFormatError) {
          console.error(`speakcheck perf history: ${err.message}`);
          process.exitCode = EXIT.usage;
          return;
        }
        throw err;
      }
    },
  );
}
