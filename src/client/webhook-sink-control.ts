/**
 * The run's webhook sink, shared by every suite file. The sink (./webhook-sink.ts) runs in the
 * suites' global setup, in the main process that lives for the whole run; the suite files, in
 * worker processes, reach it through a small control API on a loopback port of its own (never on the
 * sink's listener, which a remote server may reach), under a random secret.
 *
 * Why: some webhook requirements need a window after a call (no second done call within 6 s of the
 * first, a retry of a call answered 500). The file that makes the call files a *settle entry* (the
 * token, the requirement, the window, starting when the call arrived) and goes on;
 * suites/webhooks-settled.spec.ts, which the suites' sequencer runs last, judges every entry at the
 * end of the run. The window then overlaps the rest of the run instead of holding a worker idle.
 *
 * Control API (JSON; every path under /{secret}):
 *   POST /tokens {behaviour}                → {token}
 *   GET  /calls/{token}?after=N&waitMs=M     → {calls}: answered once there are more than N calls, or after M ms
 *   POST /settle {entry}                     → 204
 *   POST /producers/done                     → 204: a file that files entries has finished
 *   GET  /settle?waitMs=M                    → {entries, complete}: complete once every such file finished
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ItemKind } from '../../schemas/item-kind.ts';
import type { RequirementId } from '../requirements/index.ts';
import {
  type SinkBehaviour,
  type SinkToken,
  statusOf,
  type WebhookCall,
  type WebhookSink,
} from './webhook-sink.ts';

/** What must hold for a token's calls of one hook once its window has passed. */
export type SettleExpectation =
  /** Exactly one call. */
  | 'once'
  /** At least two calls: the first was answered 500 and retried. */
  | 'retried'
  /** The bodies' statuses in status order (src/checks/status.ts). */
  | 'ordered'
  /** Every call a POST with a JSON body. */
  | 'posted-json'
  /**
   * At least one call, by the time the run judges: a done call that had not come when its file
   * stopped waiting (the contract gives it no time: suites/support/webhook-settle.ts).
   */
  | 'called'
  /**
   * A status call for each of the entry's `awaited` statuses, by the time the run judges: statuses
   * seen (polled, streamed) that no status call had reported when its file stopped waiting (the
   * contract gives the calls no time either).
   */
  | 'statuses-called';

/** What a `statuses-called` entry waits for (plain JSON, as the sink keeps every entry). */
export interface AwaitedStatuses {
  /** The statuses seen that no status call had reported yet, in the order seen. */
  statuses: string[];
  /** Who saw them, for the message: `polling saw`, `the websocket reported`. */
  seenBy: string;
  /**
   * Set when what was seen is not the state the requirement speaks of (no take was polled in
   * progress): the entry can fail the requirement, not pass it; held, it is not observed, with this
   * reason and what would judge it.
   */
  heldNotObserved?: { reason: string; wouldJudge: string };
}

export interface SettleEntry {
  /** The requirement id the verdict is for. */
  requirement: RequirementId;
  /** What the calls are about, for messages: `take tk_…`, `voice vc_…`. */
  subject: string;
  token: string;
  /** The hook whose calls are judged (`done`, `status`), or `*` for every call of the token. */
  hook: string;
  expect: SettleExpectation;
  /** The window starts when this call arrived (ms since the epoch) and lasts windowMs. */
  fromMs: number;
  windowMs: number;
  /** Where the window came from, for the message (e.g. `SPEAKCHECK_WEBHOOK_RETRY_WAIT_MS`). */
  why?: string;
  /** The statuses a `statuses-called` entry waits for (set on those only). */
  awaited?: AwaitedStatuses;
  /**
   * The item the window speaks of, handed to the run: deleted at the run's end, after the judge
   * (src/harness/global-setup.ts), not by the file that filed it, whose end may fall inside the
   * window (a server may drop the calls still due for a deleted item: a retry, a duplicate).
   */
  item?: MadeItem;
}

/** An item the run made: what its cleanups delete (src/harness/cleanup.ts). */
export interface MadeItem {
  kind: ItemKind;
  id: string;
}

/** What the global setup hands to the workers (JSON through provide/inject). */
export type ProvidedWebhookSink =
  | { ok: true; controlUrl: string; publicUrl: string }
  /** `broken`: the sink could not be started (a harness or setup fault, not "not applicable"). */
  | { ok: false; reason: string; broken?: boolean };

/** How long one long-poll of the control API waits at most before answering what it has. */
const LONG_POLL_MS = 5_000;

/** Main-process side: serves the control API for one sink. */
export class SinkControl {
  readonly #server: Server;
  readonly #sink: WebhookSink;
  readonly #secret = randomBytes(18).toString('base64url');
  readonly #entries: SettleEntry[] = [];
  readonly #changes = new EventEmitter();
  #producersLeft: number;
  #url = '';

  private constructor(sink: WebhookSink, producers: number) {
    this.#sink = sink;
    this.#producersLeft = producers;
    this.#server = createServer((req, res) => {
      this.#route(req, res).catch((error: unknown) => reply(res, 500, { detail: String(error) }));
    });
    this.#changes.setMaxListeners(0);
    sink.onCall(() => this.#changes.emit('change'));
  }

  /** The items the entries filed so far were handed to the run with, each once. */
  handedOver(): MadeItem[] {
    const items = new Map<string, MadeItem>();
    for (const { item } of this.#entries) if (item) items.set(`${item.kind} ${item.id}`, item);
    return [...items.values()];
  }

  /** `producers`: how many suite files of this run file settle entries (the judge waits for them). */
  static async start(sink: WebhookSink, producers: number): Promise<SinkControl> {
    const control = new SinkControl(sink, producers);
    await new Promise<void>((resolve, reject) => {
      control.#server.once('error', reject);
      control.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = control.#server.address() as AddressInfo;
    control.#url = `http://127.0.0.1:${port}/${control.#secret}`;
    return control;
  }

  /** The control API's base URL (secret included): for the workers only. */
  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    this.#changes.emit('change');
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://control');
    const [secret, ...rest] = url.pathname.split('/').filter(Boolean);
    if (secret !== this.#secret) return reply(res, 404, { detail: 'not found' });
    const route = `${req.method} ${rest[0] ?? ''}`;
    const waitMs = Math.min(LONG_POLL_MS, Math.max(0, Number(url.searchParams.get('waitMs') ?? 0) || 0));
    if (route === 'POST tokens') {
      const body = (await readJson(req)) as { behaviour?: SinkBehaviour };
      return reply(res, 200, { token: this.#sink.newToken(body.behaviour ?? {}).token });
    }
    if (route === 'GET calls' && rest[1]) {
      const token = decodeURIComponent(rest[1]);
      const after = Number(url.searchParams.get('after') ?? 0) || 0;
      await this.#until(() => this.#sink.calls(token).length > after, waitMs);
      return reply(res, 200, { calls: this.#sink.calls(token) });
    }
    if (route === 'POST settle') {
      this.#entries.push((await readJson(req)) as SettleEntry);
      return reply(res, 204);
    }
    if (route === 'POST producers') {
      this.#producersLeft--;
      this.#changes.emit('change');
      return reply(res, 204);
    }
    if (route === 'GET settle') {
      await this.#until(() => this.#producersLeft <= 0, waitMs);
      return reply(res, 200, { entries: this.#entries, complete: this.#producersLeft <= 0 });
    }
    return reply(res, 404, { detail: `no route ${route}` });
  }

  /** Resolves when `ready()` holds or after `waitMs`, whichever comes first. */
  #until(ready: () => boolean, waitMs: number): Promise<void> {
    if (ready() || waitMs === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#changes.off('change', check);
        resolve();
      };
      const check = () => {
        if (ready()) done();
      };
      const timer = setTimeout(done, waitMs);
      this.#changes.on('change', check);
    });
  }
}

/**
 * Worker side: the run's sink as the suites use it. Waits are event driven (long polls) and always
 * bounded, like WebhookSink's own.
 */
export class RemoteWebhookSink {
  constructor(
    private readonly controlUrl: string,
    /** The base URL the server under test is given. */
    readonly publicUrl: string,
  ) {}

  /** A fresh token with its behaviour (answer 500 first, answer slowly). */
  async newToken(behaviour: SinkBehaviour = {}): Promise<SinkToken> {
    const { token } = (await this.#request('POST', '/tokens', { behaviour })) as { token: string };
    return { token, url: (hook) => `${this.publicUrl}/hooks/${token}/${encodeURIComponent(hook)}` };
  }

  /** The calls received so far for a token, in arrival order. */
  async calls(token: string): Promise<WebhookCall[]> {
    return this.#calls(token, 0, 0);
  }

  /**
   * Resolves with the token's calls once `predicate` holds for them; rejects after `timeoutMs`
   * with a message that lists what did arrive, or when `signal` aborts (the caller stopped waiting).
   */
  async waitForCalls(
    token: string,
    predicate: (calls: WebhookCall[]) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<WebhookCall[]> {
    const deadline = Date.now() + timeoutMs;
    let calls = await this.#calls(token, 0, 0, signal);
    for (;;) {
      if (predicate(calls)) return calls;
      signal?.throwIfAborted();
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = calls.map((c) => `${c.hook}:${statusOf(c.json)}`).join(', ') || 'none';
        throw new Error(
          `webhook sink: the expected calls did not arrive within ${timeoutMs} ms (arrived: ${seen})`,
        );
      }
      calls = await this.#calls(token, calls.length, left, signal);
    }
  }

  /** Files an entry for the end-of-run judge (suites/webhooks-settled.spec.ts). */
  async settleLater(entry: SettleEntry): Promise<void> {
    await this.#request('POST', '/settle', entry);
  }

  /** This file has filed all its entries. */
  async producerDone(): Promise<void> {
    await this.#request('POST', '/producers/done');
  }

  /** Every entry, once every file that files them has finished (or `boundMs` passed: complete false). */
  async settleEntries(boundMs: number): Promise<{ entries: SettleEntry[]; complete: boolean }> {
    const deadline = Date.now() + boundMs;
    for (;;) {
      const left = Math.max(0, deadline - Date.now());
      const answer = (await this.#request('GET', `/settle?waitMs=${left}`)) as {
        entries: SettleEntry[];
        complete: boolean;
      };
      if (answer.complete || left === 0) return answer;
    }
  }

  async #calls(token: string, after: number, waitMs: number, signal?: AbortSignal): Promise<WebhookCall[]> {
    const path = `/calls/${encodeURIComponent(token)}?after=${after}&waitMs=${Math.ceil(waitMs)}`;
    return ((await this.#request('GET', path, undefined, signal)) as { calls: WebhookCall[] }).calls;
  }

  async #request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const bound = AbortSignal.timeout(LONG_POLL_MS + 10_000);
    const response = await fetch(`${this.controlUrl}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: signal ? AbortSignal.any([signal, bound]) : bound,
    });
    if (!response.ok) {
      throw new Error(`webhook sink control: ${method} ${path.split('?')[0]} answered ${response.status}`);
    }
    return response.status === 204 ? undefined : response.json();
  }
}

function reply(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}
