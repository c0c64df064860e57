/**
 * By default a generation body field of the wrong JSON type is refused (422). Latitude coerced-types
 * makes the other choice the contract leaves open ("the error for ... invalid bodies: not shown"):
 * a scalar is coerced to the type its table gives (as pydantic's lax mode does) and stored so, and
 * what cannot be coerced is still refused. Switches are read when the routes compile, so each
 * choice builds its own app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateLatitude } from '../../../reference/latitude/index.ts';
import { type InProcessApp, inProcessApp } from './in-process-app.ts';

const VOICE = { name: 'Typed', gender: 'female', model: 'english-gb-v2.1' };

let strict: InProcessApp;
let coercing: InProcessApp;

beforeAll(async () => {
  strict = await inProcessApp({ name: 'types-strict' });
  activateLatitude(['coerced-types']);
  try {
    coercing = await inProcessApp({ name: 'types-coerced' });
    // Fastify compiles the route schemas when it is ready: while the switch is on.
    await coercing.app.ready();
  } finally {
    activateLatitude([]);
  }
});

afterAll(async () => {
  await strict?.close();
  await coercing?.close();
});

async function voiceOf(stack: InProcessApp): Promise<string> {
  const voice = await stack.call('POST', '/v1/speak/voices/generate', VOICE);
  expect(voice.status, JSON.stringify(voice.json)).toBe(200);
  return String(voice.json.voice_id);
}

describe('a field of the wrong JSON type', () => {
  it('is refused by default', async () => {
    const voiceId = await voiceOf(strict);
    const take = await strict.call('POST', '/v1/speak/takes/generate', { voice_id: voiceId, text: 42 });
    expect(take.status).toBe(422);
    expect(take.json.detail).toMatch(/text/);
    const voice = await strict.call('POST', '/v1/speak/voices/generate', { ...VOICE, name: true });
    expect(voice.status).toBe(422);
  });

  it('with coerced-types is coerced, stored and shown so', async () => {
    const voiceId = await voiceOf(coercing);
    const take = await coercing.call('POST', '/v1/speak/takes/generate', {
      voice_id: voiceId,
      text: 42,
      prosody: { pace: '3', pitch: 0, expression: 0 },
    });
    expect(take.status, JSON.stringify(take.json)).toBe(200);
    expect(take.json.text).toBe('42');
    const got = await coercing.call('GET', `/v1/speak/takes/${String(take.json.take_id)}`);
    expect(got.json.text).toBe('42');
    expect(got.json.prosody).toEqual({ pace: 3, pitch: 0, expression: 0 });
    const voice = await coercing.call('POST', '/v1/speak/voices/generate', { ...VOICE, name: 7 });
    expect(voice.status, JSON.stringify(voice.json)).toBe(200);
    expect(voice.json.name).toBe('7');
  });

  it('with coerced-types is still refused when no coercion makes it valid', async () => {
    const voiceId = await voiceOf(coercing);
    for (const text of [['text'], { text: 'x' }]) {
      const take = await coercing.call('POST', '/v1/speak/takes/generate', { voice_id: voiceId, text });
      expect(take.status, JSON.stringify(text)).toBe(422);
    }
    const voice = await coercing.call('POST', '/v1/speak/voices/generate', { ...VOICE, gender: 'robot' });
    expect(voice.status).toBe(422);
  });
});
