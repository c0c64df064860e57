/**
 * Identifiers the service assigns: a kind prefix and 80 random bits (unguessable, URL-safe); with
 * latitude ids-uuid plain random UUIDs ("Assigned by the service": the style is not shown).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { latitude } from '../latitude/index.ts';

export function newId(prefix: 'tk' | 'vc' | 'us'): string {
  if (latitude.has('ids-uuid') && prefix !== 'us') return randomUUID();
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
