/**
 * The login of a sequence's reproduction script (src/checks/stateful/script.ts) pasted into sh: the
 * credentials reach the server as JSON whatever they hold, and the answer is shown without its tokens
 * (a pasted script's output is shared). curl is a shell function here that prints what it was sent.
 */
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { sequenceScript } from '../../src/checks/stateful/script.ts';
import { quoted } from '../../src/checks/stateful/script-words.ts';

test('the script\'s login sends a password holding " and \\ as JSON and shows the answer without its tokens', () => {
  const lines = sequenceScript({
    steps: [],
    accounts: ['primary'],
    model: 'm1',
    gender: 'female',
    seed: 1,
    failure: 'x',
    websocket: { firstMessageS: 15, endS: 60 },
  });
  const helpers = lines.filter((l) => /^(field|split|auth)\(\)/.test(l));
  const login = lines.find((l) => l.startsWith("auth '/auth/login'"));
  expect(login).toBeDefined();
  const answer = '{"access_token":"at-secret", "refresh_token" : "rt-secret","token_type":"bearer"}';
  // curl's 8th argument is the body auth() sends (--data-raw "$2").
  const curl = `curl() { printf '%s' "$8" >&2; printf '%s\\n200' ${quoted(answer)}; }`;
  const sh = spawnSync('sh', ['-c', [...helpers, curl, login].join('\n')], {
    env: { PATH: process.env.PATH, A: 'http://127.0.0.1:9', SPEAK_EMAIL: 'a@b.c', SPEAK_PASSWORD: 'p"w\\d' },
    encoding: 'utf8',
  });
  expect(sh.status).toBe(0);
  expect(JSON.parse(sh.stderr)).toEqual({ email: 'a@b.c', password: 'p"w\\d' });
  expect(sh.stdout).toContain('-> 200');
  expect(sh.stdout).toContain('"token_type":"bearer"');
  expect(sh.stdout).not.toContain('secret');
});
