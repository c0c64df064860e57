/**
 * The second customer of the sequences (the run's second identity): a voice of its own, made once per
 * file and waited for, and the cleanup of what its sequences made (the first customer's items are
 * tracked by the speak fixture).
 */
import { Finding, show } from '../../src/checks/finding.ts';
import { deleteMade, type SpeakClient, type SpeakContext } from '../../src/harness/index.ts';
import { waitUntilDone } from '../support/items.ts';
import type { SequenceWorld } from './real.ts';

/**
 * A ready voice of the customer `client` acts as, on the run's model; waited for by waitUntilDone
 * (bounded by the run's ready timeout, written in the run's wait ledger when it runs its bound).
 */
export async function ownVoice(
  speak: SpeakContext,
  client: SpeakClient,
  name: string,
  created: (voiceId: string) => void = () => undefined,
): Promise<string> {
  const exchange = await client.post('/v1/speak/voices/generate', {
    name: speak.prefix(name),
    gender: speak.model.genders[0] ?? 'female',
    model: speak.model.name,
  });
  const id = (exchange.json as { voice_id?: unknown } | undefined)?.voice_id;
  if (exchange.status !== 200 || typeof id !== 'string')
    throw new Finding(`voice generation of ${name} answered ${exchange.status}: ${show(exchange.text)}`, {
      where: 'POST /v1/speak/voices/generate',
    });
  created(id);
  // The run's wait (its ready timeout, its ledger): a voice stuck once is learned once, run-wide.
  await waitUntilDone(speak, 'voice', id, { client });
  return id;
}

export async function removeSecondItems(world: SequenceWorld): Promise<void> {
  const client = world.clients.second;
  if (!client) return;
  const voice = world.voices.second;
  await deleteMade(client, [
    ...world.secondTakes.map((id) => ({ kind: 'take' as const, id })),
    ...(voice ? [{ kind: 'voice' as const, id: voice }] : []),
  ]);
}
