/**
 * The second customer of the sequences (the run's second identity): a voice of its own, made once per
 * file and waited for, and the cleanup of what its sequences made (the first customer's items are
 * tracked by useSpeak()).
 */
import { Finding, show } from '../../src/checks/finding.ts';
import type { SpeakClient, SpeakContext } from '../../src/harness/index.ts';
import type { SequenceWorld } from './real.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A ready voice of the customer `client` acts as, on the run's model; bounded by the run's ready timeout. */
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
  const deadline = Date.now() + speak.config.timeouts.readyMs;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 500)) {
    const polled = await client.get(`/v1/speak/voices/${encodeURIComponent(id)}`);
    if ((polled.json as { status?: unknown } | undefined)?.status === 'ready') return id;
    await sleep(wait);
  }
  throw new Finding(`the voice ${name} (${id}) was not ready within the ready timeout`, {
    requirement: 'VOICE-READY-BOUND',
  });
}

export async function removeSecondItems(world: SequenceWorld): Promise<void> {
  const client = world.clients.second;
  if (!client) return;
  for (const id of world.secondTakes)
    await client.delete(`/v1/speak/takes/${encodeURIComponent(id)}`).catch(() => undefined);
  const voice = world.voices.second;
  if (voice) await client.delete(`/v1/speak/voices/${encodeURIComponent(voice)}`).catch(() => undefined);
}
