/**
 * The reference stack: database, API (fastify), synthesis workers (child processes), the item event
 * tail and webhooks, composed in one call. `speakcheck serve` and tests use it.
 *
 *   const stack = await startReferenceStack({ port: 0 });   // { baseUrl, users, permanentToken?, close() }
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createAjv } from '../schemas/index.ts';
import { buildApp, buildBlobApp, type ProtectedPlugin } from './api/app.ts';
import { handedOutUrl } from './api/client-host.ts';
import type { ApiContext } from './api/context.ts';
import { websocketAddressPlugin } from './api/plugins/websocket-address.ts';
import { TokenService } from './auth/tokens.ts';
import { seedDemoUser, seedSecondUser, upsertUser } from './auth/users.ts';
import { activateDefects, defects } from './defects/index.ts';
import { createItemEventTail } from './events/item-events.ts';
import { recoverAtStartup } from './jobs/job-queue.ts';
import { DEFAULT_LATENCY_SEED, setLatencySeed } from './latitude/hosted-latency.ts';
import { activateLatitude, latitude } from './latitude/index.ts';
import { resolveOptions, SAME_ORIGIN, type StackOptions } from './options.ts';
import { AudioUrlSigner } from './signing/audio-url.ts';
import { AudioFiles } from './store/audio-files.ts';
import { openDatabase } from './store/db.ts';
import { makeThrowawayTls, type StackTls } from './tls.ts';
import { startWebhooks, type WebhookAllow } from './webhooks/index.ts';
import { WorkerPool } from './worker/pool.ts';
import { registeredWorkers } from './worker/registry.ts';

export interface StackUser {
  email: string;
  password: string;
  userId: string;
}

export interface ReferenceStack {
  baseUrl: string;
  /** Public origin of the blob-store listener (signed audio URLs); undefined in same-origin mode. */
  blobUrl?: string;
  dataDir: string;
  /** The demo user first, then the extra users. */
  users: StackUser[];
  /** A second seeded user (another customer): what the harness's isolation checks sign in as. */
  second: StackUser;
  permanentToken?: string;
  /** With the tls option: the throwaway CA's certificate (PEM) that clients trust. */
  caFile?: string;
  close(): Promise<void>;
}

export async function startReferenceStack(given: Partial<StackOptions> = {}): Promise<ReferenceStack> {
  const options = resolveOptions(given);
  const log = options.log ?? (() => {});
  // Seconds since the process started: where start-up goes (`speakcheck bench` reads the line).
  const startup = { modules: process.uptime(), api: 0, ready: 0 };
  activateDefects(options.defects ?? []);
  if (defects.list().length > 0) log(`DEFECTIVE STACK: defect switches on: ${defects.list().join(', ')}`);
  activateLatitude(options.latitude ?? []);
  if (latitude.list().length > 0) log(`LATITUDE: latitude switches on: ${latitude.list().join(', ')}`);
  setLatencySeed(options.latencySeed ?? DEFAULT_LATENCY_SEED);
  if (options.signedUrlTtlSeconds < 600) {
    log(
      `signed audio URLs live ${options.signedUrlTtlSeconds} s: less than the 10 minutes the SDK caches them`,
    );
  }
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'speakcheck-data-'));
  // Before the workers fork: their websocket endpoints serve wss with the same certificate.
  let tls: StackTls | undefined;
  try {
    tls = options.tls ? await makeThrowawayTls(join(dataDir, 'tls')) : undefined;
  } catch (error) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const db = openDatabase(dataDir);

  const [demo, second] = await Promise.all([seedDemoUser(db), seedSecondUser(db)]);
  const users: StackUser[] = [demo];
  for (const extra of options.users) {
    users.push({ ...extra, userId: await upsertUser(db, extra.email, extra.password) });
  }
  const tokens = new TokenService(db, options.accessTokenTtlSeconds);
  const permanentToken = options.permanentToken ? tokens.createPermanentToken(demo.userId) : undefined;

  const recovered = recoverAtStartup(db);
  if (recovered.requeued + recovered.failed > 0) {
    log(
      `recovered after restart: ${recovered.requeued} job(s) re-queued, ${recovered.failed} take(s) failed`,
    );
  }

  const events = createItemEventTail(db, { log });
  const webhooks = startWebhooks({
    db,
    events,
    ...(options.webhookAllow ? { allow: options.webhookAllow as WebhookAllow } : {}),
    log,
  });
  const pool = new WorkerPool({
    db,
    dataDir,
    count: options.workers,
    threads: options.workerThreads,
    workerOptions: {
      websocketUrlTtlSeconds: options.websocketUrlTtlSeconds,
      host: options.host,
      wsShuffleWindow: options.wsShuffleWindow,
      wsSharesSynthesizer: options.wsSharesSynthesizer,
      replaySpokenParts: options.replaySpokenParts,
      ...(tls ? { tlsKeyFile: tls.keyFile, tlsCertFile: tls.certFile } : {}),
    },
    onEvents: () => events.wake(),
    log,
  });
  // Worker start (a process, tsx, espeak init and warm-up: seconds) is the longest step of start-up:
  // fork the workers now, so they start while the API is built, not after it. The websocket-address
  // plugin asks every worker to announce again when it registers, so early announcements are not lost.
  const workersReady = pool.start();
  workersReady.catch(() => {}); // awaited below; a failure before then is reported there

  let baseUrl = '';
  // Latitude signed-url-same-origin: the contract does not say where the signed URL points.
  const ownBlobListener = options.blobUrl !== SAME_ORIGIN && !latitude.has('signed-url-same-origin');
  let blobUrl: string | undefined;
  const ctx: ApiContext = {
    db,
    dataDir,
    options,
    ajv: createAjv(),
    tokens,
    signer: new AudioUrlSigner(db, options.signedUrlTtlSeconds),
    audio: new AudioFiles(dataDir),
    wakeWorkers: () => pool.wake(),
    wakeEvents: () => events.wake(),
    // Forked workers, then standalone ones (own containers) that registered in the database.
    workers: () => [
      ...pool.info(),
      ...registeredWorkers(db).map((w) => ({
        id: w.id,
        pid: w.pid,
        alive: w.alive,
        restarts: 0,
        models: w.models,
        websocket_url: w.websocketUrl,
        defects: w.defects,
      })),
    ],
    baseUrl: () => baseUrl,
    blobBaseUrl: () => blobUrl,
    ...(tls ? { https: { key: tls.key, cert: tls.cert } } : {}),
    log,
  };
  const protectedPlugins: ProtectedPlugin[] = [
    (scoped) => websocketAddressPlugin(scoped, { ctx, workers: pool }),
  ];
  // Known before the routes are built: the API registers the signed route itself only without a listener.
  if (ownBlobListener) blobUrl = options.blobUrl ?? 'http://pending';
  const built = Promise.all([
    buildApp(ctx, { protectedPlugins }),
    ownBlobListener ? buildBlobApp(ctx) : undefined,
  ]);
  const [app, blobApp] = await built.catch(async (error: unknown) => {
    await pool.close();
    throw error;
  });
  startup.api = process.uptime();

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close().catch(() => {});
    await blobApp?.close().catch(() => {});
    await pool.close();
    events.close();
    await webhooks.close().catch(() => {});
    db.close();
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    activateDefects([]);
    activateLatitude([]);
  };

  try {
    await Promise.all([
      workersReady,
      app.listen({ host: options.host, port: options.port }),
      blobApp?.listen({ host: options.host, port: options.blobPort }),
    ]);
  } catch (error) {
    await close();
    throw error;
  }
  startup.ready = process.uptime();
  const scheme = tls ? 'https' : 'http';
  baseUrl = listeningUrl(app, options.host, scheme);
  if (blobApp) blobUrl = options.blobUrl ?? listeningUrl(blobApp, options.host, scheme);
  log(
    `listening on ${baseUrl} with ${options.workers} worker ${options.workerThreads ? 'thread' : 'process'}(es)${options.workers === 0 ? ' (standalone workers join through the data dir)' : ''}; data in ${dataDir}`,
  );
  log(
    `startup: ${startup.ready.toFixed(2)} s since the process started (modules ${startup.modules.toFixed(2)} s, API built +${(startup.api - startup.modules).toFixed(2)} s, workers ready and listening +${(startup.ready - startup.api).toFixed(2)} s)`,
  );
  log(
    blobApp
      ? `signed audio URLs on the blob-store listener ${blobUrl}${options.blobUrl ? ` (listening on port ${portOf(blobApp)})` : ''}`
      : 'signed audio URLs on the API origin (--blob-url same-origin)',
  );
  return {
    baseUrl: handedOutUrl(baseUrl),
    ...(blobUrl ? { blobUrl: handedOutUrl(blobUrl) } : {}),
    dataDir,
    users,
    second,
    ...(permanentToken ? { permanentToken } : {}),
    ...(tls ? { caFile: tls.caFile } : {}),
    close,
  };
}

function portOf(app: FastifyInstance): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** http(s)://host:port of a listening app (behind a proxy or in a container, pass --blob-url for the public one). */
function listeningUrl(app: FastifyInstance, listenHost: string, scheme: 'http' | 'https'): string {
  const host = listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  return `${scheme}://${host}:${portOf(app)}`;
}
