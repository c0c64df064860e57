/**
 * `speakcheck serve --target container`, sent SIGTERM, stops its stack: none of its containers (the
 * API and both workers) is left 10 s after the signal. It used to log "SIGTERM: stopping the
 * containers" and die at once: testcontainers loads signal-exit, which re-raised the signal as soon
 * as serve's `once` handler had been used up (src/stack/target.ts). Skipped, with the reason
 * printed, only when no container runtime answers and none is required (test/support/required-tools.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { getContainerRuntimeClient } from 'testcontainers';
import { describe, expect, it } from 'vitest';
import { containerRuntimeProblem } from '../../src/stack/container.ts';
import { SPEAKCHECK_BIN } from '../../src/stack/embedded.ts';
import { launch, serveReady } from '../../src/stack/launcher.ts';
import { toolReady } from '../support/required-tools.ts';

const runtimeReady = toolReady('container', await containerRuntimeProblem());

/** The containers of the stack whose API listens on `port`: those sharing its data directory. */
async function stackContainers(port: string): Promise<{ ids: string[]; running: () => Promise<string[]> }> {
  const client = await getContainerRuntimeClient();
  const all = await client.container.list();
  const api = all.find((c) => c.Command.includes('serve') && c.Command.includes(`--port ${port}`));
  if (!api)
    throw new Error(`no API container listens on port ${port}: ${all.map((c) => c.Command).join('; ')}`);
  const data = api.Mounts.find((m) => m.Destination === '/data')?.Source;
  const ids = all.filter((c) => c.Mounts.some((m) => m.Source === data)).map((c) => c.Id);
  return {
    ids,
    // list() shows every container, stopped ones too: a removed container is gone from it.
    running: async () => (await client.container.list()).map((c) => c.Id).filter((id) => ids.includes(id)),
  };
}

describe.skipIf(!runtimeReady)('serve --target container', () => {
  it('stops and removes every container of its stack within 10 s of SIGTERM', async () => {
    const served = await launch({
      args: [SPEAKCHECK_BIN, 'serve', '--target', 'container'],
      what: 'serve --target container',
      ready: serveReady(),
      // A cold image build takes minutes; later starts reuse the image.
      readyTimeoutMs: 600_000,
    });
    let containers: Awaited<ReturnType<typeof stackContainers>> | undefined;
    try {
      const port = new URL(served.fields.get('base_url')!).port;
      containers = await stackContainers(port);
      expect(containers.ids, 'the API and two worker containers').toHaveLength(3);
      const signalled = Date.now();
      served.child.kill('SIGTERM');
      const exit = await Promise.race([served.exited, sleep(15_000).then(() => undefined)]);
      expect(exit, 'serve exits after SIGTERM').toEqual({ code: 0, signal: null });
      let left = await containers.running();
      while (left.length > 0 && Date.now() - signalled < 10_000) {
        await sleep(250);
        left = await containers.running();
      }
      expect(left, 'containers of the stack left 10 s after SIGTERM').toEqual([]);
    } finally {
      await served.stop();
      // A failed assertion leaves nothing behind either.
      const client = await getContainerRuntimeClient();
      for (const id of containers ? await containers.running() : []) {
        const container = client.container.getById(id);
        await client.container.stop(container, { timeout: 0 }).catch(() => {});
        await client.container.remove(container, { removeVolumes: true }).catch(() => {});
      }
    }
  }, 700_000);
});
