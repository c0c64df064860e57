/** Commander option parsers shared by the commands (`load`, `perf`): one wording for each usage error. */
import { InvalidArgumentError } from 'commander';

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
