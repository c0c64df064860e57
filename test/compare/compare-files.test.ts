/**
 * `speakcheck compare` below the command line: reading runs (a directory or its conformance.json,
 * labels, input that is no report), the three files it writes from hand-made reports, and the
 * --fail-on parser.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failOnLevels } from '../../src/cli/commands/compare.ts';
import { compareConformance } from '../../src/compare/compare-runs.ts';
import type { Comparison } from '../../src/compare/diff.ts';
import { CompareInputError, readRuns } from '../../src/compare/load-run.ts';
import { type Req, run } from './fixtures.ts';

let dir = '';

function writeRun(name: string, reqs: Req[], o: Parameters<typeof run>[2] = {}): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'conformance.json'), JSON.stringify(run(name, reqs, o).report));
  return path;
}

const BASE: Req[] = [
  ['AUTH-LOGIN', 'MUST', 'passed'],
  ['AUTH-OLD', 'MUST', 'passed'],
  ['LIST-PAGE-BASE', 'INFO', 'info', ['first page number: 1']],
  ['LIST-STEADY', 'SHOULD', 'passed'],
];
const NEXT: Req[] = [
  ['AUTH-LOGIN', 'MUST', 'failed', ['POST /auth/login → 403: expected 401, got 403']],
  ['LIST-PAGE-BASE', 'INFO', 'info', ['first page number: 0']],
  ['LIST-STEADY', 'SHOULD', 'passed'],
  ['LIST-ADDED', 'SHOULD', 'passed'],
];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-compare-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('compare: reading the runs', () => {
  it('takes a report directory or its conformance.json; labels default to the directory names', () => {
    const a = writeRun('release-1', BASE);
    const b = writeRun('release-2', NEXT);
    const runs = readRuns([a, join(b, 'conformance.json')]);
    expect(runs.map((r) => r.label)).toEqual(['release-1', 'release-2']);
    expect(readRuns([a, b], ['one', 'two']).map((r) => r.label)).toEqual(['one', 'two']);
    // Two runs in directories of the same name are told apart by position.
    const twin = writeRun(join('other', 'release-1'), NEXT);
    expect(readRuns([a, twin]).map((r) => r.label)).toEqual(['run 1', 'run 2']);
  });

  it('refuses what cannot be compared, saying why', () => {
    const a = writeRun('a', BASE);
    const expectError = (f: () => unknown, words: RegExp) => {
      expect(f).toThrow(CompareInputError);
      expect(f).toThrow(words);
    };
    expectError(() => readRuns([a]), /two runs or more/);
    expectError(() => readRuns([a, a], ['only-one']), /1 --label for 2 runs/);
    expectError(() => readRuns([a, a], ['same', 'same']), /--label names repeat/);
    expectError(() => readRuns([a, join(dir, 'missing')]), /no such file or directory/);
    mkdirSync(join(dir, 'empty'));
    expectError(() => readRuns([a, join(dir, 'empty')]), /cannot read a conformance report \(not found\)/);
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ metrics: {} }));
    expectError(() => readRuns([a, join(dir, 'summary.json')]), /not a conformance report/);
    writeFileSync(join(dir, 'broken.json'), '{"run":');
    expectError(() => readRuns([a, join(dir, 'broken.json')]), /cannot read a conformance report/);
  });
});

describe('compare: compare.json, compare.md and compare.html', () => {
  let comparison: Comparison;
  let files: { json: string; markdown: string; html: string };

  beforeAll(() => {
    const out = join(dir, 'out');
    ({ comparison, files } = compareConformance([writeRun('v1', BASE), writeRun('v2', NEXT)], {
      failOn: ['MUST', 'SHOULD', 'SECURITY'],
      outDir: out,
    }));
  });

  it('compare.json is the comparison as computed', () => {
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as Comparison;
    expect(json).toEqual(JSON.parse(JSON.stringify(comparison)));
    expect(json.changed.map((r) => [r.id, r.changes.map((c) => c.kind)])).toEqual([
      ['AUTH-LOGIN', ['new-failure']],
      ['LIST-PAGE-BASE', ['observation-changed']],
      ['AUTH-OLD', ['only-in-baseline']],
      ['LIST-ADDED', ['only-in-run']],
    ]);
    expect(json.regressions.map((r) => r.id)).toEqual(['AUTH-LOGIN']);
  });

  it('compare.md says the outcome, the headers, and one line per changed requirement', () => {
    const md = readFileSync(files.markdown, 'utf8');
    expect(md).toContain(
      '**REGRESSION: 1 requirement(s) worse than the baseline at MUST, SHOULD, SECURITY**',
    );
    expect(md).toContain('| | v1 (baseline) | v2 |');
    expect(md).toContain('| MUST | 2/2 judged, 0 failed | 1/1 judged, 1 failed |');
    const lines = md.split('\n').filter((l) => l.startsWith('- **'));
    expect(lines).toEqual([
      '- **AUTH-LOGIN** (MUST, auth), v2: new failure (passed → failed) **regression** — POST /auth/login → 403: expected 401, got 403',
      '- **LIST-PAGE-BASE** (INFO, lists), v2: observation changed — now: first page number: 0 · baseline: first page number: 1',
      '- **AUTH-OLD** (MUST, auth), v2: not in this run (only in the baseline)',
      '- **LIST-ADDED** (SHOULD, lists), v2: not in the baseline (only in this run)',
    ]);
    expect(md).toContain('1 requirement(s) the same in every run');
  });

  it('compare.html is self-contained and shows one-run-only requirements as such', () => {
    const html = readFileSync(files.html, 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(/i);
    const cellsOf = (id: string) => {
      const row = new RegExp(`<tr><th scope="row" id="m-${id}">[\\s\\S]*?</tr>`).exec(html)?.[0] ?? '';
      return [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) =>
        m[1]!.replace(/<[^>]+>/g, ' ').trim(),
      );
    };
    expect(cellsOf('AUTH-OLD')[1]).toBe('not in this run');
    expect(cellsOf('LIST-ADDED')[0]).toBe('not in the baseline');
    expect(cellsOf('AUTH-OLD')[0]).toMatch(/^passed/);
    // The steady requirement is folded under its area.
    expect(html).toMatch(
      /<details class="same"><summary>1 the same in every run<\/summary>[\s\S]*?id="m-LIST-STEADY"/,
    );
  });
});

describe('compare: --fail-on', () => {
  it('takes must, should, security in any case and order, or none', () => {
    expect(failOnLevels('must,should,security')).toEqual(['MUST', 'SHOULD', 'SECURITY']);
    expect(failOnLevels('Security, MUST')).toEqual(['MUST', 'SECURITY']);
    expect(failOnLevels('none')).toEqual([]);
  });

  it.each(['info', 'must,bogus', '', ','])('refuses %j', (value) => {
    expect(() => failOnLevels(value)).toThrow(InvalidArgumentError);
  });
});
