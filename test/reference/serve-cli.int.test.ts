/**
 * `speakcheck serve` as a process: bad flags are refused, SIGINT stops the API and its workers and
 * removes the temporary data dir, and the logs never carry a password, token or signature.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isDone, pollUntil, type Stack, startStack } from './stack.ts';

const BIN = fileURLToPath(new URL('../../bin/speakcheck.js', import.meta.url));
const started: Stack[] = [];
afterAll(async () => {
  for (const stack of started) await stack.stop();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('speakcheck serve', () => {
  it('refuses invalid flags with a message and a non-zero exit', () => {
    for (const args of [
      ['--port', 'abc'],
      ['--workers', '-1'], // 0 is valid: API only, standalone `speakcheck worker`s join
      ['--user', 'no-colon'],
      ['--blob-url', 'ftp://blobs.example'],
      ['--blob-url', 'http://blobs.example/bucket'],
      ['--blob-port', '70000'],
    ]) {
      const run = spawnSync(process.execPath, [BIN, 'serve', ...args], { encoding: 'utf8', timeout: 30_000 });
      expect(run.status, args.join(' ')).not.toBe(0);
      expect(run.stderr).toMatch(/must be|EMAIL:PASSWORD/);
    }
  });

  it('SIGINT stops the API and the workers and removes the temporary data dir; logs hold no secrets', async () => {
    const stack = await startStack(['--workers', '1', '--permanent-token']);
    started.push(stack);
    expect(stack.permanentToken).toBeTruthy();
    const api = await stack.login();
    const voice = (
      await api.post('/v1/speak/voices/generate', { name: 'Bye', gender: 'male', model: 'english-gb-v2.1' })
    ).json as Record<string, unknown>;
    const take = (await api.post('/v1/speak/takes/generate', { voice_id: voice.voice_id, text: 'Goodbye.' }))
      .json as Record<string, unknown>;
    await pollUntil(api, `/v1/speak/takes/${take.take_id}`, isDone);
    const location = (await api.get(`/v1/speak/takes/${take.take_id}/wav`)).headers.get('location')!;
    expect((await stack.request('GET', location)).status).toBe(200);
    await stack.request('POST', '/auth/refresh', { json: { refresh_token: api.refresh } });
    const workers = (await api.get('/v1/speak/_meta/workers')).json as { pid: number }[];
    const dataDir = /data in (\S+)/.exec(stack.output())?.[1];
    expect(dataDir && existsSync(dataDir)).toBe(true);

    process.kill(stack.pid, 'SIGINT');
    const exit = await stack.exited;
    expect(exit.code).toBe(0);
    expect(workers.every((w) => !alive(w.pid))).toBe(true);
    expect(existsSync(dataDir!)).toBe(false);

    const logs = stack
      .output()
      .split('\n')
      .filter((line) => !/^(base_url|email|password|token)=/.test(line))
      .join('\n');
    expect(logs).toContain('POST /v1/speak/takes/generate 200');
    for (const secret of [
      stack.password,
      stack.permanentToken!,
      api.access,
      api.refresh,
      new URL(location).searchParams.get('X-Amz-Signature')!,
    ]) {
      expect(logs).not.toContain(secret);
    }
  }, 120_000);
});
