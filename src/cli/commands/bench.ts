/** `speakcheck bench`: wall time and peak memory of a full conformance run (src/bench/run-bench.ts). */
import type { Command } from 'commander';
import { runBench, TARGET_RSS_MB, TARGET_WALL_S } from '../../bench/run-bench.ts';
import { EXIT } from '../exit-codes.ts';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      `time a full \`speakcheck run\` against the embedded stack: wall time (target <= ${TARGET_WALL_S} s) and peak RSS of the process tree (target <= ${TARGET_RSS_MB} MB)`,
    )
    .argument('[runOptions...]', 'options passed to speakcheck run (after --)')
    .action(async (runOptions: string[]) => {
      const r = await runBench(runOptions);
      for (const line of r.summaryLines) console.log(`  ${line}`);
      console.log(`speakcheck run: exit ${r.exitCode}`);
      console.log(`wall time:        ${r.wallS.toFixed(1)} s (target <= ${TARGET_WALL_S} s)`);
      console.log(
        `peak RSS (tree):  ${r.peakTreeMb.toFixed(0)} MB (target <= ${TARGET_RSS_MB} MB), ${r.peakProcesses} processes at most`,
      );
      console.log(`peak RSS (largest process): ${r.peakSingleMb.toFixed(0)} MB`);
      console.log('at the peak:');
      for (const p of r.atPeak) console.log(`  ${String(p.rssMb).padStart(5)} MB  ${p.command}`);
      process.exitCode = r.wallS <= TARGET_WALL_S && r.peakTreeMb <= TARGET_RSS_MB ? EXIT.ok : EXIT.failed;
    });
}
