/**
 * `serve --worker-threads` (the stack a conformance run starts itself, issue 52): the synthesis
 * workers are threads of the API process, not child processes; they claim and speak REST takes,
 * their espeak threads share the process's one espeak-ng.data, and the stack still stops in order.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Stack, startStack } from '../stack.ts';

type Json = Record<string, unknown>;
const started: Stack[] = [];

afterAll(async () => {
  for (const stack of started) await stack.stop();
});

/** The direct children of a process (from /proc). */
function childrenOf(pid: number): number[] {
  const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return listed ? listed.split(/\s+/).map(Number) : [];
}

/** Descriptors a process holds open on files named `name`. */
function openOn(pid: number, name: string): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith(`/${name}`);
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

describe('serve --worker-threads', () => {
  it('runs its workers as threads of its own process: both speak, and the stack stops in order', async () => {
    const stack = await startStack(['--workers', '2', '--worker-threads']);
    started.push(stack);
    const api = await stack.login();
    const workers = (await api.get('/v1/speak/_meta/workers')).json as {
      id: string;
      pid: number;
      alive: boolean;
    }[];
    expect(workers.map((w) => w.id).sort()).toEqual(['worker-1', 'worker-2']);
    expect(workers.every((w) => w.alive && w.pid === stack.pid)).toBe(true);
    expect(childrenOf(stack.pid), 'no worker process beside the API').toEqual([]);

    const voice = (
      await api.post('/v1/speak/voices/generate', {
        name: 'Threaded',
        gender: 'female',
        model: 'english-gb-v2.1',
      })
    ).json as Json;
    await pollUntil(api, `/v1/speak/voices/${voice.voice_id}`, isDone);
    const takes = (
      await api.post(
        '/v1/speak/takes/generate',
        [1, 2, 3, 4].map((i) => ({ voice_id: voice.voice_id, text: `Thread take number ${i}.` })),
      )
    ).json as Json[];
    for (const take of takes) {
      const done = await pollUntil(api, `/v1/speak/takes/${take.take_id}`, isDone, 60_000);
      expect(done.body.status).toBe('ready');
    }
    // Both workers' espeak threads read espeak-ng.data through the process's one share.
    expect(openOn(stack.pid, 'espeak-ng.data'), 'descriptors on espeak-ng.data').toBe(1);

    await stack.stop();
    expect(await stack.exited).toMatchObject({ code: 0 });
  }, 120_000);
});
