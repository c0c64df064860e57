/**
 * Old reports still load (issue 48): conformance.json files written by speakcheck 0.1.0 (52414b9),
 * before the verdict model, kept as they were written (gzipped): a whole run against the clean
 * reference stack, and one against `serve --defect login-fail-403 --defect voice-never-ready
 * --defect leak-take-by-id --defect version-string --latitude pages-from-0` (failed, blocked, not
 * observed and not concluded requirements). `compare` and `rerun` read them through the versioned
 * reader (src/report/report-version.ts), and every standing the reader gives agrees with the label
 * the old speakcheck wrote.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { readReport } from '../../src/cli/commands/expect.ts';
import { rerunIds } from '../../src/cli/commands/rerun.ts';
import { compareRuns } from '../../src/compare/diff.ts';
import { readRuns } from '../../src/compare/load-run.ts';
import { OBSERVATIONS_NOT_COMPARED } from '../../src/compare/observations.ts';
import { REPORT_VERSION } from '../../src/report/model.ts';
import { labelOf } from '../../src/verdict/standing.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'reports');
const dir = mkdtempSync(join(tmpdir(), 'speakcheck-old-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture unpacked as a report directory (DIR/conformance.json), as a run leaves it. */
function reportDir(name: 'v1-clean' | 'v1-broken'): string {
  const into = join(dir, name);
  const json = gunzipSync(readFileSync(join(FIXTURES, `${name}.conformance.json.gz`)));
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into);
  writeFileSync(join(into, 'conformance.json'), json);
  return into;
}

/** The labels as the old speakcheck wrote them. */
function writtenLabels(into: string): Map<string, string> {
  const raw = JSON.parse(readFileSync(join(into, 'conformance.json'), 'utf8')) as {
    version?: number;
    requirements: Array<{ id: string; status: string }>;
  };
  expect(raw.version).toBeUndefined();
  return new Map(raw.requirements.map((r) => [r.id, r.status]));
}

describe('a conformance.json from before the verdict model', () => {
  test('rerun reads it: the standing of every requirement agrees with the label it was written with', () => {
    const into = reportDir('v1-broken');
    const labels = writtenLabels(into);
    const report = readReport(into);
    expect(report.version).toBe(REPORT_VERSION);
    for (const r of report.requirements) expect(labelOf(r, report.run.profile), r.id).toBe(labels.get(r.id));
    const ids = rerunIds(report);
    const notPassed = [...labels]
      .filter(([id, status]) => {
        const level = report.requirements.find((r) => r.id === id)!.level;
        return level !== 'INFO' && ['failed', 'blocked', 'not-concluded'].includes(status);
      })
      .map(([id]) => id);
    expect(ids.sort()).toEqual(notPassed.sort());
    expect(ids.length).toBeGreaterThan(80);
  });

  test('a clean one has nothing to rerun', () => {
    expect(rerunIds(readReport(reportDir('v1-clean')))).toEqual([]);
  });

  test('compare reads both and names what the defects broke, each in its direction', () => {
    const runs = readRuns([reportDir('v1-clean'), reportDir('v1-broken')]);
    const c = compareRuns(runs.map((r) => ({ label: r.label, file: r.file, report: r.report })));
    const kinds = new Map(c.changed.map((row) => [row.id, row.changes[0]!]));
    expect(kinds.get('AUTH-LOGIN-FAIL-401')).toMatchObject({ kind: 'new-failure', regression: true });
    expect(kinds.get('VERSION-MAJOR-MINOR')).toMatchObject({ kind: 'new-failure', regression: true });
    const blocked = c.changed.filter((row) => row.changes[0]!.to === 'blocked');
    expect(blocked.length).toBeGreaterThan(50);
    for (const row of blocked)
      expect(row.changes[0]).toMatchObject({ kind: 'no-longer-judged', direction: 'worse' });
    expect(c.runs[1]!.levels.MUST).toMatchObject({ failed: 3, judged: 40 });
  });

  test('its observations (sentences) load keyed "sentence" and are not compared: the comparison says so', () => {
    const runs = readRuns([reportDir('v1-clean'), reportDir('v1-clean')]);
    const [report] = runs.map((r) => r.report);
    expect(report!.writtenAs).toBe(1);
    const observed = report!.requirements.flatMap((r) => r.observations);
    expect(observed.length).toBeGreaterThan(20);
    for (const o of observed) expect(o).toMatchObject({ key: 'sentence', text: expect.any(String) });
    expect(report!.tests.flatMap((t) => t.observations).every((o) => typeof o.text === 'string')).toBe(true);
    const c = compareRuns(runs.map((r) => ({ label: r.label, file: r.file, report: r.report })));
    expect(c.changed).toEqual([]);
    expect(c.notes).toEqual([OBSERVATIONS_NOT_COMPARED]);
  });
});
