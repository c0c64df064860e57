/**
 * Who may touch an item: its owner only. Two switches meet here, so each hook is one call at the
 * exact spot: a defect switch that drops the owner check (the id alone finds the row: OWASP API1
 * Broken Object Level Authorization, what the harness's security area must catch), and the latitude
 * switch `foreign-items-403` (another user's item is refused with 403 instead of looking unknown,
 * 404: speak-v1.md leaves the error for unknown identifiers open).
 */
import { type DefectName, defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import { getItemRow, type ItemKind } from '../store/item-rows.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/**
 * The user whose item `id` the request reaches: the caller, or, with the defect switch `leak` on,
 * whoever owns it (a missing owner check). Under the latitude switch, another user's item is a 403.
 */
export function ownerFor(
  ctx: Pick<ApiContext, 'db'>,
  leak: DefectName,
  kind: ItemKind,
  userId: string,
  id: string,
): string {
  if (!defects.has(leak) && !latitude.has('foreign-items-403')) return userId;
  const owner = getItemRow<{ user_id: string }>(ctx.db, kind, id)?.user_id;
  if (owner === undefined || owner === userId) return userId;
  if (defects.has(leak)) return owner;
  throw new ApiError(403, `${kind} ${JSON.stringify(id)} is not yours`);
}
