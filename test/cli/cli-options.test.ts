/** One name for the report directory of every command: `--report-dir`; `--out` a deprecated alias that warns. */
import { Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { addReportDirOption, reportDirOf } from '../../src/cli/option-parsers.ts';

function parse(argv: string[]): { dir: string | undefined; warnings: string[]; help: string } {
  const command = new Command('perf-compare').exitOverride();
  addReportDirOption(command, 'report directory');
  const warnings: string[] = [];
  let dir: string | undefined;
  command.action((flags: { reportDir?: string; out?: string }) => {
    dir = reportDirOf(flags, 'perf compare', (line) => warnings.push(line));
  });
  command.parse(argv, { from: 'user' });
  return { dir, warnings, help: command.helpInformation() };
}

describe('--report-dir', () => {
  test('the one name: no warning', () => {
    expect(parse(['--report-dir', 'r1'])).toMatchObject({ dir: 'r1', warnings: [] });
  });

  test('--out still works, with a warning naming the new option; hidden from --help', () => {
    const r = parse(['--out', 'r2']);
    expect(r.dir).toBe('r2');
    expect(r.warnings).toEqual([
      'speakcheck perf compare: --out is deprecated, use --report-dir (same meaning)',
    ]);
    expect(r.help).toContain('--report-dir <dir>');
    expect(r.help).not.toContain('--out');
  });

  test('both given: --report-dir wins', () => {
    expect(parse(['--out', 'old', '--report-dir', 'new']).dir).toBe('new');
  });
});
