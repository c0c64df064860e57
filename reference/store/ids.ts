/** Identifiers the service assigns: a kind prefix and 80 random bits (unguessable, URL-safe). */
import { randomBytes } from 'node:crypto';

export function newId(prefix: 'tk' | 'vc' | 'us'): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
