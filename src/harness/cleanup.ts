/**
 * Deleting what a run made, the suites' one way (a file's end: ./context.ts; the run's end:
 * ./shared-voice.ts; the sequences' second customer):
 * takes first (a voice may refuse deletion while its takes exist), then each voice and its example
 * take. The example take is the server's own doing but the run's making: a server that keeps it
 * after its voice is deleted (the reference does) would otherwise collect one per voice per run.
 * Never throws: a cleanup that fails leaves the item, it decides nothing.
 */
import type { SpeakClient } from '../client/speak-client.ts';
import type { MadeItem } from '../client/webhook-sink-control.ts';

export type { MadeItem };

const path = (item: MadeItem) => `/v1/speak/${item.kind}s/${encodeURIComponent(item.id)}`;

export async function deleteMade(api: SpeakClient, items: readonly MadeItem[]): Promise<void> {
  const takes = items.filter((item) => item.kind === 'take');
  const voices = items.filter((item) => item.kind === 'voice');
  /** Takes gone (deleted, or not found): an example take among them is not asked again. */
  const gone = new Set<string>();
  const remove = async (item: MadeItem) => {
    const answer = await api.delete(path(item)).catch(() => undefined);
    if (answer && ((answer.status >= 200 && answer.status < 300) || answer.status === 404)) gone.add(item.id);
  };
  for (const take of takes) await remove(take);
  for (const voice of voices) {
    const shown = await api.get(path(voice)).catch(() => undefined);
    const example = (shown?.json as { example_take_id?: unknown } | undefined)?.example_take_id;
    await remove(voice);
    // After its voice: a server may refuse to delete the example take of a live voice.
    if (typeof example === 'string' && example !== '' && !gone.has(example)) {
      await remove({ kind: 'take', id: example });
    }
  }
}
