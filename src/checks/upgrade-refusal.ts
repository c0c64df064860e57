/**
 * What became of a websocket upgrade the contract says must not open a connection (an altered or
 * expired URL: Authentication 9, "The websocket connection is authorised by the secret inside the
 * websocket URL"; Events, "The URL from the websocket address endpoint expires after 1 hour").
 *
 * Refused means not upgraded. RFC 6455 §4.2.2 lets a server (or a router in front of it) refuse an
 * upgrade with any answer but 101, and the contract does not show which status a refusal carries;
 * a router that cannot place the URL answers 502, or closes the connection without an answer. So a
 * refusal is any non-101 answer or a connection the server took and closed before answering; its
 * status is an observation, never the verdict. What is not a refusal:
 * - 429/503 is back-pressure (src/client/back-pressure.ts): the client waits and tries again, and a
 *   503 that persists makes the route unavailable for the run (src/client/route-patience.ts);
 * - no connection at all (refused at TCP, no such host): the URL was never sent, so that says
 *   nothing about it — the server is down;
 * - no answer within the bound: neither accepted nor refused.
 * Pure: the suite connects (suites/support/upgrade.ts).
 */
import { isBackPressure } from '../client/back-pressure.ts';

/** The part of a WsClientError (src/client/ws-client-error.ts) the classifier reads. */
export interface UpgradeFailure {
  kind: string;
  message: string;
  status?: number | undefined;
  errno?: string | undefined;
}

export type UpgradeOutcome =
  /** 101: the connection opened. */
  | { kind: 'accepted' }
  /** A non-101 answer. */
  | { kind: 'refused'; status: number }
  /** The server took the connection and closed or reset it before any answer. */
  | { kind: 'closed'; detail: string }
  /** Back-pressure that reached the check (normally waited out inside the client). */
  | { kind: 'back-pressure'; status: number }
  /** No connection was made: the URL was never sent. */
  | { kind: 'unreachable'; detail: string }
  /** No answer within the bound. */
  | { kind: 'no-answer'; detail: string };

/** Socket errors of a connection the server accepted at TCP and then dropped without an HTTP answer. */
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** Socket errors where no connection was made at all. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/**
 * The outcome a failed upgrade shows, or undefined when the failure is none of them (a 101 with a
 * broken handshake, a certificate problem, anything else): the caller lets that error through.
 */
export function classifyUpgradeFailure(failure: UpgradeFailure): UpgradeOutcome | undefined {
  if (failure.kind === 'upgrade-refused' && failure.status !== undefined) {
    if (isBackPressure(failure.status)) return { kind: 'back-pressure', status: failure.status };
    if (failure.status === 101) return undefined;
    return { kind: 'refused', status: failure.status };
  }
  if (failure.kind === 'connect-timeout') return { kind: 'no-answer', detail: failure.message };
  if (failure.kind !== 'connect-error') return undefined;
  const errno = failure.errno ?? '';
  if (CLOSED_CODES.has(errno) || /socket hang up/i.test(failure.message))
    return { kind: 'closed', detail: failure.message };
  if (UNREACHABLE_CODES.has(errno)) return { kind: 'unreachable', detail: failure.message };
  return undefined;
}

/** Whether the outcome is a refusal of the URL (not upgraded, and the URL was heard). */
export function isRefusal(outcome: UpgradeOutcome): boolean {
  return outcome.kind === 'refused' || outcome.kind === 'closed';
}

/**
 * A refusal that a careful reader of the report may want to know about, though it is no failure: a
 * 5xx (the server or a router in front of it could not place the URL), or a connection closed
 * without an answer.
 */
export function isNotableRefusal(outcome: UpgradeOutcome): boolean {
  return (outcome.kind === 'refused' && outcome.status >= 500) || outcome.kind === 'closed';
}

/** The outcome in words, for an observation: "refused with HTTP 401", "… closed without an answer …". */
export function describeUpgradeOutcome(outcome: UpgradeOutcome): string {
  switch (outcome.kind) {
    case 'accepted':
      return 'accepted (101 Switching Protocols)';
    case 'refused':
      return outcome.status >= 500
        ? `not upgraded: HTTP ${outcome.status}, a server error (a router in front of the node may answer so; RFC 6455 §4.2.2 allows any non-101 refusal, and the contract shows no status for one)`
        : `refused with HTTP ${outcome.status}`;
    case 'closed':
      return `not upgraded: the connection was closed without an HTTP answer (${outcome.detail}); RFC 6455 §4.2.2 allows it, the contract shows no status for a refusal`;
    case 'back-pressure':
      return `back-pressure: HTTP ${outcome.status} (slow down and retry), no answer about the URL`;
    case 'unreachable':
      return `no connection could be made (${outcome.detail}): the URL was never sent`;
    case 'no-answer':
      return `no answer (${outcome.detail})`;
  }
}
