/**
 * The websocket hook of a worker process (started by worker/main.ts after its synthesizer).
 *
 * It opens this worker's websocket endpoint (server.ts) on the stack's host and an ephemeral port,
 * with its own synthesizer (its own espeak thread), so websocket latency does not queue behind the
 * REST jobs of this worker; with worker option `wsSharesSynthesizer` (serve --ws-shares-synthesizer,
 * the stack a run starts itself) with the worker's REST synthesizer instead. Shuffle window: worker option `wsShuffleWindow` (serve --ws-shuffle-window).
 * It announces `{type: 'websocket-listening', url, models}` to the API process (which hands out URLs:
 * api/plugins/websocket-address.ts), again whenever the API asks with `{type: 'websocket-announce'}`.
 */
import { readFileSync } from 'node:fs';
import { findModel, MODELS } from '../../models/catalogue.ts';
import type { Synthesizer } from '../../synth/index.ts';
import type { WorkerHookContext } from '../hook-context.ts';
import { websocketSecretKey } from './secret.ts';
import { startWebsocketWorker } from './server.ts';
import { createStoreService } from './store-service.ts';

export const ANNOUNCE_REQUEST = 'websocket-announce';
export const LISTENING = 'websocket-listening';

/**
 * A synthesizer that starts in the background: the worker reports ready without waiting ~1 s for a
 * second espeak thread; a request arriving before it is up waits for it. A start that failed (e.g. the
 * engine thread did not answer within its bound on a machine busy starting a whole stack) is tried
 * again by the next request instead of being kept: otherwise every later take of this worker would
 * fail at once, for valid input.
 */
export function backgroundSynthesizer(create: () => Promise<Synthesizer>): Synthesizer {
  const begin = () => {
    const attempt = create();
    attempt.catch(() => {}); // reported by the first call that needs it
    return attempt;
  };
  let starting = begin();
  const ready = async (): Promise<Synthesizer> => {
    const current = starting;
    try {
      return await current;
    } catch {
      if (starting === current) starting = begin(); // one new start, however many calls saw the failure
      return starting;
    }
  };
  return {
    synthesizePart: async (text, voice, onSamples) => (await ready()).synthesizePart(text, voice, onSamples),
    close: async () => {
      const synth = await starting.catch(() => undefined);
      await synth?.close();
    },
  };
}

/** The worker's own synthesizer, lent: closed by the worker (main.ts), not by the endpoint. */
function lent(synth: Synthesizer): Synthesizer {
  return { synthesizePart: (...args) => synth.synthesizePart(...args), close: async () => {} };
}

export async function startWorkerWebsocket(c: WorkerHookContext): Promise<{ close(): Promise<void> }> {
  const synth =
    c.options.wsSharesSynthesizer === true ? lent(c.synthesizer) : backgroundSynthesizer(c.createSynthesizer);
  // A standalone worker (`speakcheck worker --models a,b`) holds only the models it was given.
  const given = Array.isArray(c.options.models)
    ? c.options.models.map((m) => findModel(String(m))?.name ?? String(m))
    : [];
  const models = given.length > 0 ? given : MODELS.map((m) => m.name);
  const wsPort = Number(c.options.wsPort ?? 0);
  const shuffleWindow = Number(c.options.wsShuffleWindow ?? 0);
  const server = await startWebsocketWorker({
    secretKey: websocketSecretKey(c.db),
    models,
    service: createStoreService({
      db: c.db,
      dataDir: c.dataDir,
      workerId: c.workerId,
      notifyEvents: c.notifyEvents,
    }),
    synth,
    shuffleWindow: Number.isInteger(shuffleWindow) && shuffleWindow > 0 ? shuffleWindow : 0,
    host: typeof c.options.host === 'string' ? c.options.host : '127.0.0.1',
    ...(Number.isInteger(wsPort) && wsPort > 0 ? { port: wsPort } : {}),
    // serve --tls: the stack's certificate, written to its data dir before the workers forked.
    ...(typeof c.options.tlsKeyFile === 'string' && typeof c.options.tlsCertFile === 'string'
      ? { tls: { key: readFileSync(c.options.tlsKeyFile), cert: readFileSync(c.options.tlsCertFile) } }
      : {}),
    log: c.log,
  });
  const announce = () => c.send({ type: LISTENING, url: server.baseUrl, models });
  const onMessage = (message: { type?: string } | undefined) => {
    if (message?.type === ANNOUNCE_REQUEST) announce();
  };
  const stopListening = c.onMessage(onMessage);
  announce();
  c.log(`websocket endpoint listening (shuffle window ${shuffleWindow || 'off'})`);
  return {
    async close() {
      stopListening();
      await server.close();
      await synth.close();
    },
  };
}
