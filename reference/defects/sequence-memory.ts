/**
 * What the sequence-only defect switches (registry.ts, "sequences") remember between requests: the
 * takes deleted through the API, each customer's last generation body, the depth of each refresh
 * chain, in this process. Real servers keep such state in caches and counters; a bug there shows only
 * after a particular sequence of calls, never in one fixed scenario. Used only when a switch is on.
 */
import { createHash } from 'node:crypto';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Take ids deleted through DELETE /v1/speak/takes/{id}, with their owner. */
export const deletedTakes = new Map<string, string>();

/** Per user: the last single TakeGenerate body (canonical JSON) and the take it made. */
export const lastGeneration = new Map<string, { body: string; takeId: string }>();

/** Per refresh token (hashed): how many refreshes made it (0: a login's). */
const chainDepth = new Map<string, number>();

export function rememberChain(refreshToken: string, depth: number): void {
  chainDepth.set(sha(refreshToken), depth);
}

export function depthOf(refreshToken: string): number {
  return chainDepth.get(sha(refreshToken)) ?? 0;
}

/** Per voice: its name and description before its last update (the stale cache of the voice list). */
export const voiceBeforeUpdate = new Map<string, { name: unknown; description: unknown }>();

/** Take ids deleted through the API and when (defect list-stale-after-delete: the snapshot's time). */
export const takeDeletedMs = new Map<string, number>();
