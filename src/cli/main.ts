/**
 * The `speakcheck` command. Thin on purpose: each subcommand lives in its own module under
 * ./commands and only parses its options, calls the library and prints.
 */
import { Command } from 'commander';
import { registerBench } from './commands/bench.ts';
import { registerLoad } from './commands/load.ts';
import { registerPerf } from './commands/perf.ts';
import { registerRun } from './commands/run.ts';
import { registerServe } from './commands/serve.ts';
import { registerWorker } from './commands/worker.ts';

const program = new Command('speakcheck')
  .description('Conformance harness, load tester and reference server for the Speak v1 TTS API')
  .showHelpAfterError();

registerRun(program);
registerServe(program);
registerLoad(program);
registerPerf(program);
registerBench(program);
registerWorker(program);

// With no subcommand at all, the main job: the whole conformance suite against the embedded stack.
const argv = process.argv.slice(2).length === 0 ? [...process.argv, 'run'] : process.argv;
await program.parseAsync(argv);
