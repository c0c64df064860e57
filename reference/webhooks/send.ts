/**
 * One webhook call: POST the item's JSON body, bounded by a timeout, redirects not followed (a
 * redirect could lead past the target policy). Never throws: the outcome is returned for the
 * outbox to record.
 */
import { request } from 'undici';
import { defects } from '../defects/index.ts';

export interface SendOutcome {
  /** HTTP status of the answer; null when there was none (refused, reset, timed out). */
  statusCode: number | null;
  /** Why there was no answer, for the delivery's record. */
  error: string | null;
  startedMs: number;
  ms: number;
}

export async function sendWebhook(
  url: string,
  body: string,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<SendOutcome> {
  const startedMs = Date.now();
  try {
    const response = await request(url, {
      method: 'POST',
      body,
      headers: {
        // Defect webhook-text-plain: fetch's default for a string body, the JSON itself unchanged.
        'content-type': defects.has('webhook-text-plain') ? 'text/plain;charset=UTF-8' : 'application/json',
        'user-agent': 'speakcheck-reference-webhooks/1',
      },
      signal: stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    // The answer's body is not used; drain it so the connection can be reused.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return { statusCode: response.statusCode, error: null, startedMs, ms: Date.now() - startedMs };
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    const reason =
      name === 'TimeoutError' || name === 'AbortError'
        ? `no answer within ${timeoutMs} ms`
        : error instanceof Error
          ? `${(error as Error & { code?: string }).code ?? name}: ${error.message}`
          : String(error);
    return { statusCode: null, error: reason, startedMs, ms: Date.now() - startedMs };
  }
}
