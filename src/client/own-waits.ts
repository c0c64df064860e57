/**
 * The time a test's own requests waited because the server asked them to (a 503's Retry-After, a
 * 429 of a route throttled alone: ./back-pressure.ts), counted as wall time in which at least one of
 * them was waiting, so that requests waiting side by side count once. A test's bound
 * (src/harness/test-bound.ts) is extended by it, as by the run-wide holds of a 429: back-pressure is
 * never a verdict, and a test the server slowed down by shedding load must not be left unjudged
 * for it. The account follows the test's async context (AsyncLocalStorage), through every request
 * the test's body makes; an account opened inside another also counts for the outer one. Work the
 * test did not start (a scenario prefetched in a hook, a fixture another test started) is in no
 * account of the test's: its waits extend no bound.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class OwnWaits {
  private waiting = 0;
  private since = 0;
  private totalMs = 0;

  constructor(
    private readonly outer: OwnWaits | undefined = currentOwnWaits(),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A request of this account starts waiting. */
  begin(): void {
    if (this.waiting++ === 0) this.since = this.now();
    this.outer?.begin();
  }

  /** That request's wait is over. */
  end(): void {
    if (--this.waiting === 0) this.totalMs += this.now() - this.since;
    this.outer?.end();
  }

  /** Wall time so far in which at least one of the account's requests waited, ms. */
  ms(): number {
    return this.totalMs + (this.waiting > 0 ? this.now() - this.since : 0);
  }
}

const accounts = new AsyncLocalStorage<OwnWaits>();

/** Runs `body` with `waits` as the account its requests' waits are counted in. */
export function withOwnWaits<T>(waits: OwnWaits, body: () => T): T {
  return accounts.run(waits, body);
}

/** The account of the code running now; undefined outside any. */
export function currentOwnWaits(): OwnWaits | undefined {
  return accounts.getStore();
}

/** Waits `ms` on the server's behalf: counted in the current account while it lasts. */
export async function waitAsAsked(ms: number): Promise<void> {
  const account = currentOwnWaits();
  account?.begin();
  try {
    await new Promise((resolve) => setTimeout(resolve, ms));
  } finally {
    account?.end();
  }
}
