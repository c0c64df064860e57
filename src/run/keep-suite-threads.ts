/**
 * The suites' threads are not replaced at the end of the run (issue 52).
 *
 * With `isolate: false` vitest's threads pool calls tinypool's `recycleWorkers()` once every file has
 * been handed to a thread, so that files of the next environment group start in fresh threads. Tinypool
 * then ends each thread as it finishes its last file and, to keep `minThreads`, starts a new one in
 * its place: each loads vitest's worker runtime (~0.5 CPU-s on the 2-core machine, three per run)
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
