/**
 * Test helper: starts the reference stack as `node bin/speakcheck.js serve --port 0 ...` in a child
 * process (as a stranger would) through the one launcher (src/stack/launcher.ts: ready lines, stop
 * policy, tree kill), logs in, and always stops it. Requests go over HTTP with fetch; redirects are
 * never followed.
 */
import { SPEAKCHECK_BIN } from '../../src/stack/embedded.ts';
import { type Exit, LaunchError, launch, serveReady } from '../../src/stack/launcher.ts';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  body: Buffer;
}

export interface RequestOptions {
  token?: string | null;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface Stack {
  baseUrl: string;
  /** blob_url=...: the blob-store listener serving signed audio URLs (absent with --blob-url same-origin). */
  blobUrl?: string;
  email: string;
  password: string;
  /** token=... when started with --permanent-token. */
  permanentToken?: string;
  pid: number;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** A request relative to baseUrl (or an absolute URL); `token` defaults to none. */
  request(method: string, path: string, o?: RequestOptions): Promise<Reply>;
  /** `renew`: log in again and retry once when a request answers 401 (short token lifetimes). */
  login(email?: string, password?: string, o?: { renew?: boolean }): Promise<Session>;
}

export interface Session {
  access: string;
  refresh: string;
  get(path: string): Promise<Reply>;
  post(path: string, json?: unknown): Promise<Reply>;
  delete(path: string): Promise<Reply>;
}

export async function request(
  baseUrl: string,
  method: string,
  path: string,
  o: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] ??= 'application/json';
  }
  const url = /^https?:/.test(path) ? path : `${baseUrl}${path}`;
  const response = await fetch(url, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(30_000),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  const text = buffer.toString('utf8');
  let json: unknown;
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: response.status, headers: response.headers, text, json, body: buffer };
}

export async function startStack(args: string[] = [], readyTimeoutMs = 60_000): Promise<Stack> {
  let launched: Awaited<ReturnType<typeof launch>>;
  try {
    launched = await launch({
      args: [SPEAKCHECK_BIN, 'serve', '--port', '0', ...args],
      env: { ...process.env, NO_COLOR: '1' },
      what: 'serve',
      ready: serveReady({ token: args.includes('--permanent-token') }),
      readyTimeoutMs,
    });
  } catch (error) {
    if (!(error instanceof LaunchError)) throw error;
    throw new Error(`${error.message}:\n${error.output}`);
  }
  const { fields, output, exited } = launched;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    await launched.stop(signal);
  };
  const baseUrl = fields.get('base_url')!;
  const stack: Stack = {
    baseUrl,
    ...(fields.has('blob_url') ? { blobUrl: fields.get('blob_url')! } : {}),
    email: fields.get('email')!,
    password: fields.get('password')!,
    ...(fields.has('token') ? { permanentToken: fields.get('token')! } : {}),
    pid: launched.pid,
    output,
    exited,
    stop,
    request: (method, path, o) => request(baseUrl, method, path, o),
    async login(email = stack.email, password = stack.password, o = {}) {
      const logIn = async () => {
        const reply = await request(baseUrl, 'POST', '/auth/login', { json: { email, password } });
        if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${reply.text}`);
        return reply.json as { access_token: string; refresh_token: string };
      };
      const pair = await logIn();
      let token = pair.access_token;
      const send = async (method: string, path: string, json?: unknown) => {
        const reply = await request(baseUrl, method, path, { token, json });
        if (reply.status !== 401 || !o.renew) return reply;
        token = (await logIn()).access_token;
        return request(baseUrl, method, path, { token, json });
      };
      return {
        access: token,
        refresh: pair.refresh_token,
        get: (path) => send('GET', path),
        post: (path, json) => send('POST', path, json),
        delete: (path) => send('DELETE', path),
      };
    },
  };
  return stack;
}

/** Polls GET path until `done(json)` holds; bounded; returns every distinct status seen and the last body. */
export async function pollUntil(
  session: Session,
  path: string,
  done: (body: Record<string, unknown>) => boolean,
  timeoutMs = 60_000,
): Promise<{ body: Record<string, unknown>; statuses: string[]; reply: Reply }> {
  const deadline = Date.now() + timeoutMs;
  const statuses: string[] = [];
  for (;;) {
    const reply = await session.get(path);
    if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${reply.text}`);
    const body = reply.json as Record<string, unknown>;
    if (statuses.at(-1) !== body.status) statuses.push(String(body.status));
    if (done(body)) return { body, statuses, reply };
    if (Date.now() > deadline)
      throw new Error(`GET ${path} not done within ${timeoutMs} ms (statuses ${statuses.join(' → ')})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const isDone = (body: Record<string, unknown>) =>
  ['ready', 'error', 'timeout'].includes(String(body.status));
