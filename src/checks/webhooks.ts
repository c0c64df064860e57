/**
 * Checks on webhook calls received by the harness's sink: a call's body against the item as GET
 * shows it, and the timelines (webhook vs polling) the report puts side by side.
 */
import { Finding, show } from './finding.ts';

/** A webhook field as a plain URL: the SDK's `{post_url, timestamp_ms, status_code}` and a URL string compare equal. */
function webhookUrlOf(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && 'post_url' in value)
    return (value as { post_url: unknown }).post_url;
  return value;
}

const WEBHOOK_FIELDS = ['status_webhook', 'done_webhook'];

/** The item with its webhook fields reduced to URLs (their last-call bookkeeping changes with each call). */
export function withoutWebhookBookkeeping(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const out: Record<string, unknown> = { ...(item as Record<string, unknown>) };
  for (const field of WEBHOOK_FIELDS) if (field in out) out[field] = webhookUrlOf(out[field]);
  if (out.example_take !== null && typeof out.example_take === 'object') {
    out.example_take = withoutWebhookBookkeeping(out.example_take);
  }
  return out;
}

/** The first place (JSON pointer) where two JSON values differ, or null when they are equal. */
export function firstDifference(
  a: unknown,
  b: unknown,
  pointer = '',
): { pointer: string; a: unknown; b: unknown } | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object')
    return { pointer: pointer || '/', a, b };
  if (Array.isArray(a) !== Array.isArray(b)) return { pointer: pointer || '/', a, b };
  const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
  for (const key of [...keys].sort()) {
    const diff = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    );
    if (diff) return diff;
  }
  return null;
}

/** Throws when a webhook body differs from the item as GET returned it (webhook bookkeeping aside). */
export function assertWebhookBodyMatchesGet(hookBody: unknown, fetched: unknown, what: string): void {
  const diff = firstDifference(withoutWebhookBookkeeping(hookBody), withoutWebhookBookkeeping(fetched));
  if (diff) {
    throw new Finding(
      `${what}: the webhook body differs from GET made right after at ${diff.pointer}: webhook ${show(diff.a)}, GET ${show(diff.b)}`,
      { where: `${what} ${diff.pointer}`, expected: diff.b, actual: diff.a },
    );
  }
}

export interface TimelineEntry {
  /** ms since the epoch */
  atMs: number;
  status: string;
}

/** `waiting +0 ms → started +310 ms → ready +2210 ms`, relative to `startMs`. */
export function formatTimeline(startMs: number, entries: readonly TimelineEntry[]): string {
  if (entries.length === 0) return '(none)';
  return entries.map((e) => `${e.status} +${e.atMs - startMs} ms`).join(' → ');
}

/** Polled observations reduced to the moments the status changed. */
export function statusChanges(entries: readonly TimelineEntry[]): TimelineEntry[] {
  return entries.filter((e, i) => i === 0 || e.status !== entries[i - 1]!.status);
}

/** What assertPostedJson needs of a call the sink received. */
interface ReceivedCall {
  method: string;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

/** A webhook call is an HTTP POST with a JSON body (WEBHOOK-POST-JSON). */
export function assertPostedJson(call: ReceivedCall, what: string): void {
  if (call.method !== 'POST') {
    throw new Finding(`${what} used ${call.method}, expected POST`, {
      expected: 'POST',
      actual: call.method,
    });
  }
  const type = call.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type) || call.json === undefined) {
    throw new Finding(`${what}: body is not JSON (content-type ${show(type)}, body ${show(call.text, 80)})`, {
      expected: 'application/json',
      actual: type,
    });
  }
}
