/**
 * The `--defect NAME` flag shared by `speakcheck serve` and `speakcheck worker`: the same parsing
 * (an unknown name is refused, listing the known ones) and the same loud announcement, so a defective
 * process can never pass for a clean one in either role.
 */
import { InvalidArgumentError } from 'commander';
import { DEFECTS, findDefect } from '../../reference/defects/index.ts';
import { findLatitude, LATITUDES } from '../../reference/latitude/index.ts';

export const DEFECT_FLAG_DESCRIPTION =
  'turn on a deliberate contract defect, to prove the harness catches it (repeatable; testing only)';

/** commander argument parser for a repeatable `--defect NAME`. */
export function defectFlag(value: string, previous: string[] = []): string[] {
  if (!findDefect(value)) {
    throw new InvalidArgumentError(
      `unknown defect ${JSON.stringify(value)}; known defects: ${DEFECTS.map((x) => x.name).join(', ')}`,
    );
  }
  return [...previous, value];
}

/**
 * Loud on both streams: the `defects=a,b` line for stdout (none when clean) and a WARNING in the log.
 */
export function announceDefects(names: readonly string[], log: (line: string) => void): string[] {
  if (names.length === 0) return [];
  log(`WARNING: DEFECTIVE STACK (testing only): ${names.join(', ')}`);
  return [`defects=${names.join(',')}`];
}

export const LATITUDE_FLAG_DESCRIPTION =
  'make one choice the contract leaves open the other way, to prove the harness is fair (repeatable; testing only)';

/** commander argument parser for a repeatable `--latitude NAME`. */
export function latitudeFlag(value: string, previous: string[] = []): string[] {
  if (!findLatitude(value)) {
    throw new InvalidArgumentError(
      `unknown latitude ${JSON.stringify(value)}; known latitude switches: ${LATITUDES.map((x) => x.name).join(', ')}`,
    );
  }
  return [...previous, value];
}

/** Loud like defects: the `latitude=a,b` line for stdout (none by default) and a log line. */
export function announceLatitude(names: readonly string[], log: (line: string) => void): string[] {
  if (names.length === 0) return [];
  log(`LATITUDE: choices the contract leaves open made the other way (testing only): ${names.join(', ')}`);
  return [`latitude=${names.join(',')}`];
}

/** The names `--defect` and `--latitude` accept, for `serve --help` and `worker --help` (issue 51 item 12). */
export function switchNamesHelp(): string {
  return [
    '',
    `Defects (--defect NAME; reference/defects/README.md): ${DEFECTS.map((x) => x.name).join(', ')}`,
    '',
    `Latitude switches (--latitude NAME; reference/latitude/README.md): ${LATITUDES.map((x) => x.name).join(', ')}`,
  ].join('\n');
}
