/**
 * `speakcheck serve` as a process: bad flags are refused (exit 2, one sentence), SIGINT stops the
 * API and its workers and removes the temporary data dir, the logs never carry a password, token or
 * signature, and it stops its workers when the process that started it goes (issue 51 item 9).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
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

/** /proc/PID/stat's state and parent pid (undefined once the process is gone). */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Running: neither gone nor a zombie (an adopted process may wait for a reaper that never comes). */
const running = (pid: number) => {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'Z';
};

const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => procStat(child)?.ppid === pid);

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
      expect(run.status, args.join(' ')).toBe(EXIT.usage);
      expect(run.stderr).toMatch(/must be|EMAIL:PASSWORD/);
      expect(run.stderr.trimEnd().split('\n'), 'one sentence, no help').toHaveLength(1);
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

  it('stops itself and its workers when the process that started it is gone (npx killed, nothing forwarded)', async () => {
    // npx speakcheck serve & is npm exec → sh -c → node; npm's death forwards nothing to node. Here
    // the shell stands for npm: killed with SIGKILL, it can forward nothing.
    const shell = spawn(
      'sh',
      ['-c', `"${process.execPath}" "${BIN}" serve --port 0 --workers 1 & echo pid=$!; wait`],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    shell.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const ready = new Promise<void>((resolve, reject) => {
      shell.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/^base_url=/m.test(stdout)) resolve();
      });
      shell.once('exit', () => reject(new Error(`the shell ended before serve was ready: ${stderr}`)));
    });
    await ready;
    const serve = Number(/^pid=(\d+)$/m.exec(stdout)![1]);
    const workers = childrenOf(serve);
    expect(workers.length, `serve's worker processes: ${stderr}`).toBeGreaterThanOrEqual(1);
    try {
      shell.kill('SIGKILL');
      // The parent is polled once a second: a few seconds are plenty; 20 s bounds the wait.
      const deadline = Date.now() + 20_000;
      while ([serve, ...workers].some(running) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect([serve, ...workers].filter(running), `still running; serve's log: ${stderr}`).toEqual([]);
      expect(stderr).toContain('the process that started this stack is gone');
    } finally {
      for (const pid of [serve, ...workers]) if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 60_000);
});
