/**
 * The `speakcheck` command. Thin on purpose: each subcommand lives in its own module under
 * ./commands and only parses its options, calls the library and prints. A command's module is
 * imported only when that command runs: `speakcheck run` never loads the reference server, k6,
 * perf or bench code, and `serve` (the embedded stack's API process) never loads the harness.
 */
import { Command } from 'commander';
import { speakcheckVersion } from '../version.ts';
import { usageErrorsExit2 } from './usage-errors.ts';

type Registrar = (program: Command) => void;

/** Name and one-line description (for --help) of each command, and how to load it. */
const COMMANDS: Array<{ name: string; summary: string; load: () => Promise<Registrar> }> = [
  {
    name: 'run',
    summary: 'run the Speak v1 conformance suites against a server (default: the embedded reference stack)',
    load: async () => (await import('./commands/run.ts')).registerRun,
  },
  {
    name: 'rerun',
    summary: 'rerun only the requirements that did not pass in a run (from its report directory)',
    load: async () => (await import('./commands/rerun.ts')).registerRerun,
  },
  {
    name: 'expect',
    summary: "write an expect file (expected failures) from a run's report",
    load: async () => (await import('./commands/expect.ts')).registerExpect,
  },
  {
    name: 'compare',
    summary: 'compare conformance runs side by side (the first the baseline): what changed, what regressed',
    load: async () => (await import('./commands/compare.ts')).registerCompare,
  },
  {
    name: 'serve',
    summary: 'start the reference stack',
    load: async () => (await import('./commands/serve.ts')).registerServe,
  },
  {
    name: 'load',
    summary: 'load-test a server',
    load: async () => (await import('./commands/load.ts')).registerLoad,
  },
  {
    name: 'perf',
    summary: 'compare load-test runs',
    load: async () => (await import('./commands/perf.ts')).registerPerf,
  },
  {
    name: 'bench',
    summary: 'time a full conformance run against the embedded stack',
    load: async () => (await import('./commands/bench.ts')).registerBench,
  },
  {
    name: 'worker',
    summary: 'run one synthesis worker outside the API process',
    load: async () => (await import('./commands/worker.ts')).registerWorker,
  },
];

const program = new Command('speakcheck')
  .description('Conformance harness, load tester and reference server for the Speak v1 TTS API')
  .version(speakcheckVersion(), '-V, --version');

// With no subcommand at all, the main job: the whole conformance suite against the embedded stack.
const argv = process.argv.slice(2).length === 0 ? [...process.argv, 'run'] : process.argv;
const named = argv[2] === 'help' ? argv[3] : argv[2];
const chosen = COMMANDS.find((c) => c.name === named);
// Every usage error: one sentence, exit 2 (a typo never reads as "does not conform").
usageErrorsExit2(program, chosen?.name);
if (chosen) {
  // Only this command is registered in full: its options, arguments and help.
  (await chosen.load())(program);
} else {
  // Top-level help, an unknown command or a bare option: list the commands without loading them.
  for (const c of COMMANDS) program.command(c.name).description(c.summary);
}
await program.parseAsync(argv);
