/**
 * The run's webhook sink as the webhook suite files see it: started by the global setup
 * (src/harness/run-sink.ts), reached through its control API (src/client/webhook-sink-control.ts,
 * re-exported by the suite kit).
 */
import { beforeAll } from 'vitest';
import { type Precondition, RemoteWebhookSink, runContext } from '../../src/harness/index.ts';

/**
 * What would judge the webhook requirements when the server cannot call the sink: an address the
 * server can reach that leads to the sink's listener (README "Webhooks against a remote server").
 */
const WEBHOOK_REMEDY =
  '--webhook-url set to a public address that forwards to --webhook-listen HOST:PORT (a tunnel, or a CI runner\'s published port; README "Webhooks against a remote server")';

/** One of the two is set: the sink, or why the server under test cannot call it. */
type RunSinkAccess = { sink?: RemoteWebhookSink; unreachable?: string };

/**
 * The sink, or why the server under test cannot call it (the webhook tests are then not applicable);
 * throws when the sink could not be started.
 */
function runWebhookSink(): RunSinkAccess {
  const run = runContext();
  // The server cannot call the sink: a fact of the run (recorded by src/harness/run-sink.ts).
  const unreachable = run.facts.find('webhook:sink', 'webhook-unreachable');
  if (unreachable) return { unreachable: unreachable.sentence };
  const provided = run.webhookSink;
  // A sink that could not start fails the webhook files (their beforeAll), as it did when they started it.
  if (!provided.ok && provided.broken) throw new Error(provided.reason);
  if (!provided.ok) return { unreachable: provided.reason };
  return { sink: new RemoteWebhookSink(provided.controlUrl, provided.publicUrl) };
}

/** The run's sink as one webhook suite file uses it (`useRunSink()` at its top level). */
export interface RunSinkUse {
  /** The sink; a harness fault when it is not running (its tests declare `requires: reachable`). */
  sink(): RemoteWebhookSink;
  /**
   * The webhook tests' precondition (covers' `requires`): the server under test can call the sink.
   * When it cannot, each id is not applicable, with the reason and WEBHOOK_REMEDY.
   */
  reachable: Precondition;
}

/**
 * Looks the sink up once the file starts (a beforeAll: a sink that could not start fails the file's
 * tests there, a harness fault, not a verdict).
 */
export function useRunSink(): RunSinkUse {
  let access: RunSinkAccess = { unreachable: 'no webhook sink' };
  beforeAll(() => {
    access = runWebhookSink();
  });
  return {
    sink() {
      if (!access.sink) throw new Error('the webhook sink is not running');
      return access.sink;
    },
    reachable: () =>
      access.sink
        ? undefined
        : {
            conclusion: 'not-applicable',
            reason: `webhooks: ${access.unreachable ?? 'no webhook sink'}`,
            wouldJudge: WEBHOOK_REMEDY,
          },
  };
}
