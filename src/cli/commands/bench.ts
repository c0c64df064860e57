/** `speakcheck bench`: the main job's wall time, CPU, phases and memory, and the synthesis rates (src/bench/run-bench.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { checkoutOf, pairedLines, pairedRatios } from '../../bench/against.ts';
import { breakdownLines } from '../../bench/cpu-breakdown.ts';
import { profileLines, readProfiles, summarize } from '../../bench/cpu-profile.ts';
import {
  type BenchResult,
  machineLine,
  runBench,
  runLines,
  serveWithLatitude,
  stackStart,
  synthesisRates,
  TARGET_HOSTED_WALL_S,
  TARGET_RSS_MB,
  TARGET_SYNTH_SCALING,
  TARGET_WALL_S,
} from '../../bench/run-bench.ts';
import { EXIT } from '../../exit-codes.ts';
import { median } from '../../figures/stats.ts';
import {
  BENCH_DECIDING_RUNS,
  judgeTarget,
  NOISE,
  type TargetOutcome,
  worstOutcome,
} from '../../figures/target.ts';
import { latitudeFlag } from '../defect-flag.ts';

/** The bench's answer line and exit code: a miss is 1, too few runs near a target 5 (INCONCLUSIVE). */
function benchVerdict(runsDone: number, ran: boolean, outcomes: Record<string, TargetOutcome>): number {
  const worst = ran ? worstOutcome(Object.values(outcomes)) : 'missed';
  const named = (o: TargetOutcome) =>
    Object.entries(outcomes)
      .filter(([, v]) => v === o)
      .map(([k]) => k)
      .join(', ');
  if (!ran) console.log('bench: a run did not conform or did not finish (see its lines above)');
  else if (worst === 'missed') console.log(`bench: TARGET MISSED — ${named('missed')}`);
  else if (worst === 'inconclusive')
    console.log(
      `bench: INCONCLUSIVE — ${named('inconclusive')} within ${NOISE * 100} % of the target with ${runsDone} run${runsDone === 1 ? '' : 's'}: --runs ${BENCH_DECIDING_RUNS} or more would decide`,
    );
  else console.log('bench: TARGETS MET');
  return worst === 'met' ? EXIT.ok : worst === 'inconclusive' ? EXIT.inconclusive : EXIT.failed;
}

function runs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 50) throw new InvalidArgumentError('must be an integer 1..50');
  return n;
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      `time full \`speakcheck run\`s against the embedded stack: median wall time (target <= ${TARGET_WALL_S} s), CPU seconds, phases, per-area times and peak RSS of the process tree (target <= ${TARGET_RSS_MB} MB); a stack start step by step; synthesis with 1 and 2 espeak threads (target x${TARGET_SYNTH_SCALING})`,
    )
    .option('--runs <n>', 'full runs (the median is judged)', runs, 1)
    .option('--no-synthesis', 'skip the synthesis rates')
    .option(
      '--against <ref-or-dir>',
      'pair every run with one of another checkout (a git ref of this clone, or a directory with bin/speakcheck.js), alternating, and print the ratios this/against',
    )
    .option(
      '--profile <dir>',
      'after the timed runs, one more run with V8 CPU profiles of every process and thread (--cpu-prof) written to <dir>; prints the top self-time functions',
    )
    .option('--json <file>', 'write every figure (runs, CPU by process and phase, pairs, profile) as JSON')
    .option(
      '--latitude <name>',
      `run against a reference stack served with this latitude switch (repeatable) instead of the embedded one, e.g. hosted-latency: a hosted TTS's latencies (target <= ${TARGET_HOSTED_WALL_S} s); no memory target (the tree is the run's alone)`,
      latitudeFlag,
    )
    .argument('[runOptions...]', 'options passed to speakcheck run (after --)')
    .action(async (runOptions: string[], flags: MainJobFlags & { latitude?: string[] }) => {
      if (flags.latitude) return benchAgainstLatitude(flags.latitude, flags.runs, runOptions);
      await benchMainJob(runOptions, flags);
    });
}

/** Runs against `serve --latitude …` (as against any server): median wall time against the hosted target. */
async function benchAgainstLatitude(latitudes: string[], runs: number, runOptions: string[]): Promise<void> {
  console.log(machineLine());
  console.log(
    `command: speakcheck run --base-url <serve --latitude ${latitudes.join(' --latitude ')}> ${runOptions.join(' ')}`.trimEnd(),
  );
  const results = [];
  for (let i = 1; i <= runs; i++) {
    // A stack per run: nothing one run made (takes, voices, rate-limit buckets) weighs on the next.
    const stack = await serveWithLatitude(latitudes);
    try {
      const r = await runBench([...stack.runArgs, ...runOptions]);
      results.push(r);
      console.log(`run ${i}/${runs}:`);
      for (const line of [...r.summaryLines.filter((l) => /^(tests|judged|verdict)/.test(l)), ...runLines(r)])
        console.log(`  ${line}`);
    } finally {
      await stack.stop();
    }
  }
  const wall = median(results.map((r) => r.wallS));
  const hosted = latitudes.includes('hosted-latency');
  console.log(
    `median of ${results.length}: wall ${wall.toFixed(1)} s${hosted ? ` (target <= ${TARGET_HOSTED_WALL_S} s)` : ''}, CPU ${median(results.map((r) => r.cpuS)).toFixed(1)} s (the run's tree only)`,
  );
  const ran = results.every((r) => r.exitCode === 0);
  const walls = results.map((r) => r.wallS);
  process.exitCode = benchVerdict(
    results.length,
    ran,
    hosted ? { wall: judgeTarget(walls, TARGET_HOSTED_WALL_S, 'at most') } : {},
  );
}

interface MainJobFlags {
  runs: number;
  synthesis: boolean;
  against?: string;
  profile?: string;
  json?: string;
}

/** The run whose CPU is the median (its breakdown is the one printed). */
function medianRun(results: BenchResult[]): BenchResult {
  const sorted = [...results].sort((a, b) => a.cpuS - b.cpuS);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function printRun(label: string, r: BenchResult): void {
  console.log(`${label}:`);
  for (const line of [...r.summaryLines.filter((l) => /^(tests|judged|verdict)/.test(l)), ...runLines(r)])
    console.log(`  ${line}`);
}

async function benchMainJob(runOptions: string[], flags: MainJobFlags): Promise<void> {
  console.log(machineLine());
  console.log(`command: speakcheck run ${runOptions.join(' ')}`.trimEnd());
  const json: Record<string, unknown> = {
    machine: machineLine(),
    command: `speakcheck run ${runOptions.join(' ')}`.trim(),
  };
  // First, while the machine is quiet: measured right after the runs, the two threads got only
  // 1.74-1.82 cores and read x1.56-1.65; alone, x1.78-1.89 (what is left of the runs still winding
  // down in the background is the likely other load).
  let scaling: number | undefined;
  if (flags.synthesis && !flags.against) {
    const rates = await synthesisRates();
    json.synthesis = rates;
    if (typeof rates === 'string') console.log(`synthesis: ${rates}`);
    else {
      scaling = rates.scaling;
      console.log(
        `synthesis (warm): 1 thread ${rates.oneThread.toFixed(0)} audio s/s, 2 threads ${rates.twoThreads.toFixed(0)} audio s/s: x${rates.scaling.toFixed(2)} (target >= ${TARGET_SYNTH_SCALING}); the process got ${rates.twoThreadsCores.toFixed(2)} cores meanwhile (below 2: other load had the rest)`,
      );
    }
  }
  if (!flags.against) {
    const start = await stackStart();
    json.stackStart = start;
    console.log(`stack start alone: ready in ${start.readyS.toFixed(2)} s`);
    for (const step of start.steps) console.log(`  ${step}`);
  }
  const other = flags.against ? checkoutOf(flags.against) : undefined;
  const results: BenchResult[] = [];
  const against: BenchResult[] = [];
  try {
    for (let i = 1; i <= flags.runs; i++) {
      if (other) {
        const b = await runBench(runOptions, { root: other.root });
        against.push(b);
        printRun(`run ${i}/${flags.runs}, against ${other.name}`, b);
      }
      const r = await runBench(runOptions);
      results.push(r);
      printRun(`run ${i}/${flags.runs}${other ? ', this checkout' : ''}`, r);
    }
  } finally {
    other?.remove();
  }
  json.runs = results;
  const spread = (f: (r: BenchResult) => number, digits = 1) => {
    const v = results.map(f);
    return `${median(v).toFixed(digits)} (${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)})`;
  };
  console.log(
    `median (min–max) of ${results.length}: wall ${spread((r) => r.wallS)} s (target <= ${TARGET_WALL_S} s), CPU ${spread((r) => r.cpuS)} s, peak RSS tree ${spread((r) => r.peakTreeMb, 0)} MB (target <= ${TARGET_RSS_MB} MB; PSS ${median(results.map((r) => r.peakTreePssMb)).toFixed(0)} MB), largest process ${median(results.map((r) => r.peakSingleMb)).toFixed(0)} MB`,
  );
  console.log('the median-CPU run, where its CPU went:');
  for (const line of breakdownLines(medianRun(results).cpu)) console.log(`  ${line}`);
  const worst = results.reduce((a, b) => (b.peakTreeMb > a.peakTreeMb ? b : a));
  console.log('the tree at its highest peak:');
  for (const p of worst.atPeak) console.log(`  ${String(p.rssMb).padStart(5)} MB  ${p.command}`);
  if (other) {
    json.against = { name: other.name, runs: against, ...pairedRatios(against, results) };
    console.log(`the median-CPU run of ${other.name}, where its CPU went:`);
    for (const line of breakdownLines(medianRun(against).cpu)) console.log(`  ${line}`);
    for (const line of pairedLines(other.name, against, results)) console.log(line);
  }
  if (flags.profile) json.profile = await profiledRun(runOptions, resolve(flags.profile));
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(json, null, 1)}\n`);
  const conforms = [...results, ...against].every((r) => r.exitCode === 0);
  process.exitCode = benchVerdict(results.length, conforms, {
    wall: judgeTarget(
      results.map((r) => r.wallS),
      TARGET_WALL_S,
      'at most',
    ),
    'peak RSS tree': judgeTarget(
      results.map((r) => r.peakTreeMb),
      TARGET_RSS_MB,
      'at most',
    ),
    ...(scaling === undefined
      ? {}
      : // Measured once whatever --runs says: more runs would not decide it, so met or missed.
        { 'synthesis scaling': scaling >= TARGET_SYNTH_SCALING ? 'met' : 'missed' }),
  });
}

/** One more run, every Node process and thread under V8's CPU profiler; its top functions printed. */
async function profiledRun(runOptions: string[], dir: string) {
  mkdirSync(dir, { recursive: true });
  console.log(`profiled run (not in the figures above: the profiler slows it), profiles in ${dir}:`);
  const r = await runBench(runOptions, { profileDir: dir });
  for (const line of runLines(r)) console.log(`  ${line}`);
  const summary = summarize(readProfiles(dir));
  // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is a process's main thread.
  const processOf = (file: string) => {
    const [pid, thread] = basename(file).split('.').slice(3, 5).map(Number);
    const label = r.labels[pid!] ?? `pid ${pid}`;
    return thread ? `${label}, worker thread ${thread}` : `${label}, main thread`;
  };
  for (const line of profileLines(summary, processOf)) console.log(`  ${line}`);
  return { dir, run: r, ...summary };
}
