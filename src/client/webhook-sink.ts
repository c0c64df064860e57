/**
 * The harness's webhook sink: a node:http server that the server under test calls back.
 *
 * Each test asks for a token; its hook URLs are `{publicUrl}/hooks/{token}/{hook}` so every call is
 * matched to the test (and hook) that set it up, even when tests run side by side. The sink
 * records each call's arrival time, headers and body, and can be told, per token, to answer 500
 * to the first N calls or to answer slowly. Waits are event driven and always bounded.
 *
 * The sink listens on a configurable host and port (default 127.0.0.1, a free port). When the
 * server under test is remote it cannot call loopback: `publicUrl` (`--webhook-url`) is then the
 * address, reachable by the server, that leads to this listener (a tunnel or a published port).
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RUN_OPTIONS } from '../config/options.ts';
import { envValue } from '../config/resolve-options.ts';
import type { ListenAddress } from '../config/types.ts';

export interface WebhookCall {
  token: string;
  /** The last path segment: which hook of the test was called (e.g. `status`, `done`). */
  hook: string;
  /** Arrival order among this token's calls, from 1. */
  index: number;
  /** When the request's body had fully arrived (ms since the epoch). */
  receivedMs: number;
  method: string;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
  /** The status the sink answered with. */
  answeredStatus: number;
}

export interface SinkBehaviour {
  /** Answer 500 to this many first calls of the token (counting every hook). */
  failFirst?: number;
  /** Answer each call only after this many milliseconds. */
  delayMs?: number;
}

export interface SinkOptions {
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Port to listen on; default 0 (any free port). */
  port?: number;
  /** URL the server under test must call instead of the listening address (remote servers). */
  publicUrl?: string;
}

export interface SinkToken {
  token: string;
  /** The URL to give the server for one hook of this token. */
  url(hook: 'status' | 'done' | string): string;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export class WebhookSink {
  readonly #server: Server;
  readonly #publicUrl: string;
  readonly #listenUrl: string;
  readonly #calls = new Map<string, WebhookCall[]>();
  readonly #behaviour = new Map<string, SinkBehaviour>();
  readonly #strays: { path: string; receivedMs: number }[] = [];
  readonly #arrivals = new EventEmitter();
  readonly #slowAnswers = new Set<NodeJS.Timeout>();

  private constructor(server: Server, listenUrl: string, publicUrl: string) {
    this.#server = server;
    this.#listenUrl = listenUrl;
    this.#publicUrl = publicUrl.replace(/\/+$/, '');
    this.#arrivals.setMaxListeners(0);
  }

  static async start(options: SinkOptions = {}): Promise<WebhookSink> {
    const host = options.host ?? '127.0.0.1';
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const hostInUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const listenUrl = `http://${hostInUrl}:${address.port}`;
    const sink = new WebhookSink(server, listenUrl, options.publicUrl ?? listenUrl);
    server.on('request', (req, res) => sink.#onRequest(req, res));
    return sink;
  }

  /** Where the sink listens. */
  get listenUrl(): string {
    return this.#listenUrl;
  }

  /** The base URL the server under test is given. */
  get publicUrl(): string {
    return this.#publicUrl;
  }

  /**
   * A fresh token (for one test or one item) with its behaviour. `reuse` takes over a token handed
   * out by an earlier sink (a test that stops the sink and starts a new one on the same port).
   */
  newToken(behaviour: SinkBehaviour = {}, reuse?: string): SinkToken {
    const token = reuse ?? randomBytes(12).toString('base64url');
    this.#calls.set(token, []);
    this.#behaviour.set(token, { ...behaviour });
    return { token, url: (hook) => `${this.#publicUrl}/hooks/${token}/${encodeURIComponent(hook)}` };
  }

  /** Changes how the sink answers a token's later calls. */
  setBehaviour(token: string, behaviour: SinkBehaviour): void {
    this.#behaviour.set(token, { ...behaviour });
  }

  /** The calls received so far for a token (optionally one hook), in arrival order. */
  calls(token: string, hook?: string): WebhookCall[] {
    const all = this.#calls.get(token) ?? [];
    return hook === undefined ? [...all] : all.filter((c) => c.hook === hook);
  }

  /** Calls `listener` with the token of every call that arrives (the control API's long polls). */
  onCall(listener: (token: string) => void): void {
    this.#arrivals.on('call', listener);
  }

  /** Calls to paths that carried no known token. */
  strays(): { path: string; receivedMs: number }[] {
    return [...this.#strays];
  }

  /**
   * Resolves with the token's calls once `predicate` holds for them; rejects after `timeoutMs`
   * with a message that lists what did arrive.
   */
  waitForCalls(
    token: string,
    predicate: (calls: WebhookCall[]) => boolean,
    timeoutMs: number,
  ): Promise<WebhookCall[]> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const calls = this.calls(token);
        if (!predicate(calls)) return false;
        cleanup();
        resolve(calls);
        return true;
      };
      const onArrival = (arrivedFor: string) => {
        if (arrivedFor === token) check();
      };
      const timer = setTimeout(() => {
        cleanup();
        const calls = this.calls(token);
        const seen = calls.map((c) => `${c.hook}:${statusOf(c.json)}`).join(', ') || 'none';
        reject(
          new Error(
            `webhook sink: the expected calls did not arrive within ${timeoutMs} ms (arrived: ${seen})`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.#arrivals.off('call', onArrival);
      };
      this.#arrivals.on('call', onArrival);
      check();
    });
  }

  /** Stops listening and drops every connection, slow answers still pending included. */
  async close(): Promise<void> {
    for (const timer of this.#slowAnswers) clearTimeout(timer);
    this.#slowAnswers.clear();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const receivedMs = Date.now();
      const match = /\/hooks\/([A-Za-z0-9_-]+)\/([^/?]+)/.exec(req.url ?? ''); // any prefix a tunnel keeps
      const token = match?.[1];
      const calls = token === undefined ? undefined : this.#calls.get(token);
      if (!match || token === undefined || !calls) {
        this.#strays.push({ path: req.url ?? '', receivedMs });
        answer(res, 404, { detail: 'unknown webhook token' });
        return;
      }
      const behaviour = this.#behaviour.get(token) ?? {};
      const index = calls.length + 1;
      const status = index <= (behaviour.failFirst ?? 0) ? 500 : 200;
      const text = Buffer.concat(chunks).toString('utf8');
      calls.push({
        token,
        hook: decodeURIComponent(match[2] ?? ''),
        index,
        receivedMs,
        method: req.method ?? '',
        headers: flattenHeaders(req),
        text,
        json: parseJson(text),
        answeredStatus: status,
      });
      this.#arrivals.emit('call', token);
      const body = status === 500 ? { detail: 'told to fail' } : { ok: true };
      if (!behaviour.delayMs) {
        answer(res, status, body);
        return;
      }
      const timer = setTimeout(() => {
        this.#slowAnswers.delete(timer);
        answer(res, status, body);
      }, behaviour.delayMs);
      this.#slowAnswers.add(timer);
    });
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The `status` field of a call's body, for messages. */
export function statusOf(json: unknown): string {
  return json !== null && typeof json === 'object' && 'status' in json
    ? String((json as { status: unknown }).status)
    : '?';
}

export type SinkPlan = { reachable: true; options: SinkOptions } | { reachable: false; reason: string };

/**
 * Where the sink listens and whether the server under test can reach it. The listening address is
 * `--webhook-listen` (config.webhookListen, which resolveRunConfig takes from the flag, else from
 * SPEAK_WEBHOOK_LISTEN); a config not made by resolveRunConfig falls back to SPEAK_WEBHOOK_LISTEN.
 * - `--webhook-url` (config.webhookUrl) given: the server calls that URL; the sink listens on the
 *   listening address, by default 127.0.0.1 on the URL's port.
 * - Otherwise the sink listens on the listening address or 127.0.0.1 (free port) and is only
 *   reachable by a server on this machine: a server whose base url is not loopback cannot call it,
 *   and the webhook tests are skipped with that reason.
 */
export function planWebhookSink(
  config: { baseUrl: string; webhookUrl?: string; webhookListen?: ListenAddress },
  env: Record<string, string | undefined> = process.env,
): SinkPlan {
  const listen: Partial<ListenAddress> =
    config.webhookListen ?? envValue(RUN_OPTIONS.webhookListen, env) ?? {};
  if (config.webhookUrl) {
    const publicUrl = new URL(config.webhookUrl);
    const urlPort = publicUrl.port ? Number(publicUrl.port) : publicUrl.protocol === 'https:' ? 443 : 80;
    return {
      reachable: true,
      options: {
        host: listen.host ?? '127.0.0.1',
        port: listen.port ?? urlPort,
        publicUrl: config.webhookUrl,
      },
    };
  }
  const serverHost = new URL(config.baseUrl).hostname.replace(/^\[|\]$/g, '');
  const serverIsLocal = serverHost === 'localhost' || serverHost === '::1' || /^127\./.test(serverHost);
  if (!serverIsLocal) {
    return {
      reachable: false,
      reason: `the server (${serverHost}) is not on this machine and cannot reach the webhook sink: give --webhook-url (a URL it can call that leads to this sink)`,
    };
  }
  return { reachable: true, options: { host: listen.host ?? '127.0.0.1', port: listen.port ?? 0 } };
}
