import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { websocketAddressPlugin } from '../../../reference/api/plugins/websocket-address.ts';
import { type InProcessApp, inProcessApp } from './in-process-app.ts';

const OPERATIONS = [
  'login',
  'refresh',
  'logout',
  'getVersion',
  'listModels',
  'getModel',
  'listVoices',
  'generateVoice',
  'getVoice',
  'updateVoice',
  'deleteVoice',
  'listTakes',
  'generateTake',
  'getTake',
  'deleteTake',
  'getTakeAudiowav',
  'getTakeAudiomp3',
  'getTakeAudiom4a',
  'getTakeAudioflac',
  'getTakeAudiowebm',
  'getWebsocketUrl',
  'getWorkerWebsocketUrl',
];

type Operation = { operationId: string; parameters?: Array<{ name: string; in: string; example?: unknown }> };
type Document = { paths: Record<string, Record<string, Operation>> };

let made: InProcessApp;
let app: FastifyInstance;
let document: Document;

beforeAll(async () => {
  const workers = { on: () => undefined, broadcast: () => undefined };
  made = await inProcessApp({
    name: 'openapi',
    blobBaseUrl: 'http://127.0.0.1:2',
    plugins: (ctx) => ({ protectedPlugins: [(scoped) => websocketAddressPlugin(scoped, { ctx, workers })] }),
  });
  app = made.app;
  const answer = await app.inject({ method: 'GET', url: '/v1/speak/openapi.json' });
  expect(answer.statusCode).toBe(200);
  document = answer.json() as Document;
});

afterAll(async () => {
  await made?.close();
});

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

describe('OpenAPI document generated from the routes', () => {
  it('declares exactly the operations of the contract, each once', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect([...ids].sort()).toEqual([...OPERATIONS].sort());
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('leaves out the routes that declare no operation (docs pages, _meta)', () => {
    const paths = Object.keys(document.paths);
    expect(
      paths.filter((path) => path.includes('docs') || path.includes('_meta') || path.includes('openapi')),
    ).toEqual([]);
  });

  it('every declared operation reaches its route (its examples filled in): 401 or 4xx with detail, never "no such route"', async () => {
    for (const { path, method, operation } of operations()) {
      let url = path;
      for (const p of operation.parameters ?? []) {
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
      }
      const answer = await app.inject({ method: method.toUpperCase() as 'GET', url });
      const body = answer.json() as { detail?: unknown };
      expect(String(body.detail), `${method} ${url}`).not.toMatch(/no such route/);
      expect(answer.statusCode, `${method} ${url}`).toBeLessThan(500);
    }
  });

  it('validates request bodies with the route schema: 422 naming the field', async () => {
    const login = await app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@b.c' } });
    expect(login.statusCode).toBe(422);
    expect(login.json()).toEqual({ detail: 'body/password: is required' });
    const refresh = await app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: 5 } });
    expect(refresh.statusCode).toBe(422);
    expect((refresh.json() as { detail: string }).detail).toMatch(/^body\/refresh_token: /);
    const none = await app.inject({ method: 'POST', url: '/auth/logout' });
    expect(none.statusCode).toBe(422);
    expect(none.json()).toEqual({ detail: 'body/refresh_token: is required (or send it as a bearer token)' });
  });

  const authorized = { authorization: 'Bearer any' };

  it('validates a take or a batch of takes against its own schema, naming the item', async () => {
    const one = await app.inject({
      method: 'POST',
      url: '/v1/speak/takes/generate',
      headers: authorized,
      payload: { voice_id: 'vc_1' },
    });
    expect(one.statusCode).toBe(422);
    expect(one.json()).toEqual({ detail: 'body/text: is required' });
    const batch = await app.inject({
      method: 'POST',
      url: '/v1/speak/takes/generate',
      headers: authorized,
      payload: [
        { voice_id: 'vc_1', text: 'Hello.' },
        { voice_id: 'vc_1', text: 5 },
      ],
    });
    expect(batch.statusCode).toBe(422);
    expect(batch.json()).toEqual({ detail: 'body/1/text: must be string' });
    const unknown = await app.inject({
      method: 'POST',
      url: '/v1/speak/takes/generate',
      headers: authorized,
      payload: { voice_id: 'vc_unknown', text: 'Hello.' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('validates list queries with the list parser and ids with the params schema', async () => {
    const list = await app.inject({ method: 'GET', url: '/v1/speak/takes?length=0', headers: authorized });
    expect(list.statusCode).toBe(422);
    expect((list.json() as { detail: string }).detail).toMatch(/^query\/length: /);
    const ok = await app.inject({
      method: 'GET',
      url: '/v1/speak/voices?page=1&length=2',
      headers: authorized,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual([]);
    const empty = await app.inject({ method: 'GET', url: '/v1/speak/voices/', headers: authorized });
    expect(empty.statusCode).toBe(422);
    expect(empty.json()).toEqual({ detail: 'params/voice_id: must NOT have fewer than 1 characters' });
  });
});
