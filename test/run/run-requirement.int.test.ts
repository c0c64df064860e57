/**
 * `speakcheck run --requirement` end to end against the embedded reference stack: only the tests
 * covering the selected id are registered (not skipped: absent), only that requirement is judged,
 * and the report states the selection. An unknown id is an invalid option (exit 2) before anything
 * starts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { speakcheckRun } from '../support/speakcheck-run.ts';

const SELECTED = 'VERSION-MAJOR-MATCHES-PATH';
const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-requirement-'));
afterAll(() => rmSync(reportDir, { recursive: true, force: true }));

describe('speakcheck run --requirement', () => {
  test('runs only the tests covering the id, judges only it, exits 0', { timeout: 150_000 }, async () => {
    const result = await speakcheckRun(['--requirement', SELECTED, '--report-dir', reportDir], {
      timeoutMs: 140_000,
    });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain(`areas version, requirements ${SELECTED}`);
    const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
      run: { only: string[]; requirements: string[] };
      requirements: Array<{ id: string; status: string }>;
      uncovered: string[];
      tests: Array<{ key: string; state: string; requirements: string[] }>;
    };
    // The version file has five tests; one covers the id. The others are not there at all.
    expect(report.tests.length).toBeGreaterThan(0);
    for (const t of report.tests) {
      expect(t.key).toMatch(/^suites\/version\.spec\.ts > /);
      expect(t.requirements).toContain(SELECTED);
      expect(t.state).toBe('passed');
    }
    expect(report.tests.length).toBeLessThan(5);
    expect(report.requirements).toEqual([expect.objectContaining({ id: SELECTED, status: 'passed' })]);
    expect(report.uncovered).toEqual([]);
    expect(report.run).toMatchObject({ only: ['version'], requirements: [SELECTED] });
    expect(readFileSync(join(reportDir, 'conformance.md'), 'utf8')).toContain(
      `areas: version; requirements: ${SELECTED}`,
    );
  });

  test('an unknown id: exit 2 naming it and the closest known ids, nothing started', async () => {
    const result = await speakcheckRun(['--requirement', 'VERSION-MAJOR-MATCHES-PAT'], { timeoutMs: 30_000 });
    expect(result.code, result.stderr + result.stdout).toBe(2);
    expect(result.stderr).toMatch(
      /unknown requirement id VERSION-MAJOR-MATCHES-PAT \(did you mean VERSION-MAJOR-MATCHES-PATH/,
    );
    expect(result.stdout).not.toContain('starting the embedded reference stack');
  });
});
