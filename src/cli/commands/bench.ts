/** `speakcheck bench`: the main job's wall time, CPU, phases and memory, and the synthesis rates (src/bench/run-bench.ts). */
import { type Command, InvalidArgumentError } from 'commander';
import {
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
      '--latitude <name>',
      `run against a reference stack served with this latitude switch (repeatable) instead of the embedded one, e.g. hosted-latency: a hosted TTS's latencies (target <= ${TARGET_HOSTED_WALL_S} s); no memory target (the tree is the run's alone)`,
      latitudeFlag,
    )
    .argument('[runOptions...]', 'options passed to speakcheck run (after --)')
    .action(
      async (runOptions: string[], flags: { runs: number; synthesis: boolean; latitude?: string[] }) => {
        if (flags.latitude) return benchAgainstLatitude(flags.latitude, flags.runs, runOptions);
        await benchMainJob(runOptions, flags);
      },
    );
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

async function benchMainJob(
  runOptions: string[],
  flags: { runs: number; synthesis: boolean },
): Promise<void> {
  console.log(machineLine());
  console.log(`command: speakcheck run ${runOptions.join(' ')}`.trimEnd());
  // First, while the machine is quiet: measured right after the runs, the two threads got only
  // 1.74-1.82 cores and read x1.56-1.65; alone, x1.78-1.89 (what is left of the runs still winding
  // down in the background is the likely other load).
  let scaling: number | undefined;
  if (flags.synthesis) {
    const rates = await synthesisRates();
    if (typeof rates === 'string') console.log(`synthesis: ${rates}`);
    else {
      scaling = rates.scaling;
      console.log(
        `synthesis (warm): 1 thread ${rates.oneThread.toFixed(0)} audio s/s, 2 threads ${rates.twoThreads.toFixed(0)} audio s/s: x${rates.scaling.toFixed(2)} (target >= ${TARGET_SYNTH_SCALING}); the process got ${rates.twoThreadsCores.toFixed(2)} cores meanwhile (below 2: other load had the rest)`,
      );
    }
  }
  const start = await stackStart();
  console.log(`stack start alone: ready in ${start.readyS.toFixed(2)} s`);
  for (const step of start.steps) console.log(`  ${step}`);
  const results = [];
  for (let i = 1; i <= flags.runs; i++) {
    const r = await runBench(runOptions);
    results.push(r);
    console.log(`run ${i}/${flags.runs}:`);
    for (const line of [...r.summaryLines.filter((l) => /^(tests|verdict)/.test(l)), ...runLines(r)])
      console.log(`  ${line}`);
  }
  const wall = median(results.map((r) => r.wallS));
  const tree = median(results.map((r) => r.peakTreeMb));
  console.log(
    `median of ${results.length}: wall ${wall.toFixed(1)} s (target <= ${TARGET_WALL_S} s), CPU ${median(results.map((r) => r.cpuS)).toFixed(1)} s, peak RSS tree ${tree.toFixed(0)} MB (target <= ${TARGET_RSS_MB} MB; PSS ${median(results.map((r) => r.peakTreePssMb)).toFixed(0)} MB), largest process ${median(results.map((r) => r.peakSingleMb)).toFixed(0)} MB`,
  );
  const worst = results.reduce((a, b) => (b.peakTreeMb > a.peakTreeMb ? b : a));
  console.log('the tree at its highest peak:');
  for (const p of worst.atPeak) console.log(`  ${String(p.rssMb).padStart(5)} MB  ${p.command}`);
  const conforms = results.every((r) => r.exitCode === 0);
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
