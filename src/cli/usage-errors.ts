/**
 * Usage errors, the same for every command: one sentence on stderr and exit 2 (src/exit-codes.ts),
 * before anything is contacted. commander's default is exit 1, which the exit-code table gives to
 * "the answer is no" — a typo read as "does not conform" — and, with showHelpAfterError, 135 lines
 * of help after the one that matters.
 */
import type { Command, CommanderError } from 'commander';
import { EXIT } from '../exit-codes.ts';

/** commander's codes for help and --version: asked for, not errors. */
const NOT_AN_ERROR = new Set(['commander.helpDisplayed', 'commander.version']);

/** The exit code of a commander error: 0 for help asked for, else a usage error. */
export function usageExitCode(error: Pick<CommanderError, 'code' | 'exitCode'>): number {
  return NOT_AN_ERROR.has(error.code) && error.exitCode === 0 ? EXIT.ok : EXIT.usage;
}

/** commander's `error: unknown option '--bogus'\n(Did you mean …?)` as one line naming the command. */
export function usageSentence(message: string, commandName: string | undefined): string {
  const said = message
    .replace(/^error:\s*/, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
  const who = commandName ? `speakcheck ${commandName}` : 'speakcheck';
  return `${who}: ${said} (${who} --help lists the options).\n`;
}

/**
 * Set on the program before its commands are registered (subcommands inherit both settings).
 * `exit` and `writeErr` are the process's; tests pass their own.
 */
export function usageErrorsExit2(
  program: Command,
  commandName: string | undefined,
  exit: (code: number) => never = process.exit,
  writeErr: (text: string) => void = (text) => process.stderr.write(text),
): Command {
  return program
    .configureOutput({
      writeErr,
      outputError: (message, write) => write(usageSentence(message, commandName)),
    })
    .exitOverride((error) => exit(usageExitCode(error)));
}
