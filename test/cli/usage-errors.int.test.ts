/**
 * `speakcheck` as a vendor types it (issue 51 items 4 and 5): a typo, or a report or cache directory
 * this user cannot write, is exit 2 with one sentence, said before any request. The target is a
 * loopback listener that counts the connections it is offered: it must see none.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
import { REPO_ROOT } from '../../src/stack/embedded.ts';

const scratch = mkdtempSync(join(tmpdir(), 'speakcheck-usage-'));
const aFile = join(scratch, 'a-file');
let server: Server;
let connections = 0;
let baseUrl: string;

beforeAll(async () => {
  writeFileSync(aFile, '');
  server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(scratch, { recursive: true, force: true });
});

function speakcheck(...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'speakcheck.js'), ...args], {
    cwd: scratch,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, SPEAK_TOKEN: 'a-token', SPEAK_EMAIL: '', SPEAK_PASSWORD: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('usage errors exit 2 before any request', () => {
  test.each([
    [['run', '--bogus'], /^speakcheck run: unknown option '--bogus'/],
    [['run', '--report-dir', join(aFile, 'reports')], /cannot be written \(ENOTDIR\): give --report-dir/],
    [['run', '--cache-dir', join(aFile, 'cache')], /cannot be written \(ENOTDIR\): give --cache-dir/],
  ])('speakcheck %j', (args, sentence) => {
    const { code, stdout, stderr } = speakcheck(...args, '--base-url', baseUrl);
    expect(code, stderr).toBe(EXIT.usage);
    expect(stderr).toMatch(sentence);
    expect(stderr.trimEnd().split('\n'), 'one sentence, no help dump').toHaveLength(1);
    expect(stdout).toBe('');
    expect(connections, 'the server was contacted before the usage error').toBe(0);
  });
});
