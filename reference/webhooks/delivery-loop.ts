/**
 * The delivery loop: a timer-driven loop in the API process, apart from synthesis, that claims
 * due deliveries from the outbox and makes the calls, a bounded number at once. A slow or dead
 * sink occupies one slot for at most the call timeout; it never blocks the event tail or a worker.
 */

import { defects } from '../defects/index.ts';
import { latitude } from '../latitude/index.ts';
import type { Delivery, WebhookOutbox } from './outbox-store.ts';
import { isDelivered, isRetryable, type RetryPolicy, retryDelayMs } from './retry-policy.ts';
import { sendWebhook } from './send.ts';

/** Defect webhook-done-redelivered: the delay before the done call goes out a second time. */
const REDELIVERY_DELAY_MS = 3_000;

export interface DeliveryLoopOptions {
  policy: RetryPolicy;
  /** Calls in flight at most. */
  concurrency: number;
  log?: (message: string) => void;
}

export class DeliveryLoop {
  readonly #outbox: WebhookOutbox;
  readonly #options: DeliveryLoopOptions;
  readonly #inFlight = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Aborts the calls in flight when the stack stops; their attempts stay counted and leased. */
  readonly #stopping = new AbortController();

  constructor(outbox: WebhookOutbox, options: DeliveryLoopOptions) {
    this.#outbox = outbox;
    this.#options = options;
  }

  /** Looks for due deliveries now (after new ones were added, or a call finished). */
  wake(): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    setImmediate(() => this.#tick());
  }

  /** Stops claiming, cuts the calls in flight short and waits for them to settle. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#stopping.abort();
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  #tick(): void {
    if (this.#closed) return;
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free > 0) {
      const leaseMs = this.#options.policy.callTimeoutMs + 1_000;
      const due = this.#outbox.claimDue(Date.now(), free, leaseMs, new Set(this.#inFlight.keys()));
      for (const delivery of due) {
        const call = this.#deliver(delivery).finally(() => {
          this.#inFlight.delete(delivery.id);
          this.wake();
        });
        this.#inFlight.set(delivery.id, call);
      }
    }
    this.#scheduleNext();
  }

  #scheduleNext(): void {
    if (this.#closed) return;
    const nextDue = this.#outbox.nextDueMs();
    if (nextDue === null) return; // nothing pending: wake() is called when something is added
    // Leased deliveries look due at their lease end; the in-flight call's `finally` wakes earlier.
    const delay = Math.max(10, Math.min(nextDue - Date.now(), 60_000));
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#tick();
    }, delay);
    this.#timer.unref();
  }

  async #deliver(delivery: Delivery): Promise<void> {
    const { policy, log } = this.#options;
    const outcome = await sendWebhook(
      delivery.url,
      delivery.body,
      policy.callTimeoutMs,
      this.#stopping.signal,
    );
    if (this.#closed && outcome.statusCode === null) {
      // Cut short by the stack stopping: the attempt stays counted and the lease makes it due again.
      return;
    }
    const base = { attemptMs: outcome.startedMs, statusCode: outcome.statusCode, error: outcome.error };
    const what = `webhook ${delivery.hook} of ${delivery.kind} ${delivery.itemId} (attempt ${delivery.attempts})`;
    if (isDelivered(outcome.statusCode)) {
      if (delivery.hook === 'done' && defects.has('webhook-done-twice')) {
        await sendWebhook(delivery.url, delivery.body, policy.callTimeoutMs, this.#stopping.signal);
      }
      if (delivery.hook === 'done' && defects.has('webhook-done-redelivered')) {
        // As an at-least-once queue whose acknowledgement came too late: the call goes out again.
        setTimeout(() => {
          void sendWebhook(delivery.url, delivery.body, policy.callTimeoutMs, this.#stopping.signal);
        }, REDELIVERY_DELAY_MS).unref();
      }
      this.#outbox.recordAttempt(delivery.id, {
        ...base,
        state: 'delivered',
        nextAttemptMs: outcome.startedMs,
      });
      return;
    }
    const problem = outcome.error ?? `HTTP ${outcome.statusCode}`;
    // Latitude webhooks-late-no-retry: "Delivery details of webhooks (retries, ...): not shown."
    const retries = !latitude.has('webhooks-late-no-retry');
    if (retries && isRetryable(outcome.statusCode) && delivery.attempts < policy.maxAttempts) {
      const nextAttemptMs = Date.now() + retryDelayMs(policy, delivery.attempts);
      this.#outbox.recordAttempt(delivery.id, { ...base, state: 'pending', nextAttemptMs });
      log?.(`${what}: ${problem}; retry in ${nextAttemptMs - Date.now()} ms`);
      return;
    }
    this.#outbox.recordAttempt(delivery.id, { ...base, state: 'failed', nextAttemptMs: Date.now() });
    log?.(`${what}: ${problem}; given up`);
  }
}
