/**
 * `speakcheck run --profile acceptance` against the reference stack with lifetimes it shortens
 * (`serve --access-token-ttl/--signed-url-ttl/--websocket-url-ttl 15`): the expiry MUSTs are waited
 * out beside the rest of the run (--expiry full), every MUST and SHOULD is judged, and only then is
 * the word CONFORMS printed (exit 0). The real lifetimes (the websocket URL's hour) are the nightly
 * run the README documents; the lifetime switches that never expire are the defect matrix's.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { AREAS } from '../../src/requirements/types.ts';
import {
  type DefectiveStack,
  runHarness,
  startDefectiveStack,
} from '../reference/defects/defective-stack.ts';

const LIFETIME_S = '15';
let stack: DefectiveStack | undefined;
let reportDir: string | undefined;

afterAll(async () => {
  await stack?.stop();
  if (reportDir) rmSync(reportDir, { recursive: true, force: true });
});

test('acceptance with short lifetimes: every MUST and SHOULD judged, the expiry ones waited out, CONFORMS', {
  timeout: 300_000,
}, async () => {
  stack = await startDefectiveStack(
    [],
    [
      '--workers',
      '1',
      '--access-token-ttl',
      LIFETIME_S,
      '--signed-url-ttl',
      LIFETIME_S,
      '--websocket-url-ttl',
      LIFETIME_S,
    ],
  );
  const run = await runHarness(stack, [], {}, [
    '--profile',
    'acceptance',
    '--ws-url-lifetime',
    LIFETIME_S,
    '--max-time',
    '240',
    // The acceptance profile's 200 call sequences are minutes of CPU: CI keeps to a few more than the main job.
    '--sequences',
    '20',
  ]);
  reportDir = run.reportDir;
  expect(run.code, run.output.slice(-4000)).toBe(0);
  expect(run.output).toMatch(/expiry waits \(--expiry full\): .*access token/);
  expect(run.output).not.toMatch(/^not judged/m);
  expect(run.output).toMatch(/^judged: (\d+) of \1 MUST, (\d+) of \2 SHOULD$/m);
  expect(run.output).toMatch(/^verdict: CONFORMS$/m);
  // The live rows are the areas, each once: webhooks' two files make one row, the lifetimes file
  // none (its tests count in auth, audio and websocket) (issue 41).
  const rows = run.output
    .split('\n')
    .flatMap((line) => /^ {2}([a-z]+) +\d+ passed +\d+ failed/.exec(line)?.slice(1) ?? []);
  expect([...rows].sort()).toEqual([...AREAS].sort());
  for (const id of ['AUTH-EXPIRED-TOKEN-401', 'AUDIO-SIGNED-EXPIRES', 'WS-URL-EXPIRED-REFUSED'])
    expect(run.verdicts.get(id), id).toBe('passed');
  const report = JSON.parse(readFileSync(join(run.reportDir, 'conformance.json'), 'utf8'));
  expect(report.run).toMatchObject({ profile: 'acceptance', verdict: 'CONFORMS', exitCode: 0 });
  const unjudged = report.requirements.filter((r: { notJudged?: unknown }) => r.notJudged);
  expect(unjudged).toEqual([]);
});
