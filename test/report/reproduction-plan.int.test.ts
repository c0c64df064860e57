/**
 * What a reproduction holds (src/report/reproduction.ts, reproduction-items.ts): the request the
 * check named, not the test's last exchanges; a login step per account; the voices and takes it
 * uses made afresh (the run deleted its own), waited for when the run saw them ready; each line of a
 * two-account failure naming its account; a signed URL fetched fresh and without Authorization.
 * The scripts are run by `sh` with a stand-in `curl` on PATH that logs what it was given, so what
 * is checked is what the shell really passes on (variables expanded, ids read from answers).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { EvidenceEntry } from '../../src/evidence/evidence.ts';
import { redactJson } from '../../src/evidence/redact.ts';
import { type FailingTest, failingExchange, reproductionOf } from '../../src/report/reproduction.ts';
import { shellWord } from '../../src/report/reproduction-shell.ts';

const API = 'http://127.0.0.1:9';
const BLOB = 'http://127.0.0.1:8/signed/audio/tk_old/wav?X-Amz-Expires=900&X-Amz-Signature=‹redacted›';
const AUTH = { accept: 'application/json', authorization: 'Bearer ‹redacted›' };

let lastId = 0;
const entry = (o: Partial<EvidenceEntry>): EvidenceEntry => ({
  id: ++lastId,
  method: 'GET',
  url: `${API}/v1/speak/version`,
  requestHeaders: AUTH,
  status: 200,
  headers: {},
  body: '',
  ms: 1,
  ...o,
});
const voiceAnswer = (status: string) =>
  `{"voice_id":"vc_old","name":"shared","gender":"female","model":"m1","status":"${status}","example":{"voice_id":"vc_old","name":"nested"}}`;
const takeAnswer = (status: string) =>
  `{"take_id":"tk_old","voice_id":"vc_old","text":"Hi there.","status":"${status}"}`;

/**
 * A failing test whose check recorded the exchange `at` (of its evidence) as what its finding rests
 * on (src/harness/check.ts): the reproduction finds it by its id, not by the finding's words.
 */
const failedOn = (
  name: string,
  evidence: EvidenceEntry[],
  at: EvidenceEntry,
  requirement = 'X',
): FailingTest => ({
  name,
  errors: [`${requirement}: the finding`],
  evidence,
  conclusions: { [requirement]: [{ kind: 'violated', message: 'the finding', exchanges: [at.id!] }] },
});

/** The audio test's evidence: the shared voice (only ever read), a take made, polled to ready, then audio. */
const audioTest = (fetchStatus: number) => [
  entry({ url: `${API}/v1/speak/voices/vc_old`, body: voiceAnswer('ready') }),
  entry({
    method: 'POST',
    url: `${API}/v1/speak/takes/generate`,
    requestHeaders: { ...AUTH, 'content-type': 'application/json' },
    requestBody: '{"voice_id":"vc_old","text":"Hi there."}',
    body: takeAnswer('waiting'),
  }),
  entry({ url: `${API}/v1/speak/takes/tk_old`, body: takeAnswer('ready') }),
  entry({
    url: `${API}/v1/speak/takes/tk_old/wav`,
    status: fetchStatus,
    headers: { location: BLOB },
  }),
  entry({ url: BLOB, requestHeaders: {}, body: '<4096 bytes of audio/wav>' }),
  entry({ url: `${API}/v1/speak/takes/tk_old`, body: takeAnswer('ready') }),
];

const dir = mkdtempSync(join(tmpdir(), 'speakcheck-repro-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A stand-in curl: logs each call's arguments (one line) and answers as the server would.
writeFileSync(
  join(dir, 'curl'),
  `#!/bin/sh
printf '%s\\n' "$*" >> "$CURL_LOG"
case "$*" in
  *auth/login*) printf '{"access_token":"token-of-%s","refresh_token":"r"}' "$(printf '%s' "$*" | sed -n 's/.*"email":"\\([^"]*\\)".*/\\1/p')";;
  *voices/generate*) printf '{"voice_id":"vc_new","status":"waiting"}';;
  *takes/generate*) printf '{"take_id":"tk_new","voice_id":"vc_new"}';;
  *signed*) printf 'HTTP/1.1 200 OK\\r\\ncontent-type: audio/wav\\r\\n\\r\\n';;
  */wav*) printf 'HTTP/1.1 307 Temporary Redirect\\r\\nlocation: http://127.0.0.1:8/signed/fresh?sig=new\\r\\n\\r\\n';;
  *) printf '{"status":"ready"}';;
esac
`,
);
chmodSync(join(dir, 'curl'), 0o755);

/** Runs the script as pasted, with only `env`: the curl calls it made, one line of arguments each. */
function paste(lines: readonly string[], env: Record<string, string>): { calls: string[]; out: string } {
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}`);
  writeFileSync(log, '');
  const r = spawnSync('sh', ['-c', lines.join('\n')], {
    env: { PATH: `${dir}:${process.env.PATH ?? ''}`, CURL_LOG: log, ...env },
  });
  expect(r.status, r.stderr.toString()).toBe(0);
  return { calls: readFileSync(log, 'utf8').trim().split('\n'), out: r.stdout.toString() };
}

describe('which request is reproduced', () => {
  test('the one the finding rests on, by its id, even with later exchanges', () => {
    const evidence = audioTest(302);
    const t = failedOn('wav', evidence, evidence[3]!, 'AUDIO-307');
    expect(failingExchange(t, 'AUDIO-307')).toBe(3);
    // Another requirement's finding, or none named: the test's findings of any requirement.
    expect(failingExchange(failedOn('wav', evidence, evidence[5]!, 'TAKE-X'))).toBe(5);
    expect(failingExchange(failedOn('wav', evidence, evidence[5]!, 'TAKE-X'), 'AUDIO-307')).toBe(5);
    // A finding that names no exchange (a timing over several): none is singled out.
    const timing = {
      ...t,
      conclusions: { 'AUDIO-307': [{ kind: 'violated' as const, message: 'too slow' }] },
    };
    expect(failingExchange(timing, 'AUDIO-307')).toBe(-1);
    // The words of a finding are never read: a request line in them names nothing.
    expect(failingExchange({ ...timing, errors: ['AUDIO-307: GET /v1/speak/takes/tk_old/wav → 302'] })).toBe(
      -1,
    );
  });
});

describe('a reproduction runs as pasted', () => {
  test('it logs in, makes the voice and the take again, waits for ready, and sends the failing request', () => {
    // As the audio-302 defect goes: a 302 is not followed.
    const evidence = audioTest(302).filter((e) => e.url !== BLOB);
    const repro = reproductionOf([failedOn('wav', evidence, evidence[3]!, 'AUDIO-307')], { authUrl: API });
    expect(repro.notes.join('\n')).toMatch(/Reproduces the test "wav"/);
    expect(repro.curl.join('\n')).not.toMatch(/vc_old'|tk_old\//);
    expect(redactJson({ r: repro })).toEqual({ r: repro });
    const { calls, out } = paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: 'pw' });
    expect(calls[0]).toContain('{"email":"a@x","password":"pw"}');
    expect(calls[0]).toContain(`${API}/auth/login`);
    // The voice from what the run read of it (its generate request was made before any test).
    expect(calls[1]).toContain('Authorization: Bearer token-of-a@x');
    expect(calls[1]).toContain('{"name":"shared","gender":"female","model":"m1"}');
    expect(calls[1]).toContain(`${API}/v1/speak/voices/generate`);
    expect(calls[2]).toContain(`${API}/v1/speak/voices/vc_new`);
    expect(calls[3]).toContain('{"voice_id":"vc_new","text":"Hi there."}');
    expect(calls[4]).toContain(`${API}/v1/speak/takes/tk_new`);
    expect(calls.at(-1)).toBe(
      `-sS -i -H accept: application/json -H Authorization: Bearer token-of-a@x ${API}/v1/speak/takes/tk_new/wav`,
    );
    expect(calls).toHaveLength(6);
    expect(out).toContain('TAKE_1=tk_new');
  });

  test('an id the server made with a line break in it never runs as a command when pasted', () => {
    // A broken or hostile server: its voice id holds a line break and a command, raw in its answer
    // and in the failing request that used it (bodies are kept as they came).
    const hostile = 'vc_x\n touch $PWNED #';
    const post = (path: string, requestBody: string, status: number, body: string) =>
      entry({
        method: 'POST',
        url: `${API}${path}`,
        requestHeaders: { ...AUTH, 'content-type': 'application/json' },
        requestBody,
        status,
        body,
      });
    const evidence = [
      post(
        '/v1/speak/voices/generate',
        '{"name":"n","gender":"female","model":"m1"}',
        200,
        `{"voice_id":"${hostile}"}`,
      ),
      post('/v1/speak/takes/generate', `{"voice_id":"${hostile}","text":"Hi."}`, 500, '{"detail":"x"}'),
    ];
    const repro = reproductionOf([failedOn('generate', evidence, evidence[1]!, 'TAKE-X')]);
    const pwned = join(dir, 'pwned');
    paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: 'pw', PWNED: pwned });
    expect(existsSync(pwned), repro.curl.join('\n')).toBe(false);
  });

  test("a body's ! is literal in sh and in a bash that expands history (as an interactive one does)", () => {
    const word = shellWord('{"text":"Hi!there $x `y`"}');
    const line = `printf '%s' ${word}\n`;
    for (const [shell, script] of [
      ['sh', line],
      ['bash', `set -o history -H\n${line}`],
    ] as const) {
      const r = spawnSync(shell, [], { input: script, env: { PATH: process.env.PATH ?? '' } });
      expect(r.stdout.toString(), `${shell}: ${r.stderr.toString()}`).toBe('{"text":"Hi!there $x `y`"}');
    }
  });

  test('a password with quotes, backslashes and $ is sent as the JSON string of it', () => {
    const evidence = audioTest(302);
    const repro = reproductionOf([failedOn('wav', evidence, evidence[3]!)]);
    const password = 'p"w\\x$y `z`';
    const { calls } = paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: password });
    const body = /--data-raw (\{.*\}) http/.exec(calls[0]!)?.[1];
    expect(JSON.parse(body!)).toEqual({ email: 'a@x', password });
  });

  test('a take the run fetched before ready is not waited for', () => {
    const evidence = audioTest(302).filter(
      (e) => e.url !== `${API}/v1/speak/takes/tk_old` || e.method !== 'GET',
    );
    const wav = evidence.find((e) => e.url.endsWith('/wav'))!;
    const repro = reproductionOf([failedOn('early wav', evidence, wav)]);
    const script = repro.curl.join('\n');
    expect(script).toContain(
      `until curl -sS -H "Authorization: Bearer \${SPEAK_TOKEN}" "http://127.0.0.1:9/v1/speak/voices/\${VOICE_1}"`,
    );
    expect(script).not.toContain(`/v1/speak/takes/\${TAKE_1}" |`);
  });

  test('a redirect the run followed: the signed URL is fetched fresh, without Authorization', () => {
    const evidence = audioTest(307);
    const repro = reproductionOf([failedOn('wav delivers', evidence, evidence[4]!)]);
    const { calls } = paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: 'pw' });
    expect(calls.at(-2)).toContain('Authorization: Bearer token-of-a@x');
    expect(calls.at(-2)).toContain('/takes/tk_new/wav');
    expect(calls.at(-1)).toBe('-sS -D - -o /dev/null http://127.0.0.1:8/signed/fresh?sig=new');
    expect(repro.notes.join('\n')).not.toMatch(/signature in the URL is redacted/);
  });

  test('an item that cannot be made again says the run deleted it and that --keep keeps it', () => {
    const evidence = [entry({ url: `${API}/v1/speak/takes/tk_gone/mp3`, status: 302 })];
    const deleted = reproductionOf([failedOn('mp3', evidence, evidence[0]!)]);
    expect(deleted.curl.at(-1)).toContain('/takes/tk_gone/mp3');
    expect(deleted.notes.join('\n')).toMatch(/tk_gone could not be made again/);
    // An id the evidence answered, but no creation nor anything to make it from: named with --keep.
    const read = [
      entry({ url: `${API}/v1/speak/takes/tk_gone`, body: '{"take_id":"tk_gone"}' }),
      ...evidence,
    ];
    const notes = reproductionOf([failedOn('mp3', read, evidence[0]!)]).notes.join('\n');
    expect(notes).toMatch(/tk_gone could not be made again: the run deleted it at its end; `--keep` keeps/);
    const kept = reproductionOf([failedOn('mp3', read, evidence[0]!)], { keep: true }).notes.join('\n');
    expect(kept).toMatch(/tk_gone is used as the run kept it \(--keep\)/);
  });
});

describe("what the test's own evidence does not hold", () => {
  test("an item read only by another test (a shared scenario's exchanges) is made from the run's evidence", () => {
    const target = entry({ url: `${API}/v1/speak/takes/tk_old/wav`, status: 302 });
    const alone = reproductionOf([failedOn('wav', [target], target)]);
    expect(alone.notes.join('\n')).toMatch(/tk_old could not be made again/);
    const repro = reproductionOf([failedOn('wav', [target], target)], { context: audioTest(302) });
    expect(repro.notes.join('\n')).not.toMatch(/could not be made again/);
    const { calls } = paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: 'pw' });
    expect(calls.find((c) => c.includes('/takes/generate'))).toContain(
      '{"voice_id":"vc_new","text":"Hi there."}',
    );
    expect(calls.at(-1)).toContain(`${API}/v1/speak/takes/tk_new/wav`);
  });

  test('a finding that names no single request: the exchanges are replayed with the items made afresh', () => {
    const repro = reproductionOf([
      { name: 'done', errors: ['take tk_old: wav → 302; mp3 → 302'], evidence: audioTest(307) },
    ]);
    expect(repro.notes[0]).toMatch(/names no single request/);
    const { calls } = paste(repro.curl, { SPEAK_EMAIL: 'a@x', SPEAK_PASSWORD: 'pw' });
    // The take is made once (its creating request is not sent twice), then the exchanges go on with its new id.
    expect(calls.filter((c) => c.includes('/takes/generate'))).toHaveLength(1);
    expect(calls.some((c) => c.includes('tk_old'))).toBe(false);
    const wav = calls.findIndex((c) => c.endsWith(`${API}/v1/speak/takes/tk_new/wav`));
    expect(wav).toBeGreaterThan(0);
    // The signed URL it redirected to: fresh, without Authorization.
    expect(calls[wav + 1]).toBe('-sS -D - -o /dev/null http://127.0.0.1:8/signed/fresh?sig=new');
    expect(repro.notes.join('\n')).not.toMatch(/signature in the URL is redacted/);
  });
});

describe('two accounts', () => {
  test('A makes the take with $SPEAK_TOKEN_A, B reads it with $SPEAK_TOKEN_B, each logging in with its own variables', () => {
    const evidence = [
      entry({
        method: 'POST',
        url: `${API}/auth/login`,
        requestHeaders: { 'content-type': 'application/json' },
        requestBody: '{"email":"b@x","password":"‹redacted›"}',
        account: 'second',
        body: '{"access_token":"‹redacted›"}',
      }),
      ...audioTest(302).slice(0, 2),
      entry({ url: `${API}/v1/speak/takes/tk_old`, body: takeAnswer('ready'), account: 'second' }),
    ];
    const repro = reproductionOf([failedOn("B cannot GET A's take", evidence, evidence.at(-1)!)]);
    const script = repro.curl.join('\n');
    expect(script).not.toContain(`Bearer \${SPEAK_TOKEN}"`);
    expect(repro.notes.join('\n')).toMatch(/Two accounts: A is the run's own/);
    const { calls } = paste(repro.curl, {
      SPEAK_EMAIL: 'a@x',
      SPEAK_PASSWORD: 'pa',
      SPEAK_SECOND_EMAIL: 'b@x',
      SPEAK_SECOND_PASSWORD: 'pb',
    });
    expect(calls[0]).toContain('{"email":"a@x","password":"pa"}');
    expect(calls[1]).toContain('{"email":"b@x","password":"pb"}');
    expect(calls.filter((c) => c.includes('/generate')).every((c) => c.includes('Bearer token-of-a@x'))).toBe(
      true,
    );
    expect(calls.at(-1)).toBe(
      `-sS -i -H accept: application/json -H Authorization: Bearer token-of-b@x ${API}/v1/speak/takes/tk_new`,
    );
    // A permanent token of each account instead of logging in.
    const tokens = paste(repro.curl, { SPEAK_TOKEN: 'perm-a', SPEAK_SECOND_TOKEN: 'perm-b' }).calls;
    expect(tokens.some((c) => c.includes('auth/login'))).toBe(false);
    expect(tokens.at(-1)).toContain('Bearer perm-b');
  });
});
