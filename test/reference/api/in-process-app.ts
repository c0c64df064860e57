/**
 * The API app built in process for unit tests (no stack, no workers: nothing speaks, so statuses and
 * audio files are set by hand): a fresh data directory, one user whom every bearer token names, and
 * the signed audio route on the app itself unless `blobBaseUrl` names a blob-store listener.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../reference/api/app.ts';
import type { ApiContext } from '../../../reference/api/context.ts';
import { upsertUser } from '../../../reference/auth/users.ts';
import { AudioUrlSigner } from '../../../reference/signing/audio-url.ts';
import { AudioFiles } from '../../../reference/store/audio-files.ts';
import { type Database, openDatabase } from '../../../reference/store/db.ts';
import { createAjv } from '../../../schemas/index.ts';

/** A JSON body as the tests read it (an object, or `true` for update and delete). */
export type Json = Record<string, unknown>;

export interface InProcessApp {
  dir: string;
  db: Database;
  app: FastifyInstance;
  ctx: ApiContext;
  userId: string;
  signer: AudioUrlSigner;
  /** One request with the (any) bearer token; the JSON body when there is one. */
  call(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<{ status: number; json: Json }>;
  close(): Promise<void>;
}

export async function inProcessApp(o: {
  name: string;
  blobBaseUrl?: string;
  /** What a test puts in place of the context's parts (an audio store that races, a wake it counts). */
  context?: (base: ApiContext) => Partial<ApiContext>;
  /** Extra plugins, as the stack's own composition adds them (the websocket address). */
  plugins?: (ctx: ApiContext) => Parameters<typeof buildApp>[1];
}): Promise<InProcessApp> {
  const dir = mkdtempSync(join(tmpdir(), `speakcheck-${o.name}-`));
  const db = openDatabase(dir);
  const userId = await upsertUser(db, `${o.name}@speakcheck.local`, 'not-the-password');
  const signer = new AudioUrlSigner(db, 900);
  // Only what building the app and answering requests needs; every token is the user's.
  const ctx = {
    tokens: { verifyAccess: async () => ({ userId }) },
    db,
    dataDir: dir,
    ajv: createAjv(),
    options: { websocketUrlTtlSeconds: 60 },
    signer,
    audio: new AudioFiles(dir),
    wakeWorkers: () => undefined,
    wakeEvents: () => undefined,
    workers: () => [],
    baseUrl: () => 'http://127.0.0.1:1',
    blobBaseUrl: () => o.blobBaseUrl,
    log: () => undefined,
  } as unknown as ApiContext;
  Object.assign(ctx, o.context?.(ctx));
  const app = await buildApp(ctx, o.plugins?.(ctx));
  return {
    dir,
    db,
    app,
    ctx,
    userId,
    signer,
    async call(method, url, payload) {
      const answer = await app.inject({
        method,
        url,
        headers: { authorization: 'Bearer any' },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      const json = (answer.body === '' ? undefined : answer.json()) as Json;
      return { status: answer.statusCode, json };
    },
    async close() {
      await app.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
