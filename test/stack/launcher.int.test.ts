/**
 * The one launcher (src/stack/launcher.ts) against tiny Node children: ready lines, the errors of a
 * child that never gets ready, the stop policy (signal, grace, the whole tree killed) and runToEnd's
 * bound.
 */
import { describe, expect, test } from 'vitest';
import { LaunchError, launch, runToEnd, serveReady } from '../../src/stack/launcher.ts';
import { readProcs } from '../../src/stack/process-tree.ts';

/** A child that prints serve's ready lines, starts a grandchild (its pid printed) and ignores SIGTERM. */
const STUBBORN = `
const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.on('SIGTERM', () => console.log('got SIGTERM'));
console.log('starting');
console.log('base_url=http://127.0.0.1:1/\\nemail=a@b.c\\npassword=pw\\ngrandchild=' + grandchild.pid);
setInterval(() => console.log('log line'), 50);
`;

/** Running, i.e. present and not a zombie (a killed orphan may wait a while to be reaped). */
const alive = (pid: number) => readProcs().some((p) => p.pid === pid && p.state !== 'Z');

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  return !alive(pid);
}

describe('launch', () => {
  test('waits for the ready lines, hands over later lines, kills the tree after the grace', async () => {
    const later: string[] = [];
    const child = await launch({
      args: ['-e', STUBBORN],
      ready: serveReady({ also: ['grandchild'] }),
      readyTimeoutMs: 10_000,
      graceMs: 300,
      onLine: (line) => later.push(line),
    });
    expect(child.fields.get('base_url')).toBe('http://127.0.0.1:1/');
    expect(child.fields.has('starting')).toBe(false);
    const grandchild = Number(child.fields.get('grandchild'));
    const started = Date.now();
    const exit = await child.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250); // SIGTERM ignored: the grace ran out
    expect(exit.signal).toBe('SIGKILL');
    expect(child.output()).toContain('got SIGTERM');
    expect(later).toContain('log line');
    expect(await gone(grandchild)).toBe(true);
  });

  test('a child that exits before ready: LaunchError with its code and stderr', async () => {
    const failing = launch({
      args: ['-e', 'console.error("no port for you"); process.exit(3)'],
      ready: serveReady(),
      what: 'the stub stack',
    });
    await expect(failing).rejects.toThrow(LaunchError);
    await expect(failing).rejects.toThrow(
      'the stub stack exited before it was ready (code 3): no port for you',
    );
  });

  test('no ready lines in time: LaunchError, and the child is killed', async () => {
    const error = await launch({
      args: ['-e', 'console.log("base_url=x"); setInterval(() => {}, 1000)'],
      ready: serveReady(),
      readyTimeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LaunchError);
    expect((error as LaunchError).message).toBe('the child process printed no ready lines within 300 ms');
    expect((error as LaunchError).output).toContain('base_url=x');
  });
});

describe('runToEnd', () => {
  test('collects stdout and stderr and the exit code', async () => {
    const r = await runToEnd({
      args: ['-e', 'console.log("out"); console.error("err"); process.exit(1)'],
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ code: 1, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(r.output).toContain('out\n');
  });

  test('stops a child that outlives its bound', async () => {
    const r = await runToEnd({ args: ['-e', 'setInterval(() => {}, 1000)'], timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGTERM');
  });
});
