/**
 * One wait per stuck thing (issue 32), proven on the WHOLE harness: against a stack whose voices never
 * get ready (voice-never-ready) or whose takes stay started (take-stuck-started), `speakcheck run`
 * without --requirement (every area, each of which needs a voice or a take) gets its verdict within
 * 90 s, stack start included (~54 s alone: the 45 s ready bound from the first item's creation), not after one ready bound per area (~248 s before). The defect matrix
 * runs the same switches limited to their declared requirements; here every area runs, so the claim
 * is that the areas share the first wait's evidence: the kind's ready bound fails, and what needed
 * the item is blocked, naming that evidence, instead of waiting again.
 *
 * Selected like the defect matrix: with CI (or SPEAKCHECK_DEFECT_MATRIX=all), or when
 * SPEAKCHECK_DEFECT_MATRIX names the switch.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type HarnessRun, mapLimited, runHarness, startDefectiveStack } from './defective-stack.ts';

const SWITCHES = [
  { name: 'voice-never-ready', fails: 'VOICE-READY-BOUND', kind: 'voice' },
  { name: 'take-stuck-started', fails: 'TAKE-READY-BOUND', kind: 'take' },
] as const;

const selection = process.env.SPEAKCHECK_DEFECT_MATRIX ?? (process.env.CI ? 'all' : '');
const chosen = SWITCHES.filter(
  (s) => selection === 'all' || selection === '1' || selection.split(',').includes(s.name),
);
// One whole run at a time: the bound is one run's time to a verdict, as a user sees it, not two
// whole runs and their stacks sharing two cores beside the rest of npm test (123 s at CI's load
// with two at a time, 70 s alone; 2026-11-27).
const PARALLEL = Number(process.env.SPEAKCHECK_STUCK_PARALLEL ?? 1);
/**
 * The whole run's bound, stack start included: every area beside the stuck wait, on CI's loaded
 * cores (53.7 s each alone on the 2-core machine with the 45 s ready bound, 2026-11-29). The
 * defect matrix holds the same switches to 60 s in a run of their requirements.
 */
const MAX_VERDICT_MS = 90_000;

interface Report {
  requirements: Array<{ id: string; status: string; message: string }>;
}

const outcomes = new Map<string, { run: HarnessRun; report?: Report; ms: number }>();

describe.runIf(chosen.length > 0)('a whole run against a stuck server', () => {
  beforeAll(async () => {
    await mapLimited(chosen, PARALLEL, async ({ name }) => {
      const t0 = Date.now();
      const stack = await startDefectiveStack([name], ['--workers', '1']);
      try {
        const run = await runHarness(stack, []);
        const ms = Date.now() - t0;
        let report: Report | undefined;
        try {
          report = JSON.parse(readFileSync(join(run.reportDir, 'conformance.json'), 'utf8')) as Report;
        } catch {
          // No report: the assertions say so.
        }
        outcomes.set(name, { run, ...(report ? { report } : {}), ms });
        process.stdout.write(`whole run against ${name}: exit ${run.code} in ${(ms / 1000).toFixed(1)} s\n`);
      } finally {
        await stack.stop();
      }
    });
  }, 10 * 60_000);

  afterAll(() => {
    for (const o of outcomes.values()) rmSync(o.run.reportDir, { recursive: true, force: true });
  });

  test.each(chosen.map((s) => [s.name, s] as const))(
    '%s: the verdict within 90 s, the ready bound failed, the rest blocked by the first wait',
    (_name, s) => {
      const o = outcomes.get(s.name);
      expect(o, 'the run did not happen').toBeDefined();
      const { run, report, ms } = o!;
      expect(ms, `${s.name}: whole run to a verdict (ms), stack start included`).toBeLessThanOrEqual(
        MAX_VERDICT_MS,
      );
      expect(run.code, run.output.slice(-3000)).toBe(1);
      expect(run.verdicts.get(s.fails), `${s.fails} in the whole run`).toBe('failed');
      // The areas that needed the stuck kind are blocked by the first wait's evidence, not failed
      // (and not after a wait of their own): its message names the stuck item and the bound. (A
      // websocket take that ends without ready blocks by its own stream's evidence.)
      const blocked = report!.requirements.filter((r) => r.status === 'blocked');
      const byWait = blocked.filter((r) =>
        new RegExp(`${s.kind} \\S+ did not reach a done state within`).test(r.message),
      );
      expect(byWait.length, blocked.map((r) => `${r.id}: ${r.message}`).join('\n')).toBeGreaterThan(10);
      expect(
        byWait.some((r) => r.message.includes('was not waited for again')),
        'no area concluded at once on the first wait',
      ).toBe(true);
    },
  );
});
