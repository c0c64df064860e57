/**
 * `speakcheck bench`: wall time and peak memory of a full conformance run (src/bench/run-bench.ts);
 * `bench --ws-ttfc`: websocket time to first audio against a reference stack started here (the
 * measuring code is reference/bench/ws-ttfc-bench.ts; the CLI, the composition root, may import it).
 */
import type { Command } from 'commander';
import { runBench, TARGET_RSS_MB, TARGET_WALL_S } from '../../bench/run-bench.ts';
import { StackStartError } from '../../stack/embedded.ts';
import { type StartedTarget, startTarget } from '../../stack/target.ts';
import { EXIT } from '../exit-codes.ts';
import { positiveInt } from '../option-parsers.ts';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      `time a full \`speakcheck run\` against the embedded stack: wall time (target <= ${TARGET_WALL_S} s) and peak RSS of the process tree (target <= ${TARGET_RSS_MB} MB); ` +
        'with --ws-ttfc: websocket time to first audio against the reference stack instead',
    )
    .argument('[runOptions...]', 'options passed to speakcheck run (after --)')
    .option(
      '--ws-ttfc',
      'websocket time to first (playable) audio, chunks and parts mode, against a fresh reference stack',
    )
    .option('--runs <n>', '--ws-ttfc: requests per mode', positiveInt, 30)
    .action(async (runOptions: string[], flags: { wsTtfc?: boolean; runs: number }) => {
      if (flags.wsTtfc) {
        await wsTtfc(flags.runs);
        return;
      }
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

async function wsTtfc(runs: number): Promise<void> {
  // Not in the published package (package.json files: !reference/bench/): a checkout only.
  const { wsTtfcBench } = await import('../../../reference/bench/ws-ttfc-bench.ts');
  let stack: StartedTarget;
  try {
    stack = await startTarget('embedded');
  } catch (err) {
    if (!(err instanceof StackStartError)) throw err;
    console.error(`speakcheck bench: could not run: ${err.message}`);
    process.exitCode = EXIT.targetUnavailable;
    return;
  }
  try {
    await wsTtfcBench({ baseUrl: stack.baseUrl, email: stack.email, password: stack.password, runs });
  } finally {
    await stack.stop();
  }
}
