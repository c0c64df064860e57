/** A report directory is checked before a command contacts anything (issue 51 item 5); nothing is created. */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { reportDirSentence, unwritableDir } from '../../src/cli/writable-dir.ts';

const scratch = mkdtempSync(join(tmpdir(), 'speakcheck-writable-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('unwritableDir', () => {
  test('an existing directory, or one to be made in a writable parent: writable, and not created', () => {
    expect(unwritableDir(scratch)).toBeUndefined();
    const deep = join(scratch, 'reports', '2026-11-27');
    expect(unwritableDir(deep)).toBeUndefined();
    expect(existsSync(join(scratch, 'reports'))).toBe(false);
  });

  test('a file where a parent directory should be: ENOTDIR', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    expect(unwritableDir(file)).toBe('ENOTDIR');
    expect(unwritableDir(join(file, 'reports'))).toBe('ENOTDIR');
  });

  test('the sentence names the option', () => {
    expect(reportDirSentence('/srv/project/reports', 'EACCES')).toBe(
      'the report directory /srv/project/reports cannot be written (EACCES): give --report-dir a directory this user can write',
    );
  });
});
