/**
 * Websocket address (speak-v1.md Endpoints: Websocket address; wire-facts.md: the SDK form).
 *   GET /v1/speak/websocket?model=M   → {"websocket_url": ...}
 *   GET /v1/speak/websocket/{model}   → {"worker_websocket_url": ...}
 * Both sit behind the app's bearer guard (request.userId). The URL addresses a live worker that holds
 * M (round robin among them) and carries a secret (HMAC with expiry: the stack's websocket-URL
 * lifetime, 1 hour by default) naming the caller and the model; it is not the access token.
 * Missing model → 422, unknown model → 404, no live worker holding it → 503, each with `detail`.
 *
 * Workers announce their endpoint over IPC (worker/websocket/index.ts); this plugin listens to the
 * worker pool's messages and asks every worker to announce again when it starts, so the order in
 * which the pool and the app start does not matter.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defects } from '../../defects/index.ts';
import { latitude } from '../../latitude/index.ts';
import { withRouterNode } from '../../latitude/ws-router.ts';
import { findModel, MODELS } from '../../models/catalogue.ts';
import { registeredWorkers } from '../../worker/registry.ts';
import { ANNOUNCE_REQUEST, LISTENING } from '../../worker/websocket/index.ts';
import { createWebsocketSecret, websocketSecretKey } from '../../worker/websocket/secret.ts';
import { reachableUrl } from '../client-host.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { AUTH, error, INVALID, json, MALFORMED, MODEL_NAME_PARAMETER, ref } from '../openapi-parts.ts';
import { stringParams } from '../route-schema.ts';

const UNKNOWN_MODEL = { '404': error('Unknown model') };
const NO_WORKER = { '503': error('No live worker holds the model yet; try again shortly') };

/** The part of the worker pool this plugin uses. */
export interface WorkerMessages {
  on(event: 'message', listener: (workerId: string, message: unknown) => void): unknown;
  broadcast(message: { type: string } & Record<string, unknown>): void;
}

export interface WebsocketAddressOptions {
  ctx: ApiContext;
  workers: WorkerMessages;
}

interface Endpoint {
  url: string;
  models: string[];
}

export async function websocketAddressPlugin(
  app: FastifyInstance,
  o: WebsocketAddressOptions,
): Promise<void> {
  const { ctx } = o;
  const key = websocketSecretKey(ctx.db);
  const endpoints = new Map<string, Endpoint>();
  let turn = 0;

  o.workers.on('message', (workerId, message) => {
    const m = message as { type?: unknown; url?: unknown; models?: unknown } | undefined;
    if (m?.type === LISTENING && typeof m.url === 'string' && Array.isArray(m.models)) {
      endpoints.set(workerId, { url: m.url, models: m.models.map(String) });
    }
  });
  o.workers.broadcast({ type: ANNOUNCE_REQUEST });

  function workerUrlFor(model: string): string | undefined {
    const alive = new Set(
      ctx
        .workers()
        .filter((w) => w.alive)
        .map((w) => w.id),
    );
    const holding = [...endpoints.entries()]
      .filter(([id, e]) => alive.has(id) && e.models.includes(model))
      .map(([, e]) => e.url);
    // Standalone workers (own containers) register in the shared database instead of over IPC.
    for (const w of registeredWorkers(ctx.db)) {
      if (w.alive && w.websocketUrl && w.models.includes(model)) holding.push(w.websocketUrl);
    }
    if (holding.length === 0) return undefined;
    turn = (turn + 1) % holding.length;
    return holding[turn];
  }

  function address(request: FastifyRequest, requested: string | undefined): string {
    if (requested === undefined || requested === '') {
      throw new ApiError(422, 'query/model: is required (a model name from GET /v1/speak/models)');
    }
    const found = findModel(requested);
    if (!found) throw new ApiError(404, `model ${JSON.stringify(requested)} not found`);
    // Defect ws-url-ignores-model: every address is for the first model, whatever was asked for.
    const model = defects.has('ws-url-ignores-model') ? (MODELS[0] ?? found) : found;
    const base = workerUrlFor(model.name);
    if (!base)
      throw new ApiError(503, `no worker holding model ${model.name} is available; try again shortly`);
    const { secret } = createWebsocketSecret(
      key,
      { userId: request.userId, model: model.name },
      ctx.options.websocketUrlTtlSeconds * 1000,
    );
    // The node as it announced itself, before its host is rewritten for the client.
    const node = new URL(base).host;
    // A worker listening on every interface is reached by the name the client used for the API.
    const url = reachableUrl(base, request.hostname);
    // Defect ws-url-without-secret: the bare worker URL, the same for every request.
    if (defects.has('ws-url-without-secret')) return url.toString();
    // Latitude ws-secret-in-path: the secret is the last path segment instead of a query parameter.
    if (latitude.has('ws-secret-in-path')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/${secret}`;
    else url.searchParams.set('secret', secret);
    // Latitude ws-router-node-param(-close): the URL also names its node for the router in front of it.
    withRouterNode(url, key, node);
    // Defect ws-url-carries-token: the caller's access token rides along in the URL, beside the secret.
    const bearer = request.headers.authorization?.replace(/^Bearer\s+/i, '');
    if (defects.has('ws-url-carries-token') && bearer) url.searchParams.set('token', bearer);
    return url.toString();
  }

  const byQuery = {
    operationId: 'getWebsocketUrl',
    tags: ['meta'],
    summary: 'Address of a worker websocket for a model',
    // Not `required` here: a missing model is answered by address() with its own 422 detail.
    querystring: { type: 'object', properties: { model: { type: 'string' } } },
    documented: { parameters: { model: { ...MODEL_NAME_PARAMETER, required: true } } },
    responses: {
      '200': json(ref('WebsocketUrl')),
      ...MALFORMED,
      ...AUTH,
      ...UNKNOWN_MODEL,
      ...INVALID,
      ...NO_WORKER,
    },
  };
  app.get<{ Querystring: { model?: string } }>(
    '/v1/speak/websocket',
    { schema: byQuery },
    async (request) => {
      const websocket_url = address(request, request.query.model);
      // Defect ws-url-http-scheme: the spec form answers the worker's address with http(s):// (the SDK form keeps ws://).
      if (!defects.has('ws-url-http-scheme')) return { websocket_url };
      return { websocket_url: websocket_url.replace(/^ws(s?):/, 'http$1:') };
    },
  );

  const byPath = {
    operationId: 'getWorkerWebsocketUrl',
    tags: ['meta'],
    summary: "Address of a worker websocket for a model (the SDK's form)",
    params: stringParams({ model: 'Model name' }),
    documented: { parameters: { model: MODEL_NAME_PARAMETER } },
    responses: {
      '200': json(ref('WorkerWebsocketUrl')),
      ...MALFORMED,
      ...AUTH,
      ...UNKNOWN_MODEL,
      ...NO_WORKER,
    },
  };
  app.get<{ Params: { model: string } }>(
    '/v1/speak/websocket/:model',
    { schema: byPath },
    async (request) => ({
      worker_websocket_url: address(request, request.params.model),
    }),
  );
}
