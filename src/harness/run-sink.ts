/**
 * The run's webhook sink (src/client/webhook-sink-control.ts), started by the suites' global setup
 * when the run has a webhooks file and the server under test can reach the sink; stopped at the end
 * of the run, after the end-of-run judge (suites/webhooks-settled.spec.ts).
 */

import { planWebhookSink, WebhookSink } from '../client/webhook-sink.ts';
import { type MadeItem, type ProvidedWebhookSink, SinkControl } from '../client/webhook-sink-control.ts';
import { runFacts } from '../facts/run-facts.ts';
import type { RunPlan } from './run-plan.ts';
import { SETTLING_FILE, WEBHOOK_FILE } from './webhook-files.ts';

export interface RunSink {
  provided: ProvidedWebhookSink;
  /** The items the settle entries handed to the run (deleted at its end; see SettleEntry.item). */
  handedOver(): MadeItem[];
  /** Stops the control API and the sink; never throws. */
  stop(): Promise<void>;
}

/** A run without a sink: nothing handed over, nothing to stop. */
const noSink = (provided: ProvidedWebhookSink): RunSink => ({
  provided,
  handedOver: () => [],
  stop: async () => {},
});

/** `files`: the run's test files (empty when not known: the sink is started anyway). */
export async function startRunSink(config: RunPlan, files: readonly string[]): Promise<RunSink> {
  if (files.length > 0 && !files.some((file) => WEBHOOK_FILE.test(file))) {
    return noSink({ ok: false, reason: 'no webhooks file in this run' });
  }
  const plan = planWebhookSink(config);
  if (!plan.reachable) {
    // A fact of the run (src/facts): the webhook requirements do not apply, for one reason.
    runFacts().record({
      key: 'webhook:sink',
      type: 'webhook-unreachable',
      consequence: { kind: 'not-applicable' },
      sentence: plan.reason,
    });
    return noSink({ ok: false, reason: plan.reason });
  }
  let sink: WebhookSink;
  try {
    sink = await WebhookSink.start(plan.options);
  } catch (error) {
    // E.g. --webhook-listen on a port in use: the webhook files fail with this, the others run.
    const reason = `could not start the webhook sink on ${plan.options.host}:${plan.options.port}: ${error instanceof Error ? error.message : String(error)}`;
    return noSink({ ok: false, reason, broken: true });
  }
  const producers = files.filter((file) => SETTLING_FILE.test(file)).length;
  const control = await SinkControl.start(sink, producers);
  return {
    provided: { ok: true, controlUrl: control.url, publicUrl: sink.publicUrl },
    handedOver: () => control.handedOver(),
    stop: async () => {
      await control.close().catch(() => undefined);
      await sink.close().catch(() => undefined);
    },
  };
}
