/**
 * A prosody missing some fields of its type is completed with 0 where it is stored (takes, a voice's
 * default_prosody on generation and on update), so GET and the lists show every field: the vendor
 * SDK's prosody models require them all, and one partial prosody stored as sent broke its
 * get_take/get_takes/get_voices for the whole account. Latitude prosody-as-sent makes the other
 * choice the contract allows: stored and shown as sent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { activateLatitude } from '../../../reference/latitude/index.ts';
import { type InProcessApp, inProcessApp, type Json } from './in-process-app.ts';

let stack: InProcessApp;
let voiceId: string;

beforeAll(async () => {
  stack = await inProcessApp({ name: 'partial-prosody' });
  const voice = await stack.call('POST', '/v1/speak/voices/generate', {
    name: 'Prosodic',
    gender: 'female',
    model: 'english-gb-v2.1',
  });
  expect(voice.status).toBe(200);
  voiceId = String(voice.json.voice_id);
});

afterAll(async () => {
  activateLatitude([]);
  await stack?.close();
});

afterEach(() => activateLatitude([]));

/** The take's prosody as generation answers it, GET shows it and the list shows it. */
async function takeProsody(prosody: unknown): Promise<unknown[]> {
  const created = await stack.call('POST', '/v1/speak/takes/generate', {
    voice_id: voiceId,
    text: 'Hi',
    prosody,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = String(created.json.take_id);
  const got = await stack.call('GET', `/v1/speak/takes/${id}`);
  const listed = await stack.call('GET', `/v1/speak/takes?take_id=${id}`);
  return [created.json.prosody, got.json.prosody, (listed.json as unknown as Json[])[0]?.prosody];
}

/** A voice's default_prosody as generation answers it and GET shows it. */
async function voiceDefault(defaultProsody: unknown): Promise<{ id: string; shown: unknown[] }> {
  const created = await stack.call('POST', '/v1/speak/voices/generate', {
    name: 'Partial',
    gender: 'male',
    model: 'theatrical-v2',
    default_prosody: defaultProsody,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  const id = String(created.json.voice_id);
  const got = await stack.call('GET', `/v1/speak/voices/${id}`);
  return { id, shown: [created.json.default_prosody, got.json.default_prosody] };
}

const ZEROS = { pace: 0, pitch: 0, expression: 0 };

describe('by default a partial prosody is completed with 0', () => {
  it('on a take: one field, none, and a whole one unchanged', async () => {
    for (const shown of await takeProsody({ pace: 3 })) expect(shown).toEqual({ ...ZEROS, pace: 3 });
    for (const shown of await takeProsody({})) expect(shown).toEqual(ZEROS);
    const whole = { pace: -10, pitch: 10, expression: 4 };
    for (const shown of await takeProsody(whole)) expect(shown).toEqual(whole);
  });

  it('with the fields of its own type (affect)', async () => {
    for (const shown of await takeProsody({ valence: 5, arousal: 2 }))
      expect(shown).toEqual({ pace: 0, pitch: 0, valence: 5, arousal: 2, dominance: 0 });
  });

  it("on a voice's default_prosody, at generation and on update; null stays null", async () => {
    const { id, shown } = await voiceDefault({ pace: -5 });
    for (const p of shown) expect(p).toEqual({ ...ZEROS, pace: -5 });
    expect((await stack.call('POST', `/v1/speak/voices/${id}`, { default_prosody: { pitch: 2 } })).json).toBe(
      true,
    );
    expect((await stack.call('GET', `/v1/speak/voices/${id}`)).json.default_prosody).toEqual({
      ...ZEROS,
      pitch: 2,
    });
    expect((await stack.call('POST', `/v1/speak/voices/${id}`, { default_prosody: null })).json).toBe(true);
    expect((await stack.call('GET', `/v1/speak/voices/${id}`)).json.default_prosody).toBeNull();
    for (const p of (await voiceDefault(null)).shown) expect(p).toBeNull();
  });
});

describe('latitude prosody-as-sent', () => {
  it('stores and shows a partial prosody as sent, on takes and voices', async () => {
    activateLatitude(['prosody-as-sent']);
    for (const shown of await takeProsody({ pace: 3 })) expect(shown).toEqual({ pace: 3 });
    for (const shown of await takeProsody({})) expect(shown).toEqual({});
    const { id, shown } = await voiceDefault({ pace: -5 });
    for (const p of shown) expect(p).toEqual({ pace: -5 });
    await stack.call('POST', `/v1/speak/voices/${id}`, { default_prosody: { pitch: 2 } });
    expect((await stack.call('GET', `/v1/speak/voices/${id}`)).json.default_prosody).toEqual({ pitch: 2 });
  });
});
