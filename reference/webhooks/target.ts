/**
 * Where a webhook goes, and whether this server may send there.
 *
 * A hook arrives as speak-v1.md's URL string or as the SDK's `{"post_url": URL}` object
 * (wire-facts.md); both name one target. The reference stack is a test server, so loopback targets
 * are allowed; `--webhook-allow` narrows that: `any` (default: every http(s) URL), `loopback`
 * (only localhost / 127.0.0.0/8 / ::1, written literally, so no DNS answer can point elsewhere), or
 * `none` (deliveries are recorded as refused and never sent).
 */
import { isIP } from 'node:net';

export type WebhookAllow = 'any' | 'loopback' | 'none';
export const WEBHOOK_ALLOW_VALUES: readonly WebhookAllow[] = ['any', 'loopback', 'none'];

/** The URL a hook value names, or null when the value carries none (null, absent, malformed). */
export function webhookTargetUrl(hook: unknown): string | null {
  if (typeof hook === 'string') return hook.length > 0 ? hook : null;
  if (hook !== null && typeof hook === 'object' && 'post_url' in hook) {
    const postUrl = (hook as { post_url: unknown }).post_url;
    return typeof postUrl === 'string' && postUrl.length > 0 ? postUrl : null;
  }
  return null;
}

/** Why a target must not be called under `allow`, or null when it may be. */
export function webhookTargetRefusal(url: string, allow: WebhookAllow): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `scheme ${parsed.protocol} is not http(s)`;
  if (allow === 'none') return 'webhook delivery is disabled (--webhook-allow none)';
  if (allow === 'loopback' && !isLoopbackHost(parsed.hostname)) {
    return `host ${parsed.hostname} is not loopback (--webhook-allow loopback)`;
  }
  return null;
}

/** Whether a URL names a loopback host literally. */
export function isLoopbackTarget(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}
