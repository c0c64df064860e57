/**
 * What a server made of a generation body the request tables call invalid when it accepted it
 * instead of refusing it (suites/errors.spec.ts): the item as the answer and a later GET show it,
 * and which prosody fields are out of bounds.
 */
import { PROSODY_MAX, PROSODY_MIN } from '../../fixtures/prosody.ts';
import type { ItemKind } from '../../schemas/item-kind.ts';
import { show } from '../../src/checks/finding.ts';
import type { Exchange, SpeakContext } from '../../src/harness/index.ts';

/** The fields of `prosody` that are not integers within -10..10 ("field=value"). */
export function outOfBounds(prosody: unknown): string[] {
  if (prosody === null || typeof prosody !== 'object') return [`prosody=${show(prosody)}`];
  return Object.entries(prosody as Record<string, unknown>)
    .filter(
      ([, value]) =>
        !Number.isInteger(value) || (value as number) < PROSODY_MIN || (value as number) > PROSODY_MAX,
    )
    .map(([field, value]) => `${field}=${show(value)}`);
}

/** What an accepted generation body became: the item as the answer and a later GET show it. */
export async function acceptedItem(
  speak: SpeakContext,
  exchange: Exchange,
  kind: ItemKind,
): Promise<Array<{ as: string; item: Record<string, unknown> | undefined }>> {
  const answer = exchange.json as Record<string, unknown> | undefined;
  const shown = [{ as: 'the answer', item: answer }];
  const id = answer?.[`${kind}_id`];
  if (typeof id !== 'string') return shown;
  const got = await speak.api.get(`/v1/speak/${kind}s/${encodeURIComponent(id)}`);
  return [...shown, { as: `GET (${got.status})`, item: got.json as Record<string, unknown> | undefined }];
}
