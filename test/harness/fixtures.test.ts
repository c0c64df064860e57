/**
 * The run's fixtures (src/harness/fixtures.ts): a test registered with them gets `run`, the run's
 * context (outside a run, one whose every part says how to start a run), keeps the meta and the
 * concurrency it was registered with (vitest 3.2's test.extend passes only the timeout on).
 */
import { describe, expect, test } from 'vitest';
import { namedFixtures, registerRunTest } from '../../src/harness/fixtures.ts';
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

describe('the file context `speak`', () => {
  test('namedFixtures reads the names a body destructures in its first parameter, as vitest does', () => {
    expect(namedFixtures(async ({ speak }: { speak: unknown }) => speak)).toEqual(['speak']);
    expect(namedFixtures(async ({ run, speak: s }: { run: unknown; speak: unknown }) => [run, s])).toEqual([
      'run',
      'speak',
    ]);
    expect(namedFixtures(async () => undefined)).toEqual([]);
    expect(namedFixtures(async (context: unknown) => context)).toEqual([]);
  });

  registerRunTest(
    'outside a run, named: speak is there, and reading it says how to start a run',
    { timeout: 5_000, meta: {}, speak: true },
    async ({ speak }) => {
      expect(() => speak.config).toThrow(NO_RUN_CONTEXT);
      expect(() => speak.api).toThrow(NO_RUN_CONTEXT);
      expect(() => speak.prefix('x')).toThrow(NO_RUN_CONTEXT);
    },
  );

  registerRunTest('not named: reading it says to name it', { timeout: 5_000, meta: {} }, async (context) => {
    expect(() => context.speak.api).toThrow(/did not name `speak`/);
  });
});
