/**
 * The delivery retry policy of the reference stack (also described in reference/webhooks/README.md).
 *
 * - Each call has a 5 s timeout.
 * - Delivered: any 2xx answer.
 * - Retried: no answer (connection refused, reset, timeout), 5xx, 408 and 429.
 * - Not retried: other answers (3xx, since redirects are not followed, and 4xx): the sink has
 *   looked at the call and said no.
 * - At most 6 attempts per delivery (1 + 5 retries); the wait before retry n (n = 1..5) is
 *   base * 2^(n-1), capped: 1 s, 2 s, 4 s, 8 s, 16 s with the defaults, so a delivery is given up
 *   about 31 s (plus call time) after its first attempt. The clock keeps running across restarts:
 *   the attempt count and the next attempt's time are persisted with the delivery.
 * - Per item and hook, deliveries are sent strictly in event order: a later status call waits
 *   until the earlier one is delivered or given up.
 */
export interface RetryPolicy {
  /** Timeout of one call, in milliseconds. */
  readonly callTimeoutMs: number;
  /** Attempts per delivery, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  callTimeoutMs: 5_000,
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
};

/** Delay before the next attempt, after `attemptsMade` failed attempts (>= 1). */
export function retryDelayMs(policy: RetryPolicy, attemptsMade: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attemptsMade - 1));
}

/** Whether an HTTP answer (or none: null) is worth another attempt. */
export function isRetryable(statusCode: number | null): boolean {
  return statusCode === null || statusCode >= 500 || statusCode === 408 || statusCode === 429;
}

export function isDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}
