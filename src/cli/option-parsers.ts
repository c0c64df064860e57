/**
 * Commander options and parsers shared by the commands: one wording for each usage error, one name for
 * each option; the options of the option table (src/config/options.ts) as commander options.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { helpText, type OptionSpec, type OptionTable } from '../config/options.ts';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** `--env NAME=value` (repeatable): the k6 scenario knobs, collected into one object. */
export function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected NAME=value (NAME in upper case, e.g. RATE=8)');
  return { ...previous, [match[1]!]: match[2]! };
}

/**
 * `--report-dir DIR`: the one name of "where this command writes its reports" (run, rerun, load,
 * perf compare, perf history). `--out DIR`, perf's name for it before, stays as a hidden alias that
 * warns; read the value with reportDirOf.
 */
export function addReportDirOption(command: Command, description: string): Command {
  return command
    .option('--report-dir <dir>', description)
    .addOption(new Option('--out <dir>', 'deprecated: use --report-dir').hideHelp());
}

/** The report directory given (`--report-dir`, else the deprecated `--out`, with a warning). */
export function reportDirOf(
  flags: { reportDir?: string; out?: string },
  command: string,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): string | undefined {
  if (flags.out === undefined) return flags.reportDir;
  warn(`speakcheck ${command}: --out is deprecated, use --report-dir (same meaning)`);
  return flags.reportDir ?? flags.out;
}

/** The commander option of a table entry (src/config/options.ts): its flag, its generated help. */
export function commanderOption(spec: OptionSpec<unknown>, helpPrefix = ''): Option {
  const option = new Option(spec.flag, `${helpPrefix}${helpText(spec)}`);
  // Repeatable: each occurrence adds its (comma-separated) values.
  if (spec.kind === 'list')
    option.argParser((value: string, previous: string[] = []) => [...previous, value]);
  return option;
}

/** Adds every option of a table, in its order; `helpPrefix` says when they apply (`--interleave: `). */
export function addTableOptions(command: Command, table: OptionTable, helpPrefix = ''): Command {
  for (const spec of Object.values(table)) command.addOption(commanderOption(spec, helpPrefix));
  return command;
}
