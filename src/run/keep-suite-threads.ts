/**
 * The suites' threads are not replaced at the end of the run (issue 52).
 *
 * With `isolate: false` vitest's threads pool (vitest 3.2) calls tinypool's `recycleWorkers()` once
 * every file of an environment group has run, so that the next group starts in fresh threads.
 * Tinypool ends the idle threads and, to keep `minThreads` (the run sets it to its thread count),
 * starts as many new ones: each loads vitest's worker runtime (~0.4 CPU-s on the 2-core machine)
 * only to be ended by the pool's close a moment later (`speakcheck bench --profile`: the threads that
 * start in the run's last second). The suites are one project in one environment (node), so there
 * is never a next group to isolate: recycling is a no-op for the run's pool.
 *
 * Tinypool is vitest's dependency, resolved here as vitest resolves it, so the prototype patched is
 * the one its pool is made from.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

interface RecyclingPool {
  prototype: { recycleWorkers(options?: unknown): Promise<void> };
}

let kept = false;

export async function keepSuiteThreads(): Promise<void> {
  if (kept) return;
  const fromVitest = createRequire(createRequire(import.meta.url).resolve('vitest/package.json'));
  const tinypool = (await import(pathToFileURL(fromVitest.resolve('tinypool')).href)) as {
    Tinypool?: RecyclingPool;
  };
  if (typeof tinypool.Tinypool?.prototype.recycleWorkers !== 'function') return; // another tinypool: leave it be
  tinypool.Tinypool.prototype.recycleWorkers = async () => undefined;
  kept = true;
}
