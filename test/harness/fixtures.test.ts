/**
 * The run's fixtures (src/harness/fixtures.ts): a test registered with them gets `run`, the run's
 * context (outside a run, one whose every part says how to start a run), keeps the meta and the
 * concurrency it was registered with (vitest 3.2's test.extend passes only the timeout on).
 */
import { describe, expect, test } from 'vitest';
import { registerRunTest } from '../../src/harness/fixtures.ts';
import { NO_RUN_CONTEXT } from '../../src/harness/run-context.ts';

const seen: string[] = [];

describe('a test registered with the run fixtures', () => {
  registerRunTest(
    'outside a run: run is there, and reading it says how to start one',
    { timeout: 5_000, meta: { requirements: ['VERSION-NO-TOKEN'] } },
    async ({ run, task, signal }) => {
      expect(task.meta.requirements).toEqual(['VERSION-NO-TOKEN']);
      expect(signal).toBeInstanceOf(AbortSignal);
      expect(() => run.plan).toThrow(NO_RUN_CONTEXT);
      expect(() => run.facts).toThrow(NO_RUN_CONTEXT);
      seen.push('plain');
    },
  );

  registerRunTest('concurrent', { timeout: 5_000, meta: {}, concurrent: true }, async ({ task }) => {
    expect(task.concurrent).toBe(true);
    seen.push('concurrent');
  });
});

test('both bodies ran', () => {
  expect(seen.sort()).toEqual(['concurrent', 'plain']);
});
