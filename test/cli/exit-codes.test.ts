/**
 * One exit-code table for every command: each number means one thing, and README's table (the one
 * place it is documented, generated from src/exit-codes.ts by `npm run docs:config`) lists exactly
 * these numbers; test/docs/docs-drift.test.ts keeps copies out of the other documents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXIT, EXIT_CODE_DOC, exitCodesHelp, renderExitCodesSection } from '../../src/exit-codes.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

describe('exit codes', () => {
  test('each code has one meaning (3: no verdict on the server, for either reason)', () => {
    const { harnessError, ...rest } = EXIT;
    const codes = Object.values(rest);
    expect(new Set(codes).size).toBe(codes.length);
    expect(harnessError).toBe(EXIT.targetUnavailable);
  });

  test("README's table lists every code, and no other", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('<a id="exit-codes"></a>'));
    const rows = table
      .split('\n')
      .slice(2)
      .filter((line) => /^\| \d+ \|/.test(line));
    const documented = rows.map((line) => Number(/^\| (\d+) \|/.exec(line)![1]));
    expect(documented.sort((a, b) => a - b)).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
  });

  test("README's table is what src/exit-codes.ts generates (npm run docs:config writes it)", () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme, 'README.md exit codes are stale: run npm run docs:config').toBe(
      renderExitCodesSection(readme),
    );
    expect(
      Object.keys(EXIT_CODE_DOC)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
  });

  test('unavailable target and missing tool no longer share a number (run 3 vs load 3 before)', () => {
    expect(EXIT.targetUnavailable).not.toBe(EXIT.toolMissing);
    expect(exitCodesHelp(['ok', 'toolMissing'])).toBe(
      'Exit codes: 0 ok, 4 tool missing (k6) (README "Exit codes").',
    );
  });

  test('a number shared by two rows is listed once (`run --help` said 3 twice)', () => {
    const help = exitCodesHelp(['ok', 'failed', 'usage', 'targetUnavailable', 'harnessError', 'interrupted']);
    expect(help.match(/\b3 /g)).toHaveLength(1);
    expect(help).toContain('3 target unavailable or harness error (a bug of speakcheck)');
  });
});
