/**
 * The reference stack's resources over HTTP: version, models, voices (generate, get, list, update,
 * delete), takes (single and batch generation, progress to ready with info, user_data, languages,
 * styles, default prosody), lists (filters, paging, bounds, order), errors (422 naming the field, 404,
 * no 5xx and nothing created on garbage), and the docs.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Reply, type Session, type Stack, startStack } from '../stack.ts';

type Json = Record<string, unknown>;
let stack: Stack;
let api: Session;
let voiceId: string;

beforeAll(async () => {
  stack = await startStack();
  api = await stack.login();
  const voice = await api.post('/v1/speak/voices/generate', {
    name: 'Base',
    gender: 'female',
    model: 'english-gb-v2.1',
  });
  voiceId = String((voice.json as Json).voice_id);
});
afterAll(async () => {
  await stack?.stop();
});

function detail(reply: Reply, status: number): string {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toContain('application/json');
  const d = (reply.json as Json).detail;
  expect(typeof d === 'string' && d.length > 0, reply.text).toBe(true);
  return String(d);
}

async function newTake(body: Json): Promise<Json> {
  const reply = await api.post('/v1/speak/takes/generate', { voice_id: voiceId, ...body });
  expect(reply.status, reply.text).toBe(200);
  return reply.json as Json;
}

const ready = async (takeId: string) => (await pollUntil(api, `/v1/speak/takes/${takeId}`, isDone)).body;

describe('version and models', () => {
  it('version is {version: 1, minor}', async () => {
    expect((await stack.request('GET', '/v1/speak/version')).json).toEqual({ version: 1, minor: 0 });
  });

  it('lists two models, gets each by name, 404 for an unknown one', async () => {
    const models = (await api.get('/v1/speak/models')).json as Json[];
    expect(models.map((m) => m.name)).toEqual(['english-gb-v2.1', 'theatrical-v2']);
    const studio = models[0]!;
    expect(studio.prosody_types).toEqual(['simple', 'affect']);
    expect((studio.styles as string[][]).flat()).toContain('cheerful');
    expect(models[1]!.prosody_types).toEqual(['simple']);
    expect((models[1]!.languages as string[]).length).toBeGreaterThan(3);
    for (const m of models) expect((await api.get(`/v1/speak/models/${m.name}`)).json).toEqual(m);
    expect(detail(await api.get('/v1/speak/models/nope'), 404)).toContain('nope');
  });

  it("the vendor's names: voices come back as english-gb-v2.1 / theatrical-v2; studio and polyglot stay aliases (not listed)", async () => {
    for (const [asked, model, voiceModel] of [
      ['english-gb-v2.1', 'english-gb-v2.1', 'english-gb-v2.1'],
      ['theatrical-v2', 'theatrical-v2', 'theatrical-v2'],
      ['studio', 'english-gb-v2.1', 'english-gb-v2.1'],
      ['polyglot', 'theatrical-v2', 'theatrical-v2'],
    ] as const) {
      expect(((await api.get(`/v1/speak/models/${asked}`)).json as Json).name).toBe(model);
      const voice = (
        await api.post('/v1/speak/voices/generate', { name: asked, gender: 'male', model: asked })
      ).json as Json;
      expect(voice.model, asked).toBe(voiceModel);
    }
  });
});

describe('voices', () => {
  it('generate → waiting with the fields sent, a specific model name, then ready; example take audio', async () => {
    const created = await api.post('/v1/speak/voices/generate', {
      name: 'Eve',
      gender: 'nonbinary',
      model: 'english-gb-v2.1',
      default_prosody: { pace: 3, pitch: -2, expression: 1 },
      description: 'calm narrator',
      done_webhook: { post_url: 'http://127.0.0.1:9/done' },
    });
    expect(created.status).toBe(200);
    const voice = created.json as Json;
    expect(voice).toMatchObject({
      name: 'Eve',
      gender: 'nonbinary',
      model: 'english-gb-v2.1',
      status: 'waiting',
      default_prosody: { pace: 3, pitch: -2, expression: 1 },
      default_style: null,
      description: 'calm narrator',
      example_take: null,
      status_webhook: null,
      done_webhook: { post_url: 'http://127.0.0.1:9/done' },
    });
    expect(Math.abs(Number(voice.timestamp_ms) - Date.now())).toBeLessThan(60_000);
    const done = await pollUntil(api, `/v1/speak/voices/${voice.voice_id}`, isDone);
    expect(done.body.status).toBe('ready');
    const example = await ready(String(voice.example_take_id));
    expect(example.status).toBe('ready');
    expect((await api.get(`/v1/speak/takes/${voice.example_take_id}/wav`)).status).toBe(307);
  });

  it('example_take text is used when given', async () => {
    const voice = (
      await api.post('/v1/speak/voices/generate', {
        name: 'Ex',
        gender: 'male',
        model: 'theatrical-v2',
        example_take: { text: 'Guten Tag.', override_language: 'de' },
      })
    ).json as Json;
    expect(voice.model).toBe('theatrical-v2');
    const take = await ready(String(voice.example_take_id));
    expect(take).toMatchObject({ text: 'Guten Tag.', override_language: 'de', status: 'ready' });
  });

  it('refuses invalid generation bodies with 422 naming the field, creating nothing', async () => {
    const before = ((await api.get('/v1/speak/voices')).json as Json[]).length;
    const takesBefore = ((await api.get('/v1/speak/takes')).json as Json[]).length;
    const cases: [Json, string][] = [
      [{ gender: 'female', model: 'english-gb-v2.1' }, 'name'],
      [{ name: 'x', gender: 'robot', model: 'english-gb-v2.1' }, 'gender'],
      [{ name: 'x', gender: 'nonbinary', model: 'theatrical-v2' }, 'gender'],
      [{ name: 'x', gender: 'female', model: 'nope' }, 'model'],
      [
        { name: 'x', gender: 'female', model: 'english-gb-v2.1', default_prosody: { pace: 11 } },
        'default_prosody',
      ],
      [
        { name: 'x', gender: 'female', model: 'english-gb-v2.1', default_prosody: { pace: 1.5 } },
        'default_prosody',
      ],
      [
        { name: 'x', gender: 'female', model: 'theatrical-v2', default_prosody: { valence: 1 } },
        'default_prosody',
      ],
      [{ name: 'x', gender: 'female', model: 'english-gb-v2.1', default_style: ['yodel'] }, 'default_style'],
      [
        { name: 'x', gender: 'female', model: 'english-gb-v2.1', example_take: { override_language: 'fr' } },
        'override_language',
      ],
      [{ name: 'x', gender: 'female', model: 'english-gb-v2.1', done_webhook: 'not a url' }, 'done_webhook'],
    ];
    for (const [body, field] of cases) {
      expect(detail(await api.post('/v1/speak/voices/generate', body), 422), JSON.stringify(body)).toContain(
        field,
      );
    }
    expect(((await api.get('/v1/speak/voices')).json as Json[]).length).toBe(before);
    expect(((await api.get('/v1/speak/takes')).json as Json[]).length).toBe(takesBefore);
  });

  it('update (partial, true) shows on GET; unknown → 404; invalid → 422', async () => {
    const updated = await api.post(`/v1/speak/voices/${voiceId}`, {
      name: 'Renamed',
      default_style: ['calm'],
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toBe(true);
    expect((await api.get(`/v1/speak/voices/${voiceId}`)).json).toMatchObject({
      name: 'Renamed',
      default_style: ['calm'],
      gender: 'female',
    });
    detail(await api.post('/v1/speak/voices/vc_unknown', { name: 'x' }), 404);
    detail(await api.post(`/v1/speak/voices/${voiceId}`, {}), 422);
    expect(detail(await api.post(`/v1/speak/voices/${voiceId}`, { gender: 'robot' }), 422)).toContain(
      'gender',
    );
    expect(detail(await api.post(`/v1/speak/voices/${voiceId}`, { colour: 'red' }), 422)).toContain('colour');
  });

  it('delete answers true, removes it from lists; 404 afterwards', async () => {
    const voice = (
      await api.post('/v1/speak/voices/generate', { name: 'Gone', gender: 'male', model: 'english-gb-v2.1' })
    ).json as Json;
    const removed = await api.delete(`/v1/speak/voices/${voice.voice_id}`);
    expect(removed.status).toBe(200);
    expect(removed.json).toBe(true);
    detail(await api.get(`/v1/speak/voices/${voice.voice_id}`), 404);
    detail(await api.delete(`/v1/speak/voices/${voice.voice_id}`), 404);
    const list = (await api.get('/v1/speak/voices')).json as Json[];
    expect(list.map((v) => v.voice_id)).not.toContain(voice.voice_id);
  });
});

describe('takes', () => {
  it('generate → waiting, info null, listed at once; moves forward to ready with info in samples', async () => {
    const text = 'One sentence here. A second one follows. Then a third. And the fourth ends it.';
    const take = await newTake({ text, user_data: 'ref-42' });
    expect(take).toMatchObject({
      status: 'waiting',
      info: null,
      text,
      voice_id: voiceId,
      prosody: null,
      style: null,
    });
    expect(take.user_data).toBe('ref-42');
    const listed = (await api.get(`/v1/speak/takes?take_id=${take.take_id}`)).json as Json[];
    expect(listed).toHaveLength(1);
    const done = await pollUntil(api, `/v1/speak/takes/${take.take_id}`, isDone);
    const order = ['waiting', 'started', 'progress_25', 'progress_50', 'progress_75', 'ready'];
    const ranks = done.statuses.map((s) => order.indexOf(s));
    expect(ranks.every((r) => r >= 0)).toBe(true);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(done.body.status).toBe('ready');
    const info = done.body.info as Json;
    expect(info.audio_rate).toBe(22050);
    expect(info.normalized_text).toEqual([
      'One sentence here.',
      'A second one follows.',
      'Then a third.',
      'And the fourth ends it.',
    ]);
    expect(Number(info.duration)).toBeGreaterThan(22050); // > 1 s of speech
    expect(done.reply.headers.get('x-speak-worker')).toMatch(/^worker-\d$/);
    expect(done.body.user_data).toBe('ref-42');
  });

  it('batch: an array → an array in the same order; one invalid body refuses all', async () => {
    const texts = ['First take.', 'Second take.', 'Third take.'];
    const reply = await api.post(
      '/v1/speak/takes/generate',
      texts.map((text, i) => ({ voice_id: voiceId, text, user_data: i })),
    );
    expect(reply.status).toBe(200);
    const takes = reply.json as Json[];
    expect(takes.map((t) => t.text)).toEqual(texts);
    expect(takes.map((t) => t.user_data)).toEqual([0, 1, 2]);
    const before = ((await api.get('/v1/speak/takes')).json as Json[]).length;
    const bad = await api.post('/v1/speak/takes/generate', [
      { voice_id: voiceId, text: 'fine' },
      { voice_id: voiceId, text: 'bad', prosody: { pace: 99 } },
    ]);
    expect(detail(bad, 422)).toContain('body/1');
    const unknownVoice = await api.post('/v1/speak/takes/generate', [
      { voice_id: voiceId, text: 'fine' },
      { voice_id: 'vc_nope', text: 'bad' },
    ]);
    expect(detail(unknownVoice, 404)).toContain('body/1/voice_id');
    expect(((await api.get('/v1/speak/takes')).json as Json[]).length).toBe(before);
    for (const t of takes) expect((await ready(String(t.take_id))).status).toBe('ready');
  });

  it('checks prosody, style, language and user_data against the model (422 naming the field)', async () => {
    const cases: [Json, string][] = [
      [{ text: 'x', prosody: { pace: -11 } }, 'prosody'],
      [{ text: 'x', prosody: { pitch: '1' } }, 'prosody'],
      [{ text: 'x', prosody: { tilt: 1 } }, 'prosody'],
      [{ text: 'x', style: ['yodel'] }, 'style'],
      [{ text: 'x', override_language: 'de' }, 'override_language'],
      [{ text: 'x', user_data: 'u'.repeat(257) }, 'user_data'],
      [{ text: '' }, 'text'],
      [{ text: '   ' }, 'text'],
    ];
    for (const [body, field] of cases) {
      const reply = await api.post('/v1/speak/takes/generate', { voice_id: voiceId, ...body });
      expect(detail(reply, 422), JSON.stringify(body)).toContain(field);
    }
    // A voice that does not exist is a missing resource (as on the worker websocket), not a bad field.
    const noVoice = await api.post('/v1/speak/takes/generate', { text: 'x', voice_id: 'vc_nope' });
    expect(detail(noVoice, 404)).toContain('voice_id');
    const ok = await newTake({
      text: 'Cheerful and British.',
      style: ['cheerful'],
      override_language: 'en-GB',
      prosody: { valence: 5, arousal: 2 },
    });
    expect(ok).toMatchObject({
      style: ['cheerful'],
      override_language: 'en-GB',
      prosody: { valence: 5, arousal: 2 },
    });
    expect((await ready(String(ok.take_id))).status).toBe('ready');
  });

  it("applies the voice's default prosody when the take gives none (GET shows the take's own prosody)", async () => {
    const fast = (
      await api.post('/v1/speak/voices/generate', {
        name: 'Fast',
        gender: 'male',
        model: 'english-gb-v2.1',
        default_prosody: { pace: 10 },
      })
    ).json as Json;
    const text = 'This sentence is spoken at the default pace of the voice, which is very fast indeed.';
    const byDefault = (await api.post('/v1/speak/takes/generate', { voice_id: fast.voice_id, text }))
      .json as Json;
    const slow = (
      await api.post('/v1/speak/takes/generate', { voice_id: fast.voice_id, text, prosody: { pace: -10 } })
    ).json as Json;
    const a = await ready(String(byDefault.take_id));
    const b = await ready(String(slow.take_id));
    expect(a.prosody).toBeNull();
    // A partial simple prosody is shown completed with 0 (take-builder.ts completedProsody).
    expect(b.prosody).toEqual({ pace: -10, pitch: 0, expression: 0 });
    const da = Number((a.info as Json).duration);
    const db = Number((b.info as Json).duration);
    expect(db).toBeGreaterThan(da * 1.5);
  });

  it('delete answers true; the take and its audio are gone', async () => {
    const take = await newTake({ text: 'Soon deleted.' });
    await ready(String(take.take_id));
    const removed = await api.delete(`/v1/speak/takes/${take.take_id}`);
    expect(removed.json).toBe(true);
    detail(await api.get(`/v1/speak/takes/${take.take_id}`), 404);
    detail(await api.get(`/v1/speak/takes/${take.take_id}/wav`), 404);
    detail(await api.delete(`/v1/speak/takes/${take.take_id}`), 404);
  });
});

describe('lists', () => {
  it('order: timestamp_ms desc then id desc; id filter; pages from 1 partition; inclusive older/newer', async () => {
    for (let i = 0; i < 3; i++) await newTake({ text: `List item ${i}.` });
    const all = (await api.get('/v1/speak/takes')).json as Json[];
    expect(all.length).toBeGreaterThanOrEqual(5);
    const key = (t: Json) => [Number(t.timestamp_ms), String(t.take_id)] as const;
    for (let i = 1; i < all.length; i++) {
      const [ta, ia] = key(all[i - 1]!);
      const [tb, ib] = key(all[i]!);
      expect(ta > tb || (ta === tb && ia > ib)).toBe(true);
    }
    const ids = all.map((t) => String(t.take_id));
    const pick = [ids[3]!, ids[0]!, 'tk_unknown'];
    const filtered = (await api.get(`/v1/speak/takes?take_id=${pick.join(',')}`)).json as Json[];
    expect(filtered.map((t) => t.take_id)).toEqual([ids[0], ids[3]]);
    const pages: string[] = [];
    for (let page = 1; page <= Math.ceil(ids.length / 2) + 1; page++) {
      const chunk = (await api.get(`/v1/speak/takes?length=2&page=${page}`)).json as Json[];
      expect(chunk.length).toBeLessThanOrEqual(2);
      pages.push(...chunk.map((t) => String(t.take_id)));
    }
    expect(pages).toEqual(ids);
    expect(((await api.get('/v1/speak/takes?length=2')).json as Json[]).map((t) => t.take_id)).toEqual(
      ids.slice(0, 2),
    );
    const middle = all[2]!;
    const ts = Number(middle.timestamp_ms);
    const older = (await api.get(`/v1/speak/takes?older=${ts}`)).json as Json[];
    expect(older.map((t) => t.take_id)).toEqual(
      all.filter((t) => Number(t.timestamp_ms) <= ts).map((t) => t.take_id),
    );
    const newer = (await api.get(`/v1/speak/takes?newer=${ts}`)).json as Json[];
    expect(newer.map((t) => t.take_id)).toEqual(
      all.filter((t) => Number(t.timestamp_ms) >= ts).map((t) => t.take_id),
    );
    const voices = (await api.get(`/v1/speak/voices?voice_id=${voiceId}&length=1&page=1`)).json as Json[];
    expect(voices.map((v) => v.voice_id)).toEqual([voiceId]);
  });

  it('refuses invalid query values with 422 naming the parameter', async () => {
    for (const query of ['length=0', 'length=abc', 'page=0', 'page=1.5', 'older=-1', 'newer=soon']) {
      const name = query.split('=')[0]!;
      expect(detail(await api.get(`/v1/speak/takes?${query}`), 422)).toContain(name);
      expect(detail(await api.get(`/v1/speak/voices?${query}`), 422)).toContain(name);
    }
  });
});

describe('errors', () => {
  it('never answers 5xx to garbage and creates nothing', async () => {
    const before = ((await api.get('/v1/speak/takes')).json as Json[]).length;
    const bodies = [
      '{',
      'null',
      '[]',
      '"text"',
      '123',
      'true',
      '{"text":{"a":[1,2]}}',
      `{"voice_id":"${voiceId}","text":1e400}`,
      '[null]',
      '{"__proto__":{"x":1}}',
      '\u0000',
    ];
    for (const path of [
      '/v1/speak/takes/generate',
      '/v1/speak/voices/generate',
      `/v1/speak/voices/${voiceId}`,
      '/auth/login',
      '/auth/refresh',
      '/auth/logout',
    ]) {
      for (const body of bodies) {
        const reply = await stack.request('POST', path, {
          body,
          token: api.access,
          headers: { 'content-type': 'application/json' },
        });
        expect(reply.status, `${path} ${body} → ${reply.text}`).toBeGreaterThanOrEqual(400);
        expect(reply.status, `${path} ${body} → ${reply.text}`).toBeLessThan(500);
        expect((reply.json as Json).detail).toBeTruthy();
      }
      const wrongType = await stack.request('POST', path, {
        body: 'name=x',
        token: api.access,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(wrongType.status).toBeGreaterThanOrEqual(400);
      expect(wrongType.status).toBeLessThan(500);
    }
    expect(((await api.get('/v1/speak/takes')).json as Json[]).length).toBe(before);
    // A JSON content type without a body (clients set it on every request) is no body, not an error.
    const json = { 'content-type': 'application/json' };
    expect((await stack.request('GET', '/v1/speak/takes', { token: api.access, headers: json })).status).toBe(
      200,
    );
    expect(
      (await stack.request('DELETE', '/v1/speak/takes/tk_none', { token: api.access, headers: json })).status,
    ).toBe(404);
    expect(
      detail(
        await stack.request('POST', '/v1/speak/takes/generate', { token: api.access, headers: json }),
        422,
      ),
    ).toContain('body');
    expect(detail(await api.get('/v1/speak/nothing'), 404)).toContain('/v1/speak/nothing');
    expect(detail(await api.get('/v1/speak/takes/%E0%A4%A'), 400)).toContain('url');
    detail(await api.get('/v1/speak/takes/tk_unknown'), 404);
    detail(await api.get('/v1/speak/voices/vc_unknown'), 404);
  });
});

describe('docs', () => {
  it('openapi.json is valid OpenAPI 3.1 declaring every path of the contract', async () => {
    const reply = await stack.request('GET', '/v1/speak/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.json as { openapi: string; paths: Record<string, Json>; components: { schemas: Json } };
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.valid, JSON.stringify(result.errors)).toBe(true);
    for (const path of [
      '/v1/speak/models',
      '/v1/speak/models/{name}',
      '/v1/speak/voices',
      '/v1/speak/voices/{voice_id}',
      '/v1/speak/voices/generate',
      '/v1/speak/takes',
      '/v1/speak/takes/{take_id}',
      '/v1/speak/takes/generate',
      '/v1/speak/takes/{take_id}/wav',
      '/v1/speak/takes/{take_id}/mp3',
      '/v1/speak/takes/{take_id}/m4a',
      '/v1/speak/takes/{take_id}/flac',
      '/v1/speak/takes/{take_id}/webm',
      '/v1/speak/websocket',
      '/v1/speak/version',
      '/auth/login',
      '/auth/refresh',
      '/auth/logout',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Take', 'Voice', 'TakeGenerate', 'Error']),
    );
    expect(JSON.stringify(doc)).not.toContain('.json"');
  });

  it('Swagger UI and Redoc are served locally without a token', async () => {
    const docs = await stack.request('GET', '/v1/speak/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const assets = [...docs.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/')).toBe(true); // local, no CDN
      const reply = await stack.request('GET', asset);
      expect(reply.status, asset).toBe(200);
      expect(reply.body.length).toBeGreaterThan(1000);
    }
    const redoc = await stack.request('GET', '/v1/speak/redoc');
    expect(redoc.status).toBe(200);
    const script = /src="([^"]+)"/.exec(redoc.text)![1]!;
    expect(script.startsWith('/')).toBe(true);
    const bundle = await stack.request('GET', script);
    expect(bundle.status).toBe(200);
    expect(bundle.body.length).toBeGreaterThan(100_000);
  });
});
