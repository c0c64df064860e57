/**
 * Latitude switches ws-router-node-param and ws-router-node-param-close (issue 39): the worker
 * websocket URLs pass through a router in front of the worker nodes, as on a hosted service. Besides
 * its secret, each URL carries the node it addresses as a query parameter (ROUTER_NODE_PARAM): an
 * opaque routing token, the node's address sealed with a fresh nonce (AES-256-GCM under a key
 * derived from the stack's websocket key), so two issued URLs differ in both parts, as a router that
 * does not show its upstream addresses would make them. The router reads the token before the node
 * sees the upgrade: a token that is missing, altered, or names a node that does not exist has no
 * upstream, and the router answers 502 Bad Gateway (ws-router-node-param) or closes the connection
 * without an answer (ws-router-node-param-close). Neither opens a connection; the secret is still
 * checked by the node (401) when the token is intact.
 *
 * The contract: "The URL addresses a worker node that holds the requested model." and "The websocket
 * connection is authorised by the secret inside the websocket URL and not by the bearer header.";
 * which status a refused upgrade carries is not shown (RFC 6455 §4.2.2: any non-101 answer refuses).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { latitude } from './active.ts';

export const ROUTER_NODE_PARAM = '__up';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Whether either form of the switch is on. */
export function routerOn(): boolean {
  return latitude.has('ws-router-node-param') || latitude.has('ws-router-node-param-close');
}

function routerKey(secretKey: string | Buffer): Buffer {
  return createHmac('sha256', secretKey).update('speak-router.v1').digest();
}

/** The routing token of the node at `nodeAddress` (host:port as the node announces it): hex, fresh each time. */
export function sealNode(secretKey: string | Buffer, nodeAddress: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', routerKey(secretKey), iv);
  const sealed = Buffer.concat([cipher.update(nodeAddress, 'utf8'), cipher.final()]);
  // Hex, not base64: every character altered changes the bytes (no spare bits at the end).
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('hex');
}

/** The node a routing token names, or undefined when it is not one the router issued (missing, altered). */
export function openNode(secretKey: string | Buffer, token: string | null): string | undefined {
  if (!token || !/^(?:[0-9a-f]{2})+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'hex');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', routerKey(secretKey), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** `url` (a worker URL as issued) with the routing token of the node at `nodeAddress`, when the switch is on. */
export function withRouterNode(url: URL, secretKey: string | Buffer, nodeAddress: string): void {
  if (routerOn()) url.searchParams.set(ROUTER_NODE_PARAM, sealNode(secretKey, nodeAddress));
}

/**
 * The router in front of one node (`nodeAddress()`: its host:port once it listens). Returns true
 * when it answered the upgrade itself (no upstream for the URL): 502, or the connection closed.
 */
export function routerGate(
  secretKey: string | Buffer,
  nodeAddress: () => string | undefined,
): (url: URL, socket: Duplex) => boolean {
  return (url, socket) => {
    if (!routerOn()) return false;
    const node = openNode(secretKey, url.searchParams.get(ROUTER_NODE_PARAM));
    if (node !== undefined && node === nodeAddress()) return false;
    if (latitude.has('ws-router-node-param-close')) {
      socket.destroy();
      return true;
    }
    const body = '<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>';
    socket.end(
      `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return true;
  };
}
