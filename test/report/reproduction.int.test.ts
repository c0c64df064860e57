/**
 * The reproduction of a failure (src/report/reproduction.ts): curl lines from redacted evidence put
 * secrets back only as shell variables, quote everything else literally, give a signed URL no
 * Authorization, and survive the report's last redaction pass; it reproduces the request the check
 * named (not the test's last exchanges), logs in first, makes the items it uses afresh, names each
 * account of a two-account failure; websocket requests get a replay script.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import type { EvidenceEntry } from '../../src/evidence/evidence.ts';
import { evidenceFor } from '../../src/evidence/evidence.ts';
import { redactJson } from '../../src/evidence/redact.ts';
import {
  curlFor,
  type FailingTest,
  reproductionOf,
  websocketModelOf,
  websocketScript,
} from '../../src/report/reproduction.ts';

const exchange = (o: Partial<EvidenceEntry>): EvidenceEntry => ({
  method: 'GET',
  url: 'http://127.0.0.1:9/v1/speak/version',
  requestHeaders: {},
  status: 200,
  headers: {},
  body: '',
  ms: 1,
  ...o,
});

const failing = (evidence: EvidenceEntry[], errors: string[] = []): FailingTest => ({
  name: 'a test',
  errors,
  evidence,
});

/** What the shell makes of a command line: its arguments, as curl would receive them. */
function argvOf(command: string, env: Record<string, string>): string[] {
  const script = command.replace(/^curl /, "printf '%s\\0' ");
  const out = execFileSync('sh', ['-c', script], { env: { ...env, PATH: process.env.PATH ?? '' } });
  return out.toString().split('\0').slice(0, -1);
}

describe('curl reproduction', () => {
  test('the bearer token and the password become variables; the shell expands them', () => {
    const login = evidenceFor({
      method: 'POST',
      url: 'http://127.0.0.1:9/auth/login',
      requestHeaders: { 'content-type': 'application/json', 'content-length': '40' },
      requestBody: JSON.stringify({ email: 'a@b.c', password: 'hunter2-secret' }),
      status: 200,
      headers: {},
      ms: 3,
    });
    const get = evidenceFor({
      method: 'GET',
      url: 'http://127.0.0.1:9/v1/speak/models',
      requestHeaders: { authorization: 'Bearer eyJhbGciOi.eyJzdWIiOiJ4In0.abcdef' },
      status: 200,
      headers: {},
      ms: 3,
    });
    const repro = reproductionOf([failing([login, get])]);
    const text = JSON.stringify(repro);
    expect(text).not.toContain('hunter2-secret');
    expect(text).not.toContain('eyJhbGciOi');
    // The run's login is the reproduction's own login step; the request comes after it.
    expect(repro.curl[0]).toMatch(/^# Account A: log in with \$SPEAK_EMAIL and \$SPEAK_PASSWORD/);
    expect(repro.curl.at(-1)).toBe(
      `curl -sS -i -H "Authorization: Bearer \${SPEAK_TOKEN}" 'http://127.0.0.1:9/v1/speak/models'`,
    );
    // The report's last redaction pass leaves the variables alone.
    expect(redactJson({ reproduction: repro })).toEqual({ reproduction: repro });
    const argv = argvOf(curlFor(login)!.command, { SPEAK_PASSWORD: 'pw"$`x' });
    expect(argv).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '--data-raw',
      '{"email":"a@b.c","password":"pw"$`x"}',
      'http://127.0.0.1:9/auth/login',
    ]);
    expect(argvOf(repro.curl.at(-1)!, { SPEAK_TOKEN: 'tok' })).toContain('Authorization: Bearer tok');
  });

  test('a refresh token is $SPEAK_REFRESH_TOKEN; other text is literal, $ and quotes included', () => {
    const curl = curlFor(
      exchange({
        method: 'POST',
        url: 'http://127.0.0.1:9/auth/refresh',
        requestBody: '{"refresh_token":"‹redacted›","note":"costs $5 \\"now\\" `x`"}',
      }),
    )!;
    const argv = argvOf(curl.command, { SPEAK_REFRESH_TOKEN: 'rt' });
    expect(argv).toContain('{"refresh_token":"rt","note":"costs $5 \\"now\\" `x`"}');
  });

  test('a signed URL gets no Authorization and a note that its signature is redacted', () => {
    const curl = curlFor(exchange({ url: 'http://127.0.0.1:9/files/a.wav?expires=1&signature=‹redacted›' }))!;
    expect(curl.command).not.toContain('Authorization');
    expect(curl.notes.join()).toMatch(/signature in the URL is redacted/);
  });

  test('--ca-file: an https curl trusts the same private CA (--cacert), never -k; http ones need none', () => {
    const repro = reproductionOf(
      [
        failing([
          exchange({ url: 'https://127.0.0.1:9/v1/speak/version' }),
          exchange({ url: 'http://127.0.0.1:9/files/a.wav' }),
        ]),
      ],
      { caFile: "/etc/ssl/speak's ca.pem" },
    );
    const curl = repro.curl.filter((line) => line.startsWith('curl '));
    expect(argvOf(curl[0]!, {})).toEqual([
      '-sS',
      '-i',
      '--cacert',
      "/etc/ssl/speak's ca.pem",
      'https://127.0.0.1:9/v1/speak/version',
    ]);
    expect(curl[1]).not.toContain('--cacert');
    expect(repro.curl.join(' ')).not.toMatch(/ -k | --insecure/);
  });

  test('websocket requests: listed, no curl, and a replay script that parses', () => {
    const repro = reproductionOf([
      failing([
        exchange({ method: 'GET (websocket upgrade)', url: 'ws://127.0.0.1:9/‹redacted›', status: 101 }),
        exchange({
          method: 'WS take',
          url: 'ws://127.0.0.1:9/‹redacted›',
          requestBody: '{"command":"take"}',
          body: 'outcome closed; statuses waiting → error',
        }),
      ]),
    ]);
    expect(repro.transcript).toEqual([
      'GET (websocket upgrade) ws://127.0.0.1:9/‹redacted›: HTTP 101',
      'WS take ws://127.0.0.1:9/‹redacted›: outcome closed; statuses waiting → error',
    ]);
    expect(repro.curl).toEqual([]);
    expect(repro.websocket).toEqual(['{"command":"take"}']);
    const script = websocketScript('WS-X', repro.websocket, {
      baseUrl: 'http://127.0.0.1:9',
      model: websocketModelOf(['GET http://127.0.0.1:9/v1/speak/websocket?model=english-gb-v2.1: HTTP 200']),
    });
    expect(script).toContain('"command": "take"');
    // It finds its own URL: logs in, asks the address of the test's model; no URL in the report.
    expect(script).toContain('const MODEL = "english-gb-v2.1";');
    expect(script).toContain('/auth/login');
    expect(script).not.toContain('‹redacted›');
    execFileSync(process.execPath, ['--check', '--input-type=module'], { input: script });
  });
});
