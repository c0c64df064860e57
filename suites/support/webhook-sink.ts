/**
 * The run's webhook sink as the webhook suite files see it: started by the global setup
 * (src/harness/run-sink.ts), reached through its control API (src/client/webhook-sink-control.ts,
 * re-exported by the suite kit).
 */
import { inject } from 'vitest';
import { type ProvidedWebhookSink, RemoteWebhookSink } from '../../src/harness/index.ts';

/**
 * What would judge the webhook requirements when the server cannot call the sink: an address the
 * server can reach that leads to the sink's listener (README "Webhooks against a remote server").
 */
export const WEBHOOK_REMEDY =
  '--webhook-url set to a public address that forwards to --webhook-listen HOST:PORT (a tunnel, or a CI runner\'s published port; README "Webhooks against a remote server")';

/** One of the two is set: the sink, or why the server under test cannot call it. */
export type RunSinkAccess = { sink?: RemoteWebhookSink; unreachable?: string };

/**
 * The sink, or why the server under test cannot call it (the webhook tests are then skipped);
 * throws when the sink could not be started.
 */
export function runWebhookSink(): RunSinkAccess {
  const provided = JSON.parse(inject('speakWebhookSink') ?? 'null') as ProvidedWebhookSink | null;
  if (!provided) return { unreachable: 'the global setup started no webhook sink' };
  // A sink that could not start fails the webhook files (their beforeAll), as it did when they started it.
  if (!provided.ok && provided.broken) throw new Error(provided.reason);
  if (!provided.ok) return { unreachable: provided.reason };
  return { sink: new RemoteWebhookSink(provided.controlUrl, provided.publicUrl) };
}
