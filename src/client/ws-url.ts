/**
 * The websocket URL: asked of the REST API in the contract's form (`GET /v1/speak/websocket?model=M`,
 * field `websocket_url`) or the vendor SDK's (`GET /v1/speak/websocket/{model}`, field
 * `worker_websocket_url`). The URL is a credential (Authentication 9): every part that could carry the
 * secret is registered with the redactor before it is returned.
 */
import { registerSecret } from '../evidence/redact.ts';
import { WsClientError } from './ws-client-error.ts';

export type WebsocketUrlForm = 'spec' | 'sdk';

/** The part of the kit's SpeakClient this module needs (kept structural so it stays a leaf). */
export interface UrlSource {
  get(
    path: string,
    o?: { query?: Record<string, string | number>; timeoutMs?: number },
  ): Promise<{ status: number; json: unknown; text: string }>;
}

/** The URL is a credential: make sure no part of it reaches a report. */
export function registerUrlSecrets(url: string): void {
  registerSecret(url);
  try {
    const u = new URL(url);
    for (const value of u.searchParams.values()) registerSecret(value);
    for (const segment of u.pathname.split('/')) if (segment.length >= 16) registerSecret(segment);
  } catch {
    // Not a URL: the whole string is registered above.
  }
}

export const WEBSOCKET_URL_PATHS: Record<
  WebsocketUrlForm,
  (model: string) => { path: string; field: string }
> = {
  // speak-v1.md, Endpoints: Websocket address.
  spec: () => ({ path: '/v1/speak/websocket', field: 'websocket_url' }),
  // wire-facts.md: the vendor SDK's form.
  sdk: (model) => ({
    path: `/v1/speak/websocket/${encodeURIComponent(model)}`,
    field: 'worker_websocket_url',
  }),
};

/** GET the worker URL for `model` in either form; throws a WsClientError saying what came back. */
export async function fetchWebsocketUrl(
  api: UrlSource,
  model: string,
  form: WebsocketUrlForm = 'spec',
  o: { timeoutMs?: number } = {},
): Promise<string> {
  const { path, field } = WEBSOCKET_URL_PATHS[form](model);
  const exchange = await api.get(path, {
    ...(form === 'spec' ? { query: { model } } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  const where = `GET ${path}${form === 'spec' ? `?model=${model}` : ''}`;
  if (exchange.status !== 200) {
    throw new WsClientError(
      'url-endpoint',
      `${where} answered ${exchange.status}, expected 200 with {"${field}": ...}: ${exchange.text.slice(0, 200)}`,
      exchange.status,
    );
  }
  const value = (exchange.json as Record<string, unknown> | undefined)?.[field];
  if (typeof value !== 'string' || value === '') {
    throw new WsClientError(
      'url-endpoint',
      `${where} answered 200 but "${field}" is ${value === undefined ? 'missing' : JSON.stringify(value)}`,
    );
  }
  registerUrlSecrets(value);
  return value;
}
