/** `speakcheck run`: parse the options, resolve the config, hand over to the run. Exit codes: src/exit-codes.ts. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CacheDirError, resolveCacheDir } from '../../config/cache-dir.mjs';
import { loadConfigFile } from '../../config/config-file.ts';
import { type DeepReadonly, deepFreeze } from '../../config/deep-freeze.ts';
import { RUN_OPTIONS } from '../../config/options.ts';
import { ConfigError, printableRun, type RunFlags, resolveRun } from '../../config/resolve.ts';
import type { RunConfig } from '../../config/types.ts';
import { EXIT, exitCodesHelp } from '../../exit-codes.ts';
import { runConformance } from '../../run/run-conformance.ts';
import { addTableOptions } from '../option-parsers.ts';
import { reportDirSentence, unwritableDir } from '../writable-dir.ts';

/** What commander hands over for run and rerun: every option of the run table. */
export type RunCommandFlags = RunFlags;

export const EXIT_CODES_HELP = exitCodesHelp([
  'ok',
  'failed',
  'usage',
  'targetUnavailable',
  'harnessError',
  'interrupted',
]);

export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description(
      `Run the Speak v1 conformance suites against a server (default: the embedded reference stack).\n${EXIT_CODES_HELP}`,
    );
  addRunOptions(command).action(runAction);
}

/** The options of `run`, shared by `rerun` (the same names, the same meaning): the run's option table. */
export function addRunOptions(command: Command): Command {
  return addTableOptions(command, RUN_OPTIONS);
}

/** Resolve the config and run; exits the process with the run's code. */
export async function runAction(flags: RunCommandFlags): Promise<never> {
  let code: number;
  try {
    const file = loadConfigFile(flags.config);
    // Listing and printing contact nothing: they need no credentials.
    const contactsNothing = flags.printConfig === true || flags.list === true;
    const run = resolveRun(flags, process.env, new Date(), file?.values, {
      credentials: contactsNothing ? 'optional' : 'required',
    });
    if (flags.printConfig) {
      process.stdout.write(`${JSON.stringify(printableRun(run, file?.path), null, 2)}\n`);
      process.exit(EXIT.ok);
    }
    // A cache directory that cannot be written is said before anything starts (exit 2 or 3). The
    // report directory made absolute here: the JUnit and Allure reporters resolve a relative path
    // against the suites' root, not the working directory the user named it from.
    // Frozen: the run never changes its config (what the suites see is the run plan it makes).
    const config = deepFreeze<RunConfig>({
      ...run.config,
      cacheDir: resolveCacheDir(run.config.cacheDir),
      reportDir: resolve(run.config.reportDir),
    });
    if (flags.list) process.exit(await listAction(config));
    // Said before the server is contacted: a usage error, not "could not run" after the fact.
    const reportDirProblem = unwritableDir(config.reportDir);
    if (reportDirProblem) throw new ConfigError(reportDirSentence(config.reportDir, reportDirProblem));
    code = await runConformance(config, {
      allureHtml: flags.allureHtml === true,
      maxTimeMs: run.maxTimeMs,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`speakcheck run: ${err.message}\n`);
      code = EXIT.usage;
    } else if (err instanceof CacheDirError) {
      process.stderr.write(`speakcheck run: ${err.message}.\n`);
      code = err.exitCode;
    } else {
      process.stderr.write(
        `speakcheck run: could not run: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      code = EXIT.targetUnavailable;
    }
  }
  // Vitest and undici may keep handles open; the verdict is final here.
  process.exit(code);
}

/** `run --list`: collect, print, exit 0 (1 when a suite file does not load). */
async function listAction(config: DeepReadonly<RunConfig>): Promise<number> {
  const { collectTests, formatList } = await import('../../run/list-tests.ts');
  const { files, errors } = await collectTests(config);
  process.stdout.write(`${formatList(files, config)}\n`);
  for (const e of errors) process.stderr.write(`speakcheck run --list: ${e}\n`);
  return errors.length > 0 ? EXIT.failed : EXIT.ok;
}
