/**
 * Voice updates of the sequences (suites/stateful/wire-commands.ts) against a server that lists a
 * voice as it was before its last update (the defect voice-list-stale-after-update). The voices
 * outlive a sequence, so every candidate of a shrink updates the same voice: an update to the value
 * it already holds changes nothing and would hide the failure from every later candidate.
 */
import { expect, test } from 'vitest';
import { newModel } from '../../src/checks/stateful/model.ts';
import type { Real, SequenceWorld } from '../../suites/stateful/real.ts';
import { ReadVoice, UpdateVoice } from '../../suites/stateful/wire-commands.ts';

/** One voice; GET shows it, the list shows it as it was before its last update. */
function staleListServer() {
  let voice = { voice_id: 'v1', name: 'made', description: 'made', status: 'ready' };
  let before: typeof voice | undefined;
  const exchange = (method: string, path: string, status: number, json: unknown) => ({
    method,
    url: `http://127.0.0.1${path}`,
    status,
    json,
    text: JSON.stringify(json),
  });
  return {
    post: async (path: string, body: { name?: string; description?: string }) => {
      before = voice;
      voice = { ...voice, ...body };
      return exchange('POST', path, 200, true);
    },
    get: async (path: string) =>
      exchange('GET', path, 200, path.endsWith('/voices') ? [before ?? voice] : voice),
  };
}

function fakeReal(world: SequenceWorld, client: ReturnType<typeof staleListServer>): Real {
  return {
    world,
    steps: [],
    updatableVoice: async () => 'v1',
    client: () => client,
    step: () => undefined,
  } as unknown as Real;
}

test('every update sets a value no earlier one set, so each sequence shows a stale list again', async () => {
  const world = {
    speak: { prefix: (s: string) => `sc-${s}` },
    judged: () => true,
    infoNotes: new Set<string>(),
    updates: 0,
  } as unknown as SequenceWorld;
  const real = fakeReal(world, staleListServer());
  const names: string[] = [];
  // The same two steps, as two candidates of a shrink: both fail, not only the first.
  for (let i = 0; i < 2; i++) {
    const m = newModel(['primary']);
    await new UpdateVoice('primary', 'both', 0).run(m, real);
    names.push(String(m.voices.primary?.name));
    await expect(new ReadVoice('primary', 'list').run(m, real)).rejects.toThrow(
      /the voice list filtered to it shows name "[^"]*", where the update set "sc-sequence-voice-0[^"]*"/,
    );
  }
  expect(new Set(names).size).toBe(2);
  expect(world.updates).toBe(2);
  // GET shows the last update: no finding.
  const m = newModel(['primary']);
  await new UpdateVoice('primary', 'name', 3).run(m, real);
  await new ReadVoice('primary', 'get').run(m, real);
});
