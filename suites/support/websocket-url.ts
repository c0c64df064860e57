/**
 * Connecting to a websocket URL issued right now, for the suites that need a working connection
 * (not the expiry checks, which send stale URLs on purpose). The URL is asked for once, and asked
 * for again if the run's own waits before the upgrade (its pace, a 429/503 Retry-After) outlived
 * the lifetime it shows or --ws-url-lifetime says, so a refusal is never our delay (issue 37).
 */
import {
  fetchWebsocketUrl,
  type SpeakClient,
  type SpeakContext,
  SpeakStreamConnection,
} from '../../src/harness/index.ts';

export interface FreshConnectOptions {
  /** Whose URL (default: the run's logged-in client). */
  client?: SpeakClient;
  /** For which model (default: the model under test). */
  model?: string;
  /** The contract's form or the vendor SDK's (default: the contract's). */
  form?: 'spec' | 'sdk';
}

/** The connect options that renew a URL issued at `issuedAtMs` the way it was asked for. */
export function renewingConnect(
  speak: SpeakContext,
  issuedAtMs: number,
  o: FreshConnectOptions = {},
): Parameters<typeof SpeakStreamConnection.connect>[1] {
  const client = o.client ?? speak.api;
  const model = o.model ?? speak.model.name;
  const form = o.form ?? 'spec';
  const configured = speak.config.expiry.wsUrlLifetimeS;
  return {
    timeoutMs: speak.config.timeouts.requestMs,
    issuedAtMs,
    ...(configured === undefined ? {} : { configuredLifetimeS: configured }),
    reissue: () => fetchWebsocketUrl(client, model, form),
  };
}

/** Asks for a URL and connects to it, renewing it when it went stale before the upgrade. */
export async function openIssuedConnection(
  speak: SpeakContext,
  o: FreshConnectOptions = {},
): Promise<SpeakStreamConnection> {
  // Taken before asking: the URL cannot have been issued earlier, so its expiry is never overestimated.
  const issuedAtMs = Date.now();
  const url = await fetchWebsocketUrl(o.client ?? speak.api, o.model ?? speak.model.name, o.form ?? 'spec');
  return SpeakStreamConnection.connect(url, renewingConnect(speak, issuedAtMs, o));
}

/**
 * Opens `url` twice, one connection after the other (WS-URL-NEW-PER-CONNECTION, INFO): the second
 * upgrade's refusal, or undefined when a URL already used opened again.
 */
export async function reuseRefusal(speak: SpeakContext, url: string): Promise<Error | undefined> {
  const first = await SpeakStreamConnection.connect(url, { timeoutMs: speak.config.timeouts.requestMs });
  await first.close();
  try {
    const second = await SpeakStreamConnection.connect(url, { timeoutMs: speak.config.timeouts.requestMs });
    await second.close();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
