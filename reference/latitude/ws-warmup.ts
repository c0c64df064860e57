/**
 * Latitude switch ws-upgrade-warmup-503: a worker node of a hosted service that is still warming up
 * (loading its model) refuses websocket upgrades with 503 and Retry-After, then accepts them. The
 * contract leaves other status codes open ("Other status codes, codes per condition, and the error
 * for unknown identifiers or invalid bodies: not shown."); a client has to treat the 503 as
 * back-pressure and try the upgrade again. Answered before the secret is looked at, as a load
 * balancer or a node not yet serving would.
 */
import type { Duplex } from 'node:stream';
import { latitude } from './active.ts';

/** Upgrades each worker node refuses before it is warm. */
export const WARMUP_REFUSALS = 3;
export const WARMUP_RETRY_AFTER_S = 1;
export const WARMUP_DETAIL = 'Worker node warming up, retry later';

/**
 * The gate of one worker node: `refused(socket)` answers 503 and returns true for the node's first
 * WARMUP_REFUSALS upgrades when the switch is on; false (do nothing) otherwise.
 */
export function warmupGate(refusals: number = WARMUP_REFUSALS): (socket: Duplex) => boolean {
  let seen = 0;
  return (socket) => {
    if (!latitude.has('ws-upgrade-warmup-503') || seen >= refusals) return false;
    seen += 1;
    const body = JSON.stringify({ detail: WARMUP_DETAIL });
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: ${WARMUP_RETRY_AFTER_S}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return true;
  };
}
