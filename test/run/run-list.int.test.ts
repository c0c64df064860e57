/**
 * `speakcheck run --list` prints what the selection would run and contacts nothing: pointed at a
 * listener that counts every connection, the count stays 0; without --base-url no stack starts.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { speakcheckRun } from '../support/speakcheck-run.ts';

let listener: Server;
let connections = 0;
let baseUrl: string;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

describe('speakcheck run --list', { timeout: 120_000 }, () => {
  test('every area: files, tests and ids listed, no connection made', async () => {
    const result = await speakcheckRun(['--list', '--base-url', baseUrl, '--token', 'x'], {
      timeoutMs: 110_000,
    });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    for (const area of ['auth', 'voices', 'takes', 'websocket', 'webhooks'])
      expect(result.stdout).toContain(`suites/${area}.spec.ts`);
    expect(result.stdout).toMatch(/ {2}.+ {2}\[AUTH-[A-Z0-9-]+/);
    expect(result.stdout).toMatch(/\d+ file\(s\), \d+ test\(s\), \d+ requirement\(s\):/);
    expect(connections).toBe(0);
  });

  test('a requirement selection lists only its tests; without --base-url no stack starts', async () => {
    const result = await speakcheckRun(['--list', '--requirement', 'VERSION-MAJOR-MATCHES-PATH'], {
      timeoutMs: 110_000,
    });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).not.toContain('starting the embedded reference stack');
    const listed = result.stdout.split('\n').filter((l) => l.startsWith('  '));
    expect(listed.length).toBeGreaterThan(0);
    for (const line of listed) expect(line).toContain('VERSION-MAJOR-MATCHES-PATH');
    expect(result.stdout).toMatch(
      /1 file\(s\), \d+ test\(s\), 1 requirement\(s\) \(areas version\):\nVERSION-MAJOR-MATCHES-PATH/,
    );
    expect(connections).toBe(0);
  });

  test('a remote server needs no credentials to be listed (nothing is contacted)', async () => {
    const result = await speakcheckRun(['--list', '--base-url', baseUrl, '--only', 'version'], {
      timeoutMs: 110_000,
    });
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stderr).not.toContain('needs credentials');
    expect(result.stdout).toContain('suites/version.spec.ts');
    expect(connections).toBe(0);
  });
});
