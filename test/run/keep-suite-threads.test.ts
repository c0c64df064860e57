import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { keepSuiteThreads } from '../../src/run/keep-suite-threads.ts';

/** Tinypool as vitest's pool imports it. */
async function vitestTinypool() {
  const fromVitest = createRequire(createRequire(import.meta.url).resolve('vitest/package.json'));
  return (await import(pathToFileURL(fromVitest.resolve('tinypool')).href)) as typeof import('tinypool');
}

test("after keepSuiteThreads, vitest's pool keeps its threads when asked to recycle them", async () => {
  const { Tinypool } = await vitestTinypool();
  const original = Tinypool.prototype.recycleWorkers;
  try {
    await keepSuiteThreads();
    expect(Tinypool.prototype.recycleWorkers).not.toBe(original);
    // A pool of one thread that ran a task: recycling would end that thread and start another.
    const pool = new Tinypool({
      filename: `data:text/javascript,${encodeURIComponent('export default () => process.pid')}`,
      minThreads: 1,
      maxThreads: 1,
    });
    await pool.run(undefined);
    const [before] = pool.threads;
    await pool.recycleWorkers();
    expect(pool.threads).toEqual([before]);
    await pool.destroy();
  } finally {
    Tinypool.prototype.recycleWorkers = original;
  }
});
