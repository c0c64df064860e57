/**
 * The run's context (src/harness/run-context.ts) and its one bootstrap (src/harness/run-bootstrap.ts):
 * outside a run there is none (and one sentence says how to start one); the bootstrap publishes the
 * throttle, the CA and the facts for the threads and provides the plan; a server that cannot call
 * the webhook sink is a fact of the run.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { runThrottle } from '../../src/client/back-pressure.ts';
import { trustedCa } from '../../src/client/tls-trust.ts';
import { resolveRunConfig } from '../../src/config/resolve.ts';
import { publishedFactsPath, resetMemoryFacts, runFacts } from '../../src/facts/run-facts.ts';
import { openRun, providePlan, provideRunParts } from '../../src/harness/run-bootstrap.ts';
import { contextOf, currentRun, runContext } from '../../src/harness/run-context.ts';
import { resolveRunPlan } from '../../src/harness/run-plan.ts';
import { startRunSink } from '../../src/harness/run-sink.ts';

const remote = () =>
  resolveRunConfig({ baseUrl: 'https://speak.example', email: 'a@x.y', password: 'apw' }, {});

afterEach(() => resetMemoryFacts());

describe('the run context', () => {
  test('outside a run there is none, and asking for it says how to start one', () => {
    expect(currentRun()).toBeUndefined();
    expect(() => runContext()).toThrow(/no run context: start the suites with `speakcheck run`/);
  });

  test('made of the provided parts and this thread’s facts, throttle and CA; the same while they are', () => {
    const plan = resolveRunPlan(remote(), undefined, undefined);
    const run = contextOf({ speakRunPlan: plan });
    expect(run.plan).toBe(plan);
    expect(run.facts).toBe(runFacts());
    expect(run.throttle).toBe(runThrottle());
    expect(run.trust).toBe(trustedCa());
    expect(run.sharedVoice).toMatchObject({ ok: false, problem: expect.stringMatching(/did not run/) });
    expect(run.webhookSink).toMatchObject({ ok: false });
    expect(contextOf({ speakRunPlan: plan })).toBe(run);
  });
});

describe('the bootstrap', () => {
  test('openRun paces the throttle, publishes the facts for the threads, and close removes them', () => {
    const run = openRun(resolveRunConfig({ maxRps: '3' }, {}));
    try {
      expect(publishedFactsPath()).toBe(run.factsPath);
      expect(run.throttle).toBe(runThrottle());
      expect(run.throttle.stats().rateRps).toBe(3);
    } finally {
      run.close();
      runThrottle().reset();
    }
    expect(publishedFactsPath()).toBeUndefined();
  });

  test('the plan, the shared voice and the sink are provided as typed values, not JSON', () => {
    const provided = new Map<string, unknown>();
    const to = { provide: (key: string, value: unknown) => void provided.set(key, value) };
    const plan = resolveRunPlan(remote(), undefined, undefined);
    providePlan(to, plan);
    provideRunParts(to, {
      speakSharedVoice: { ok: false, problem: 'none' },
      speakWebhookSink: { ok: false, reason: 'none' },
    });
    expect(provided.get('speakRunPlan')).toBe(plan);
    expect(provided.get('speakSharedVoice')).toEqual({ ok: false, problem: 'none' });
    expect(provided.get('speakWebhookSink')).toEqual({ ok: false, reason: 'none' });
  });

  test('a server that cannot call the webhook sink is a fact of the run: the webhook requirements do not apply', async () => {
    const plan = resolveRunPlan(remote(), undefined, undefined);
    const sink = await startRunSink(plan, ['suites/webhooks.spec.ts']);
    await sink.stop();
    expect(sink.provided).toMatchObject({ ok: false });
    const fact = runFacts().find('webhook:sink', 'webhook-unreachable');
    expect(fact?.consequence).toEqual({ kind: 'not-applicable' });
    expect(fact?.sentence).toMatch(/speak\.example.*cannot reach the webhook sink/);
  });
});
