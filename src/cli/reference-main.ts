/**
 * `speakcheck` inside the reference image (reference/Dockerfile): only the stack's two roles, `serve`
 * and `worker`, so the image runs (and its content hash in src/stack/container.ts covers) their
 * modules and not the harness's (run, load, perf, bench, reports, requirement catalogue).
 */
import { Command } from 'commander';
import { registerServe } from './commands/serve.ts';
import { registerWorker } from './commands/worker.ts';
import { usageErrorsExit2 } from './usage-errors.ts';

const program = new Command('speakcheck').description(
  'Reference Speak v1 stack: the API (`serve --workers 0`) or one synthesis `worker`',
);
usageErrorsExit2(program, process.argv[2]);

registerServe(program);
registerWorker(program);

await program.parseAsync(process.argv);
