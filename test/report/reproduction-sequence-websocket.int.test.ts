/**
 * A shrunk sequence's reproduction, pasted into `sh`, shows the failing websocket answer (issue 50):
 * a run against `serve --defect ws-fourth-request-ignored` fails SEQ-WS-REQUESTS-ANY-COUNT; its
 * reproduction from conformance.json, run by `sh` with only SPEAK_EMAIL, SPEAK_PASSWORD and
 * SPEAK_BASE_URL (and PATH) in its environment, opens the connection through its node helper
 * (src/checks/stateful/script-websocket.ts), sends the requests of the shrunk sequence on it and
 * shows the fourth one unanswered. The control: the same script against a stack without the switch
 * shows every request ending ready, none unanswered.
 * Heavy (two stacks and a run): `flock /tmp/heavy.lock npx vitest run --config vitest.config.ts test/report/reproduction-sequence-websocket.int.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Reproduction } from '../../src/report/reproduction.ts';
import { EMBEDDED_RUN_SERVE_ARGS } from '../../src/stack/target.ts';
import {
  type DefectiveStack,
  type HarnessRun,
  runHarness,
  startDefectiveStack,
} from '../reference/defects/defective-stack.ts';
import { toolReady } from '../support/required-tools.ts';

const ID = 'SEQ-WS-REQUESTS-ANY-COUNT';
const hasCurl = toolReady(
  'curl',
  spawnSync('curl', ['--version']).status === 0 ? undefined : 'curl is not on PATH',
);
/** The helper's line for a request no message answered (script-websocket.ts). */
const UNANSWERED = /^ {3}\(no message answered request (\d+) on W(\d+) within \d+ s\)$/m;

let defective: DefectiveStack | undefined;
let clean: DefectiveStack | undefined;
let run: HarnessRun | undefined;

beforeAll(async () => {
  if (!hasCurl) return;
  [defective, clean] = await Promise.all([
    startDefectiveStack(['ws-fourth-request-ignored'], [...EMBEDDED_RUN_SERVE_ARGS]),
    startDefectiveStack([], [...EMBEDDED_RUN_SERVE_ARGS]),
  ]);
}, 150_000);
afterAll(async () => {
  await Promise.all([defective?.stop(), clean?.stop()]);
  if (run) rmSync(run.reportDir, { recursive: true, force: true });
});

/** The caught run's reproduction of the requirement (as the defect matrix runs the switch). */
async function reproduction(): Promise<Reproduction> {
  run = await runHarness(defective!, [ID], {}, ['--sequences', '60']);
  expect(run.code, run.output).toBe(1);
  expect(run.verdicts.get(ID), run.output).toBe('failed');
  const report = JSON.parse(readFileSync(join(run.reportDir, 'conformance.json'), 'utf8')) as {
    requirements: Array<{ id: string; reproduction?: Reproduction }>;
  };
  const repro = report.requirements.find((r) => r.id === ID)?.reproduction;
  expect(repro, 'the failed requirement has a reproduction').toBeDefined();
  return repro!;
}

/** The script as pasted: `sh` with only the three variables of `stack` (and PATH) in its environment. */
function paste(script: string, stack: DefectiveStack): string {
  const r = spawnSync('sh', ['-c', script], {
    env: {
      PATH: process.env.PATH ?? '',
      SPEAK_EMAIL: stack.email,
      SPEAK_PASSWORD: stack.password,
      SPEAK_BASE_URL: stack.baseUrl,
    },
    timeout: 150_000,
  });
  expect(r.error, 'the script ended within its bound').toBeUndefined();
  expect(r.status, r.stderr.toString()).toBe(0);
  return `${r.stdout.toString()}${r.stderr.toString()}`;
}

test.skipIf(!hasCurl)(
  'ws-fourth-request-ignored: the pasted reproduction shows the unanswered request; without the switch, none',
  { timeout: 600_000 },
  async () => {
    const script = (await reproduction()).curl.join('\n');
    // Real websocket steps, not comments: the helper opens the connection and sends the frames.
    expect(script).toMatch(/^ws "open 1 \$URL"$/m);
    expect(script).toMatch(/^ws "send 1 \$FRAME"$/m);
    expect(script).not.toContain('SPEAK_SECOND_EMAIL');

    const failing = paste(script, defective!);
    const unanswered = UNANSWERED.exec(failing);
    expect(unanswered, failing).not.toBeNull();
    // The unanswered one is the connection's fourth request: the three before it on W1 were served.
    const before = failing.slice(0, unanswered!.index);
    const header = [...before.matchAll(/^== step \d+: T\d+ = request (\d+) on W(\d+):/gm)].at(-1);
    expect(header?.slice(1), failing).toEqual(['4', unanswered![2]]);
    expect(before.match(/ended with status ready/g)?.length ?? 0, failing).toBeGreaterThanOrEqual(3);

    const control = paste(script, clean!);
    expect(control).not.toMatch(UNANSWERED);
    const requests = control.match(/^== step \d+: T\d+ = request \d+ on W\d+:/gm)?.length ?? 0;
    expect(requests, control).toBeGreaterThanOrEqual(4);
    expect(
      control.match(/^ {3}request \d+ ended with status ready \(take tk_\w+\)$/gm)?.length,
      control,
    ).toBe(requests);
  },
);
