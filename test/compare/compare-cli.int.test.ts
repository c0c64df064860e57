/**
 * `speakcheck compare` as a CI job calls it, on hand-made reports: 0 without a regression, 1 with
 * one (at the --fail-on levels), 2 for every usage error, commander's own included (its default 1
 * would read as a regression).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
import { runSpeakcheck } from '../support/run-speakcheck.ts';
import { type Req, run } from './fixtures.ts';

let dir = '';
let base = '';
let worse = '';
let steady = '';

function writeRun(name: string, reqs: Req[]): string {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'conformance.json'), JSON.stringify(run(name, reqs).report));
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-compare-cli-'));
  base = writeRun('base', [
    ['AUTH-A', 'MUST', 'passed'],
    ['AUTH-B', 'SHOULD', 'passed'],
  ]);
  worse = writeRun('worse', [
    ['AUTH-A', 'MUST', 'passed'],
    ['AUTH-B', 'SHOULD', 'failed'],
  ]);
  steady = writeRun('steady', [
    ['AUTH-A', 'MUST', 'passed'],
    ['AUTH-B', 'SHOULD', 'passed'],
  ]);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const compare = (args: string[]) => runSpeakcheck(['compare', ...args], 60_000);

describe('speakcheck compare: exit codes', () => {
  test('0 without a regression, 1 with one, 0 again when --fail-on leaves its level out', async () => {
    const out = join(dir, 'out-steady');
    const ok = await compare([base, steady, '--report-dir', out]);
    expect(ok.code, ok.output).toBe(EXIT.ok);
    expect(['compare.html', 'compare.md', 'compare.json'].every((f) => existsSync(join(out, f)))).toBe(true);
    const bad = await compare([base, worse, '--report-dir', join(dir, 'out-worse')]);
    expect(bad.code, bad.output).toBe(EXIT.failed);
    expect(bad.output).toContain('worse: AUTH-B (SHOULD) in worse: passed -> failed');
    const mustOnly = await compare([base, worse, '--fail-on', 'must', '--report-dir', join(dir, 'out-must')]);
    expect(mustOnly.code, mustOnly.output).toBe(EXIT.ok);
  });

  test.each([
    ['an unknown --fail-on level', ['--fail-on', 'info']],
    ['an unknown option', ['--no-such-option']],
    ['one run only', ['ONLY_BASE']],
    ['a run that does not exist', ['BASE', 'missing-dir']],
    ['a --label count that is not one per run', ['--label', 'a']],
  ])('2 for %s', async (_what, args) => {
    const resolved = args.map((a) => (a === 'BASE' ? base : a === 'missing-dir' ? join(dir, 'missing') : a));
    const argv =
      args[0] === 'ONLY_BASE' ? [base] : args[0] === 'BASE' ? resolved : [base, steady, ...resolved];
    const r = await compare([...argv, '--report-dir', join(dir, 'out-usage')]);
    expect(r.code, r.output).toBe(EXIT.usage);
  });
});
