/**
 * Test helper: starts the reference stack as `node bin/speakcheck.js serve --port 0 ...` in a child
 * process (as a stranger would), parses the ready lines, logs in, and always stops it (SIGTERM, then
 * SIGKILL after a bound). Requests go over HTTP with fetch; redirects are never followed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/speakcheck.js', import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

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
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const fields = new Map<string, string>();
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    live.delete(child);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`serve printed no ready lines within ${readyTimeoutMs} ms:\n${output}`)),
        readyTimeoutMs,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        for (const line of output.split('\n')) {
          const match = /^(base_url|blob_url|email|password|token)=(.+)$/.exec(line.trim());
          if (match) fields.set(match[1]!, match[2]!);
        }
        const wantsToken = args.includes('--permanent-token');
        if (fields.has('base_url') && fields.has('password') && (!wantsToken || fields.has('token'))) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`serve exited (${code ?? signal}) before it was ready:\n${output}`));
      });
    });
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  const baseUrl = fields.get('base_url')!;
  const stack: Stack = {
    baseUrl,
    ...(fields.has('blob_url') ? { blobUrl: fields.get('blob_url')! } : {}),
    email: fields.get('email')!,
    password: fields.get('password')!,
    ...(fields.has('token') ? { permanentToken: fields.get('token')! } : {}),
    pid: child.pid!,
    output: () => output,
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
