/**
 * The containerized reference stack, launched with testcontainers: one API container
 * (`serve --workers 0`) and N worker containers (`worker --models ...`) sharing one data directory
 * (bind mount: SQLite WAL + audio), all with host networking on loopback. The image is built from
 * reference/Dockerfile once per content hash of its inputs (image-inputs.ts: the stack's files only,
 * not docs, tests or the harness) and reused after that.
 *
 * Image build arguments come from SPEAKCHECK_IMAGE_BASE and SPEAKCHECK_IMAGE_DEPS (npm | context).
 * When neither is set and the runtime holds `localhost/node-host:latest` (built by
 * ../shared/tools/host-node-image.sh on machines without a registry), that base is used with the
 * host's installed node_modules; otherwise the Dockerfile defaults (node:20-bookworm-slim, npm ci).
 *
 * Every container is stopped and removed by stop(), on process exit (best effort) and on
 * SIGINT/SIGTERM by whoever owns the run (run/serve/load call stop()).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GenericContainer,
  getContainerRuntimeClient,
  ImageName,
  type StartedTestContainer,
  Wait,
} from 'testcontainers';
import { SpeakcheckError } from '../errors.ts';
import { registerSecret } from '../evidence/redact.ts';
import { REPO_ROOT, StackStartError } from './embedded.ts';
import { hashImageInputs } from './image-inputs.ts';

export const IMAGE_REPOSITORY = 'localhost/speakcheck-reference';
const HOST_NODE_BASE = 'localhost/node-host:latest';
export interface WorkerSpec {
  id: string;
  models: string[];
  /** Worker-side defect switches (`worker --defect`), e.g. websocket framing; testing only. */
  defects?: string[];
}

export const DEFAULT_WORKERS: WorkerSpec[] = [
  { id: 'worker-studio', models: ['english-gb-v2.1'] },
  { id: 'worker-polyglot', models: ['theatrical-v2', 'english-gb-v2.1'] },
];

export interface ContainerStackOptions {
  workers?: WorkerSpec[];
  /** Extra `serve` flags for the API container (e.g. --access-token-ttl 60). */
  serveArgs?: string[];
  /** Bound of the image build (a cold build with npm ci can take minutes). */
  buildTimeoutMs?: number;
  /** Bound of each container becoming ready. */
  readyTimeoutMs?: number;
  onLog?: (line: string) => void;
}

export interface RunningWorker {
  spec: WorkerSpec;
  container: StartedTestContainer;
}

export interface ContainerStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The second seeded user (another customer) when the API printed one: the isolation checks' customer B. */
  second?: { email: string; password: string };
  image: string;
  dataDir: string;
  workers: RunningWorker[];
  /** Stops one worker container (SIGTERM, then SIGKILL after `timeoutS`) and removes it. */
  stopWorker(id: string, o?: { timeoutS?: number }): Promise<void>;
  /** Starts a worker container (again) on the same data, e.g. after stopWorker. */
  startWorker(spec: WorkerSpec): Promise<void>;
  /** Stops the API container and starts a new one on the same port and data. */
  restartApi(): Promise<void>;
  stop(): Promise<void>;
}

export class ContainerRuntimeUnavailable extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_NO_CONTAINER_RUNTIME';
  override name = 'ContainerRuntimeUnavailable';
}

/** Whether a Docker-compatible runtime answers; the reason when it does not. */
export async function containerRuntimeProblem(): Promise<string | undefined> {
  try {
    const client = await getContainerRuntimeClient();
    await client.info;
    return undefined;
  } catch (error) {
    return `no container runtime: ${(error as Error).message.split('\n')[0]}`;
  }
}

async function buildArgs(): Promise<Record<string, string>> {
  const base = process.env.SPEAKCHECK_IMAGE_BASE;
  const deps = process.env.SPEAKCHECK_IMAGE_DEPS;
  if (base || deps) return { ...(base ? { BASE: base } : {}), ...(deps ? { DEPS: deps } : {}) };
  const client = await getContainerRuntimeClient();
  if (await client.image.exists(ImageName.fromString(HOST_NODE_BASE))) {
    return { BASE: HOST_NODE_BASE, DEPS: 'context' };
  }
  return {};
}

/** Builds the reference image unless the runtime already holds the one for these inputs. */
export async function ensureReferenceImage(o: { log?: (line: string) => void } = {}): Promise<string> {
  const args = await buildArgs();
  const tag = `${IMAGE_REPOSITORY}:${hashImageInputs(REPO_ROOT, args)}`;
  const client = await getContainerRuntimeClient();
  if (await client.image.exists(ImageName.fromString(tag))) {
    o.log?.(`image ${tag} is up to date`);
    return tag;
  }
  o.log?.(`building ${tag} (${JSON.stringify(args)}) ...`);
  const started = performance.now();
  await GenericContainer.fromDockerfile(REPO_ROOT, 'reference/Dockerfile')
    .withBuildArgs(args)
    .build(tag, { deleteOnExit: false });
  o.log?.(`built ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return tag;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const live = new Set<StartedTestContainer>();
let exitHookInstalled = false;

/** Last resort: containers still running when the process exits are killed (synchronously impossible
 *  through the API, so the owner's stop() is the real guarantee; this covers a forgotten one). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('beforeExit', () => {
    for (const container of live) void container.stop({ timeout: 1 }).catch(() => {});
  });
}

/** Stops every container this process started and has not stopped yet (interrupts, failures). */
export async function stopAllContainers(): Promise<void> {
  await Promise.all([...live].map((container) => stopContainer(container, 1)));
}

async function stopContainer(container: StartedTestContainer, timeoutS: number): Promise<void> {
  live.delete(container);
  // testcontainers takes the grace period in milliseconds (it rounds down to the seconds of `stop -t`).
  await container.stop({ timeout: timeoutS * 1000, remove: true }).catch(() => {});
}

export async function startContainerStack(o: ContainerStackOptions = {}): Promise<ContainerStack> {
  installExitHook();
  const log = o.onLog ?? (() => {});
  const readyTimeoutMs = o.readyTimeoutMs ?? 90_000;
  const specs = o.workers ?? DEFAULT_WORKERS;
  const image = await withTimeout(
    ensureReferenceImage({ log }),
    o.buildTimeoutMs ?? 600_000,
    'the image build did not finish',
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'speakcheck-container-data-'));
  const port = await freePort();
  // The blob-store listener (signed audio URLs) lives in the API container on a port of its own.
  const blobPort = await freePort();
  let credentials = { email: '', password: '' };
  let second: { email: string; password: string } | undefined;

  const startApi = async (): Promise<StartedTestContainer> => {
    const container = await new GenericContainer(image)
      .withNetworkMode('host')
      .withBindMounts([{ source: dataDir, target: '/data' }])
      .withCommand([
        'serve',
        '--workers',
        '0',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--data',
        '/data',
        '--blob-port',
        String(blobPort),
        '--blob-url',
        `http://127.0.0.1:${blobPort}`,
        ...(o.serveArgs ?? []),
      ])
      .withWaitStrategy(Wait.forLogMessage(/^password=/m))
      .withStartupTimeout(readyTimeoutMs)
      .start();
    live.add(container);
    // The log consumer may lag the wait strategy by a tick: read the logs themselves.
    const text = await readLogs(container);
    const email = /^email=(.*)$/m.exec(text)?.[1]?.trim();
    const password = /^password=(.*)$/m.exec(text)?.[1]?.trim();
    if (!email || !password) throw new StackStartError('the API container printed no email/password');
    registerSecret(password);
    credentials = { email, password };
    const secondEmail = /^second_email=(.*)$/m.exec(text)?.[1]?.trim();
    const secondPassword = /^second_password=(.*)$/m.exec(text)?.[1]?.trim();
    if (secondEmail && secondPassword) {
      registerSecret(secondPassword);
      second = { email: secondEmail, password: secondPassword };
    }
    return container;
  };

  const startWorker = async (spec: WorkerSpec): Promise<StartedTestContainer> => {
    const container = await new GenericContainer(image)
      .withNetworkMode('host')
      .withBindMounts([{ source: dataDir, target: '/data' }])
      .withCommand([
        'worker',
        '--data',
        '/data',
        '--id',
        spec.id,
        '--models',
        spec.models.join(','),
        ...(spec.defects ?? []).flatMap((name) => ['--defect', name]),
      ])
      .withWaitStrategy(Wait.forLogMessage(/websocket endpoint listening/))
      .withStartupTimeout(readyTimeoutMs)
      .start();
    live.add(container);
    return container;
  };

  let api: StartedTestContainer | undefined;
  const workers: RunningWorker[] = [];
  const stop = async () => {
    await Promise.all(workers.map((w) => stopContainer(w.container, 3)));
    if (api) await stopContainer(api, 3);
    // Files in the data dir belong to the containers' root user; we run as root here.
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    api = await startApi();
    const running = await Promise.all(
      specs.map(async (spec) => ({ spec, container: await startWorker(spec) })),
    );
    workers.push(...running);
  } catch (error) {
    await stop();
    throw new StackStartError(`the container stack did not start: ${(error as Error).message}`);
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  log(`container stack: API ${baseUrl} + ${workers.length} worker(s) (${image})`);
  return {
    baseUrl,
    get email() {
      return credentials.email;
    },
    get password() {
      return credentials.password;
    },
    get second() {
      return second;
    },
    image,
    dataDir,
    workers,
    async stopWorker(id, so = {}) {
      const index = workers.findIndex((w) => w.spec.id === id);
      if (index < 0) throw new Error(`no running worker ${id}`);
      const [worker] = workers.splice(index, 1);
      await stopContainer(worker!.container, so.timeoutS ?? 0);
    },
    async startWorker(spec) {
      if (workers.some((w) => w.spec.id === spec.id)) throw new Error(`worker ${spec.id} is running`);
      workers.push({ spec, container: await startWorker(spec) });
    },
    async restartApi() {
      if (api) await stopContainer(api, 3);
      api = await startApi();
    },
    stop,
  };
}

async function readLogs(container: StartedTestContainer): Promise<string> {
  const stream = await container.logs();
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      stream.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, 2000);
    stream.on('data', (chunk: Buffer | string) => {
      text += String(chunk);
      if (/^password=/m.test(text) && /^email=/m.test(text)) done();
    });
    stream.on('end', done);
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StackStartError(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
