/**
 * The containerized reference stack's topology (src/stack/container.ts): an API container and two
 * worker containers (worker-studio holds studio; worker-polyglot holds polyglot and studio) sharing
 * one data dir. REST jobs spread over the workers (x-speak-worker, /_meta/workers); a websocket URL
 * addresses a worker holding the model; REST jobs go only to workers serving their model; a worker
 * stopped with SIGTERM gives its job back at once; a worker killed mid-take never leaves the take
 * stuck; an API restart loses nothing. Skipped, with the reason printed, only when no container runtime answers
 * and none is required (test/support/required-tools.ts)
 * (set one up with `eval "$(../shared/tools/container-runtime.sh)"`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../reference/store/db.ts';
import {
  type ContainerStack,
  containerRuntimeProblem,
  startContainerStack,
} from '../../src/stack/container.ts';
import { isDone, type Reply, request } from '../reference/stack.ts';
import { toolReady } from '../support/required-tools.ts';

type Json = Record<string, unknown>;
const runtimeReady = toolReady('container', await containerRuntimeProblem());

describe.skipIf(!runtimeReady)('container stack topology', () => {
  let stack: ContainerStack;
  let token = '';
  let voiceId = '';
  const api = (method: string, path: string, json?: unknown): Promise<Reply> =>
    request(stack.baseUrl, method, path, { token, json });
  const login = async () => {
    const reply = await request(stack.baseUrl, 'POST', '/auth/login', {
      json: { email: stack.email, password: stack.password },
    });
    expect(reply.status, reply.text).toBe(200);
    token = String((reply.json as Json).access_token);
  };
  /** Polls a take (every 100 ms) until `done`, bounded. */
  const pollTake = async (takeId: string, done: (b: Json, r: Reply) => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    const statuses: string[] = [];
    for (;;) {
      const reply = await api('GET', `/v1/speak/takes/${takeId}`);
      expect(reply.status, reply.text).toBe(200);
      const body = reply.json as Json;
      if (statuses.at(-1) !== body.status) statuses.push(String(body.status));
      if (done(body, reply)) return { body, reply, statuses };
      if (Date.now() > deadline)
        throw new Error(`take ${takeId} not done within ${timeoutMs} ms: ${statuses.join(' → ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const generate = async (text: string) => {
    const reply = await api('POST', '/v1/speak/takes/generate', { voice_id: voiceId, text });
    expect(reply.status, reply.text).toBeLessThan(300);
    return String((reply.json as Json).take_id);
  };

  beforeAll(async () => {
    // A cold image build takes minutes; later runs reuse the image (tagged by a hash of its inputs).
    stack = await startContainerStack({ onLog: (line) => console.log(line) });
    await login();
    const voice = await api('POST', '/v1/speak/voices/generate', {
      name: 'Box',
      gender: 'female',
      model: 'english-gb-v2.1',
    });
    expect(voice.status, voice.text).toBeLessThan(300);
    voiceId = String((voice.json as Json).voice_id);
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('lists both worker containers with their models', async () => {
    const reply = await api('GET', '/v1/speak/_meta/workers');
    const workers = reply.json as { id: string; alive: boolean; models: string[] }[];
    expect(workers.filter((w) => w.alive).map((w) => [w.id, w.models])).toEqual([
      ['worker-polyglot', ['theatrical-v2', 'english-gb-v2.1']],
      ['worker-studio', ['english-gb-v2.1']],
    ]);
  });

  it('spreads REST jobs over the workers (x-speak-worker)', async () => {
    // Worker containers learn of new jobs by a 1 s poll (no IPC wake across containers): a warm
    // worker can finish a whole batch before the other's next poll. So batches until both took a
    // job, at most five: a worker that never claims still fails.
    const sentences = 'One sentence here. Another one follows. And a third to make it longer.';
    const used = new Set<string | null>();
    for (let batch = 0; batch < 5 && used.size < 2; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 6 }, (_, i) => generate(`Take ${batch}.${i}. ${sentences}`)),
      );
      const done = await Promise.all(ids.map((id) => pollTake(id, isDone, 120_000)));
      expect(done.map((d) => d.body.status)).toEqual(ids.map(() => 'ready'));
      for (const d of done) used.add(d.reply.headers.get('x-speak-worker'));
    }
    expect([...used].sort()).toEqual(['worker-polyglot', 'worker-studio']);
  }, 300_000);

  it('hands out websocket URLs of a worker holding the model', async () => {
    const workers = (await api('GET', '/v1/speak/_meta/workers')).json as {
      id: string;
      websocket_url: string;
    }[];
    const portOf = (id: string) => new URL(workers.find((w) => w.id === id)!.websocket_url).port;
    for (let i = 0; i < 4; i++) {
      const polyglot = (await api('GET', '/v1/speak/websocket?model=theatrical-v2')).json as Json;
      expect(new URL(String(polyglot.websocket_url)).port).toBe(portOf('worker-polyglot'));
    }
    const studioPorts = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const studio = (await api('GET', '/v1/speak/websocket?model=english-gb-v2.1')).json as Json;
      studioPorts.add(new URL(String(studio.websocket_url)).port);
    }
    expect([...studioPorts].sort()).toEqual([portOf('worker-polyglot'), portOf('worker-studio')].sort());
  });

  it('REST jobs of a model go only to a worker serving it (polyglot: worker-polyglot alone)', async () => {
    const voice = await api('POST', '/v1/speak/voices/generate', {
      name: 'Poly',
      gender: 'male',
      model: 'theatrical-v2',
    });
    expect(voice.status, voice.text).toBeLessThan(300);
    const polyglotVoice = String((voice.json as Json).voice_id);
    // Several at once, so an idle worker-studio would take some if claims ignored the model.
    const ids = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const reply = await api('POST', '/v1/speak/takes/generate', {
          voice_id: polyglotVoice,
          text: `Take ${i}. A short one. And done.`,
        });
        expect(reply.status, reply.text).toBeLessThan(300);
        return String((reply.json as Json).take_id);
      }),
    );
    const done = await Promise.all(ids.map((id) => pollTake(id, isDone, 120_000)));
    expect(done.map((d) => [d.body.status, d.reply.headers.get('x-speak-worker')])).toEqual(
      ids.map(() => ['ready', 'worker-polyglot']),
    );
  }, 180_000);

  /** A take of `sentences` sentences that a worker has started (not yet done), and that worker. */
  async function longTakeUnderWay(sentences: number): Promise<{ takeId: string; worker: string }> {
    const text = Array.from(
      { length: sentences },
      (_, i) => `This is sentence number ${i + 1} of a long take.`,
    ).join(' ');
    const takeId = await generate(text);
    const started = await pollTake(
      takeId,
      (b, r) => b.status !== 'waiting' && !!r.headers.get('x-speak-worker'),
      60_000,
    );
    if (isDone(started.body))
      throw new Error(`the take finished before the worker could be stopped (${started.body.status})`);
    return { takeId, worker: started.reply.headers.get('x-speak-worker')! };
  }

  it('a worker stopped with SIGTERM mid-take exits promptly and gives its job back at once (no lease wait)', async () => {
    const { takeId, worker: first } = await longTakeUnderWay(30);
    const spec = stack.workers.find((w) => w.spec.id === first)!.spec;
    try {
      const signalled = Date.now();
      await stack.stopWorker(first, { timeoutS: 30 }); // SIGTERM; SIGKILL only after 30 s
      // The worker's own bound is 5 s; the rest is the runtime removing the container.
      expect(Date.now() - signalled).toBeLessThan(15_000);
      const db = openDatabase(stack.dataDir);
      try {
        const job = db.prepare('SELECT state, lease_owner FROM jobs WHERE take_id = ?').get(takeId) as {
          state: string;
          lease_owner: string | null;
        };
        // Queued again, or already claimed by the other worker: not held by the stopped one until its
        // lease (15 s) runs out.
        expect(job.lease_owner ?? '', JSON.stringify(job)).not.toMatch(new RegExp(`^${first}:`));
        expect(['queued', 'leased']).toContain(job.state);
      } finally {
        db.close();
      }
      const end = await pollTake(takeId, isDone, 90_000);
      expect(end.body.status).toBe('ready');
      expect(end.reply.headers.get('x-speak-worker')).not.toBe(first);
    } finally {
      await stack.startWorker(spec);
    }
  }, 240_000);

  it('a worker stopped mid-take: the take still ends (ready on the other worker, or error), never stuck', async () => {
    // 60 sentences (~3,000 characters): a warm worker speaks 14 in less than a poll's interval (CI
    // once saw the take ready before the worker could be stopped).
    const { takeId, worker: first } = await longTakeUnderWay(60);
    await stack.stopWorker(first, { timeoutS: 0 });
    // Lease 15 s + the rest of the synthesis on the other worker, with room for a loaded machine.
    const end = await pollTake(takeId, isDone, 90_000);
    expect(['ready', 'error']).toContain(end.body.status);
    if (end.body.status === 'ready') expect(end.reply.headers.get('x-speak-worker')).not.toBe(first);
  }, 180_000);

  it('restarting the API loses nothing', async () => {
    const takeId = await generate('Before the restart. It must survive.');
    const before = (await pollTake(takeId, isDone, 60_000)).body;
    expect(before.status).toBe('ready');
    await stack.restartApi();
    await login();
    const after = await api('GET', `/v1/speak/takes/${takeId}`);
    expect(after.status, after.text).toBe(200);
    expect(after.json).toEqual(before);
    const voice = await api('GET', `/v1/speak/voices/${voiceId}`);
    expect(voice.status, voice.text).toBe(200);
    // And the restarted API still reaches the remaining worker.
    const next = await generate('After the restart.');
    expect((await pollTake(next, isDone, 60_000)).body.status).toBe('ready');
  }, 180_000);
});
