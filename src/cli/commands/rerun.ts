/**
 * `speakcheck rerun REPORT_DIR`: run again only what did not pass in that run (failed, blocked,
 * non-strict, harness-error, not-concluded and expected-failure MUST, SHOULD and SECURITY requirements), through
 * the `--requirement` selection, against the same server: the report's `run.baseUrl` for a remote
 * run, the same kind of reference stack for an embedded or container run (its port is gone), or
 * `--base-url`. Credentials come from the flags and environment as for `run`: a report never holds them.
 */
import type { Command } from 'commander';
import { type OptionTable, RUN_OPTIONS, TARGET_OPTIONS } from '../../config/options.ts';
import { EXIT } from '../../exit-codes.ts';
import type { ConformanceReport } from '../../report/model.ts';
import { isRerun } from '../../verdict/standing.ts';
import { addTableOptions } from '../option-parsers.ts';
import { readReport } from './expect.ts';
import { EXIT_CODES_HELP, type RunCommandFlags, runAction } from './run.ts';

/**
 * The run's options as `rerun` takes them: the same, but the server and the profile default to the
 * report's (rerunFlags), and its help says so instead of the run's defaults.
 */
export const RERUN_OPTIONS: OptionTable = {
  ...RUN_OPTIONS,
  baseUrl: {
    ...RUN_OPTIONS.baseUrl,
    defaultText:
      "the report's run.baseUrl (a run against the embedded or container stack: a fresh stack of that kind)",
  },
  profile: { ...RUN_OPTIONS.profile, default: undefined, defaultText: "the report's profile" },
};

/** The MUST, SHOULD and SECURITY requirements of a report that did not pass (INFO never gates). */
export function rerunIds(report: ConformanceReport): string[] {
  return report.requirements.filter(isRerun).map((r) => r.id);
}

/** The run flags of the rerun: the selection and, unless given, the server and profile of the report. */
export function rerunFlags(
  report: ConformanceReport,
  flags: RunCommandFlags,
  ids: string[],
): RunCommandFlags {
  const { run } = report;
  const sameServer =
    flags.baseUrl !== undefined || process.env[TARGET_OPTIONS.baseUrl.env]
      ? {}
      : run.target === 'remote'
        ? { baseUrl: run.baseUrl }
        : { target: flags.target ?? run.target };
  return {
    ...flags,
    ...sameServer,
    // SPEAK_PROFILE, like SPEAK_BASE_URL, is the user's word over the report's.
    profile: flags.profile ?? (process.env[RUN_OPTIONS.profile.env] ? undefined : run.profile),
    requirement: ids.join(','),
  };
}

export function registerRerun(program: Command): void {
  const command = program
    .command('rerun')
    .argument('<report_dir>', 'the report directory of a run (with conformance.json)')
    .description(
      'Rerun only the requirements that did not pass in a run (failed, blocked, …), against the same server ' +
        `(its run.baseUrl; an embedded run: a fresh embedded stack) unless --base-url is given. Credentials: flags/env as for run.\n${EXIT_CODES_HELP}`,
    );
  addTableOptions(command, RERUN_OPTIONS).action(async (dir: string, flags: RunCommandFlags) => {
    let report: ConformanceReport;
    try {
      report = readReport(dir);
    } catch (e) {
      process.stderr.write(`speakcheck rerun: ${(e as Error).message}\n`);
      process.exit(EXIT.usage);
    }
    const ids = rerunIds(report);
    if (ids.length === 0) {
      process.stdout.write(
        `speakcheck rerun: every MUST, SHOULD and SECURITY requirement of ${dir} passed: nothing to rerun.\n`,
      );
      process.exit(EXIT.ok);
    }
    process.stdout.write(`speakcheck rerun: ${ids.length} requirement(s) of ${dir}: ${ids.join(', ')}\n`);
    await runAction(rerunFlags(report, flags, ids));
  });
}
