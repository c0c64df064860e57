import { type Command, InvalidArgumentError, Option } from 'commander';
import { FILE_OPTIONS, LOAD_OPTIONS, TARGET_OPTIONS } from '../../config/options.ts';
import {
  ConfigError,
  printableOptions,
  resolveCommandTarget,
  resolveLoadOptions,
  type SourcedValue,
} from '../../config/resolve.ts';
import type { TargetFlags } from '../../config/types.ts';
import { EXIT, exitCodesHelp } from '../../exit-codes.ts';
import { runCapacity } from '../../load/capacity.ts';
import type { CapacityDimension, CapacityMode } from '../../load/capacity-report.ts';
import { capacitySentence } from '../../load/capacity-report.ts';
import { GENERATOR_SHARE_WARN } from '../../load/cpu-share.ts';
import { runCrosscheck } from '../../load/crosscheck.ts';
import { loadVerdictLine } from '../../load/load-lines.ts';
import { MergeError } from '../../load/merge.ts';
import { mergeRun, runLoad } from '../../load/run-load.ts';
import { parseScenarioSlo } from '../../load/scenario-slo.ts';
import { isScenario, SCENARIOS } from '../../load/scenarios.ts';
import { parseSlo, SloError } from '../../load/slo.ts';
import { StackStartError } from '../../stack/embedded.ts';
import { type StartedTarget, startTarget, stopTargetsOnSignal } from '../../stack/target.ts';
import {
  addReportDirOption,
  addTableOptions,
  keyValue,
  positiveInt,
  reportDirOf,
} from '../option-parsers.ts';
import { reportDirSentence, unwritableDir } from '../writable-dir.ts';

interface LoadFlags extends TargetFlags {
  vus?: number;
  duration?: string;
  target: string;
  env?: Record<string, string>;
  reportDir?: string;
  /** Deprecated alias of --report-dir. */
  out?: string;
  segments?: number;
  requests: number;
  rounds: number;
  config?: string;
  printConfig?: boolean;
  mode: string;
  over: string;
  slo?: string;
  /** The SLO resolved from --slo, SPEAK_LOAD_SLO or the config file's `slo`, with where it came from. */
  givenSlo?: SourcedValue;
  budget: number;
  start?: number;
  max?: number;
  stepSeconds: number;
  minSamples: number;
  maxGeneratorShare: number;
  confirm: boolean;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError(`${value} is not a number above 0`);
  return n;
}

function share(value: string): number {
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0 && n <= 1))
    throw new InvalidArgumentError(`${value} is not a share in (0, 1]`);
  return n;
}

export function registerLoad(program: Command): void {
  const load = program
    .command('load')
    .description(
      `Run a k6 load scenario (${SCENARIOS.join(', ')}), the k6-vs-Node TTFC cross-check (crosscheck), ` +
        'or merge the raw samples of execution segments into one summary (merge DIR...). ' +
        'Without --base-url the reference stack is started and stopped around the run. ' +
        exitCodesHelp(['ok', 'usage', 'targetUnavailable', 'toolMissing', 'thresholdsFailed', 'interrupted']),
    )
    .argument('<scenario>', `${SCENARIOS.join(' | ')} | capacity | crosscheck | merge`)
    .argument('[dirs...]', 'merge: run or segment directories (every samples.json(.gz) below them)')
    .option('--vus <n>', 'virtual users (websocket connections / concurrent clients)', positiveInt)
    .option('--duration <d>', 'duration per scenario phase, e.g. 10s')
    .addOption(
      new Option('--target <kind>', 'the stack to start without --base-url')
        .choices(['embedded', 'container'])
        .default('embedded'),
    )
    .option(
      '--env <NAME=value>',
      'scenario knob passed to k6 (repeatable), e.g. RATE=8, STEPS=1,2,4',
      keyValue,
    )
    .option(
      '--segments <n>',
      'split the run over N k6 processes (execution segments), merged into one exact summary',
      positiveInt,
    )
    .option('--requests <n>', 'crosscheck: takes measured per side', positiveInt, 40)
    .option('--rounds <n>', 'crosscheck: k6 runs, alternating with Node runs', positiveInt, 3)
    .addOption(
      new Option('--mode <mode>', 'capacity: how takes are asked for')
        .choices(['chunks', 'parts', 'rest'])
        .default('chunks'),
    )
    .addOption(
      new Option(
        '--over <dimension>',
        'capacity: search over the arrival rate or concurrent websocket streams',
      )
        .choices(['rate', 'streams'])
        .default('rate'),
    )
    .option('--budget <s>', 'capacity: wall-time budget of the search in seconds', positiveNumber, 180)
    .option('--start <n>', 'capacity: first load (default 8 takes/s, streams 2)', positiveNumber)
    .option(
      '--max <n>',
      'capacity: highest load tried (default 512 takes/s websocket, 256 rest, 256 streams)',
      positiveNumber,
    )
    .option('--step-seconds <s>', 'capacity: each step held at least this long', positiveNumber, 8)
    .option(
      '--min-samples <n>',
      'capacity: each step held until this many takes were offered (at most 30 s)',
      positiveInt,
      100,
    )
    .option(
      '--no-confirm',
      'capacity: trust every step once (default: a breaking step, and the last good one, are re-run before they count)',
    )
    .option(
      '--max-generator-share <f>',
      "warn when k6 takes more than this share of the machine's CPU (0-1)",
      share,
      GENERATOR_SHARE_WARN,
    );
  // Server, credentials, --config and --print-config: the same entries as run's; --slo from the
  // same table (src/config/options.ts), so its env variable, config key and docs come with it.
  addTableOptions(load, { ...TARGET_OPTIONS, ...LOAD_OPTIONS, ...FILE_OPTIONS });
  addReportDirOption(
    load,
    'run directory (default reports/load/<run>); merge: where the merged summary goes (default the first DIR)',
  );
  load.action(async (scenario: string, dirs: string[], flags: LoadFlags) => {
    flags.reportDir = reportDirOf(flags, 'load');
    try {
      const { target, file } = resolveCommandTarget(flags);
      // Flags > SPEAK_* environment > config file, as for run (src/config/resolve.ts).
      Object.assign(flags, target);
      const loadOptions = resolveLoadOptions(flags, process.env, file);
      flags.givenSlo = loadOptions.slo;
      if (flags.printConfig) {
        process.stdout.write(
          `${JSON.stringify(printableOptions(target, file?.path, loadOptions), null, 2)}\n`,
        );
        return;
      }
      // Before k6 or the server is started: a report directory this user cannot write is a usage error.
      const reportDirProblem = flags.reportDir ? unwritableDir(flags.reportDir) : undefined;
      if (reportDirProblem) throw new ConfigError(reportDirSentence(flags.reportDir!, reportDirProblem));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      console.error(`speakcheck load: ${err.message}`);
      process.exitCode = EXIT.usage;
      return;
    }
    if (scenario === 'merge') {
      await mergeDirs(dirs, flags.reportDir);
      return;
    }
    if (dirs.length) {
      console.error(
        `speakcheck load ${scenario}: unexpected argument(s) ${dirs.join(' ')} (only merge takes directories)`,
      );
      process.exitCode = EXIT.usage;
      return;
    }
    // A usage error before any stack starts or any request is sent (issue 51 item 4).
    if (scenario !== 'capacity' && scenario !== 'crosscheck' && !isScenario(scenario)) {
      console.error(
        `speakcheck load: unknown scenario "${scenario}" (have: ${SCENARIOS.join(', ')}, capacity, crosscheck, merge)`,
      );
      process.exitCode = EXIT.usage;
      return;
    }
    // --target container: API + worker containers (src/stack/target.ts), stopped at the end,
    // on failure and on SIGINT/SIGTERM.
    let containers: StartedTarget | undefined;
    if (flags.target === 'container' && !flags.baseUrl) {
      stopTargetsOnSignal();
      try {
        containers = await startTarget('container', { onLog: (line) => console.error(line) });
      } catch (error) {
        if (!(error instanceof StackStartError)) throw error;
        console.error(`speakcheck load: ${error.message}`);
        process.exitCode = EXIT.targetUnavailable;
        return;
      }
      flags.baseUrl = containers.baseUrl;
      flags.email = containers.email;
      flags.password = containers.password;
      flags.token = undefined;
    }
    try {
      await runScenario(scenario, flags, containers !== undefined);
    } finally {
      await containers?.stop();
    }
  });
}

async function runScenario(scenario: string, flags: LoadFlags, referenceStack: boolean): Promise<void> {
  const target = {
    baseUrl: flags.baseUrl?.replace(/\/+$/, ''),
    authUrl: flags.authUrl,
    email: flags.email,
    password: flags.password,
    token: flags.token,
    model: flags.model,
  };
  if (scenario === 'capacity') {
    await capacity(target, flags);
    return;
  }
  if (scenario === 'crosscheck') {
    const r = await runCrosscheck({
      ...target,
      requests: flags.requests,
      rounds: flags.rounds,
      outDir: flags.reportDir,
    });
    if (r.reason) console.error(`speakcheck load crosscheck: ${r.reason}`);
    if (r.differenceMs !== undefined) {
      console.log(
        `k6 median TTFC ${r.k6MedianMs!.toFixed(2)} ms (${r.k6Samples} takes, ${r.k6Failures} failed), ` +
          `node median ${r.nodeMedianMs!.toFixed(2)} ms (${r.nodeSamples} takes, ${r.nodeFailures} failed): ` +
          `median difference k6 - node = ${r.differenceMs.toFixed(2)} ms`,
      );
      console.log(`report: ${r.runDir}/crosscheck.md`);
    }
    process.exitCode = r.exitCode;
    return;
  }
  if (!isScenario(scenario)) {
    console.error(
      `speakcheck load: unknown scenario "${scenario}" (have: ${SCENARIOS.join(', ')}, crosscheck)`,
    );
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    if (flags.givenSlo) parseScenarioSlo(flags.givenSlo, scenario);
  } catch (err) {
    if (!(err instanceof SloError)) throw err;
    console.error(`speakcheck load ${scenario}: ${err.message} (from ${flags.givenSlo!.source})`);
    process.exitCode = EXIT.usage;
    return;
  }
  const r = await runLoad({
    ...target,
    scenario,
    ...(flags.givenSlo ? { slo: flags.givenSlo } : {}),
    referenceStack,
    vus: flags.vus,
    duration: flags.duration,
    env: flags.env,
    outDir: flags.reportDir,
    segments: flags.segments,
    maxGeneratorShare: flags.maxGeneratorShare,
  });
  if (r.reason) console.error(`speakcheck load: ${r.reason}`);
  if (r.summary) console.log(`summary: ${r.runDir}/summary.json, ${r.runDir}/summary.md`);
  if (r.exitCode === EXIT.thresholdsFailed)
    console.error('speakcheck load: thresholds failed (see summary.md)');
  // The last line says what the run means, after k6's dump and the threshold lines.
  if (r.summary) console.log(loadVerdictLine(r.summary, r.exitCode));
  process.exitCode = r.exitCode;
}

async function capacity(target: TargetFlags, flags: LoadFlags): Promise<void> {
  if (flags.over === 'streams' && flags.mode === 'rest') {
    console.error('speakcheck load capacity: --over streams is for the websocket modes (chunks, parts)');
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    if (flags.givenSlo) parseSlo(flags.givenSlo.text);
  } catch (err) {
    if (!(err instanceof SloError)) throw err;
    console.error(`speakcheck load capacity: ${err.message} (from ${flags.givenSlo!.source})`);
    process.exitCode = EXIT.usage;
    return;
  }
  const r = await runCapacity({
    ...target,
    mode: flags.mode as CapacityMode,
    over: flags.over as CapacityDimension,
    slo: flags.givenSlo?.text,
    budgetS: flags.budget,
    start: flags.start,
    max: flags.max,
    stepS: flags.stepSeconds,
    minSamples: flags.minSamples,
    confirm: flags.confirm,
    env: flags.env,
    outDir: flags.reportDir,
    maxGeneratorShare: flags.maxGeneratorShare,
  });
  if (r.reason) console.error(`speakcheck load capacity: ${r.reason}`);
  if (r.report) {
    console.log(
      `capacity (${r.report.mode}, ${r.report.over}, SLO ${r.report.slo}): ${capacitySentence(r.report).replace(/\*\*/g, '')}`,
    );
    console.log(`report: ${r.runDir}/summary.md, ${r.runDir}/summary.html`);
  }
  process.exitCode = r.exitCode;
}

async function mergeDirs(dirs: string[], reportDir: string | undefined): Promise<void> {
  if (dirs.length === 0) {
    console.error('speakcheck load merge: give the directories to merge (e.g. reports/load/<run>)');
    process.exitCode = EXIT.usage;
    return;
  }
  try {
    const r = await mergeRun(dirs, reportDir ?? dirs[0]!);
    console.log(`merged ${r.segments.length} segment(s): ${r.segments.join(', ')}`);
    console.log(`summary: ${r.summaryPath}, ${r.summaryPath.replace(/json$/, 'md')}`);
    if (r.exitCode === EXIT.thresholdsFailed)
      console.error('speakcheck load merge: thresholds failed on the merged figures (see summary.md)');
    process.exitCode = r.exitCode;
  } catch (err) {
    if (!(err instanceof MergeError)) throw err;
    console.error(`speakcheck load merge: ${err.message}`);
    process.exitCode = EXIT.usage;
  }
}
