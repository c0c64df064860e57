/**
 * The suites can fail: `speakcheck run` against a small server with deliberate defects (loopback,
 * node:http) must end "does not conform" and name exactly the broken requirements, while what the
 * server does right still passes.
 *
 * Defects: /version needs a token; refresh returns the same refresh token; logout revokes
 * nothing; the voice list answers without a token; tokens are not verified (a tampered one
 * works); /docs is plain text; openapi.json declares one path; unknown routes answer raw text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';
import { type RunResult, readVerdicts, speakcheckRun, type Verdict } from '../support/speakcheck-run.ts';

const EMAIL = 'broken@example.test';
const PASSWORD = 'broken-server-password';
const MODEL = {
  name: 'broken-1',
  displayname: 'Broken',
  flags: [],
  languages: ['en-US'],
  genders: ['female'],
  styles: [],
  prosody_types: ['simple'],
};

function startBrokenServer(): Promise<FakeServer> {
  let issued = 0;
  return startFakeServer((req, res) => {
    const path = req.url.split('?')[0] ?? '';
    const authorised = req.headers.authorization?.startsWith('Bearer acc-') ?? false;
    const body = () => JSON.parse(req.body || '{}') as Record<string, string>;
    if (path === '/auth/login') {
      const { email, password } = body();
      if (email !== EMAIL || password !== PASSWORD)
        return sendJson(res, 401, { detail: 'wrong email or password' });
      issued++;
      return sendJson(res, 200, { access_token: `acc-${issued}-signature`, refresh_token: 'ref-forever' });
    }
    if (path === '/auth/refresh') {
      if (body().refresh_token !== 'ref-forever')
        return sendJson(res, 401, { detail: 'unknown refresh token' });
      issued++;
      return sendJson(res, 200, { access_token: `acc-${issued}-signature`, refresh_token: 'ref-forever' });
    }
    if (path === '/auth/logout') return sendJson(res, 200, true);
    if (path === '/v1/speak/voices' && req.method === 'GET') return sendJson(res, 200, []);
    if (!authorised) return sendJson(res, 401, { detail: 'missing or invalid token' });
    if (path === '/v1/speak/version') return sendJson(res, 200, { version: 1, minor: 0 });
    if (path === '/v1/speak/models') return sendJson(res, 200, [MODEL]);
    if (path === `/v1/speak/models/${MODEL.name}`) return sendJson(res, 200, MODEL);
    if (path === '/v1/speak/takes' && req.method === 'GET') return sendJson(res, 200, []);
    if (path === '/v1/speak/docs') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('see the redoc page');
      return;
    }
    if (path === '/v1/speak/redoc') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html><body><redoc spec-url="/v1/speak/openapi.json"></redoc></body></html>');
      return;
    }
    if (path === '/v1/speak/openapi.json') {
      return sendJson(res, 200, {
        openapi: '3.1.0',
        info: { title: 'Broken Speak', version: '1.0' },
        paths: { '/v1/speak/models': { get: { responses: { '200': { description: 'models' } } } } },
      });
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
}

let server: FakeServer;
let reportDir: string;
let run: RunResult;
let verdicts: Map<string, Verdict>;

beforeAll(async () => {
  server = await startBrokenServer();
  reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-broken-'));
  run = await speakcheckRun(
    ['--base-url', server.url, '--email', EMAIL, '--only', 'auth,version,docs', '--report-dir', reportDir],
    { env: { SPEAK_PASSWORD: PASSWORD, SPEAKCHECK_SEED: '1' } },
  );
  verdicts = readVerdicts(reportDir);
}, 160_000);

afterAll(async () => {
  await server?.close();
  if (reportDir) rmSync(reportDir, { recursive: true, force: true });
});

test('the run does not conform (exit 1)', () => {
  expect(run.code, run.stderr + run.stdout).toBe(1);
});

test.each([
  ['VERSION-NO-TOKEN', '/version needs a token'],
  ['AUTH-REFRESH-ROTATES', 'refresh returns the same refresh token'],
  ['AUTH-LOGOUT-REVOKES', 'logout revokes nothing'],
  ['AUTH-BEARER-REQUIRED', 'the voice list answers without a token'],
  ['AUTH-INVALID-TOKEN-401', 'a tampered token is accepted'],
  ['DOCS-INTERACTIVE-HTML', '/docs is plain text'],
  ['DOCS-OPENAPI-PATHS', 'openapi.json declares one path'],
])('%s fails (%s)', (id) => {
  expect(verdicts.get(id)?.status).toBe('failed');
});

test.each([['AUTH-LOGIN-FAIL-401'], ['AUTH-LOGIN-NO-TOKEN'], ['DOCS-REDOC-HTML'], ['DOCS-OPENAPI-VALID']])(
  '%s still passes',
  (id) => {
    expect(verdicts.get(id)?.status).toBe('passed');
  },
);

test('an unverifiable MUST is not observed, not passed (opaque tokens: expiry unknown)', () => {
  expect(verdicts.get('AUTH-EXPIRED-TOKEN-401')?.status).toBe('not-observed');
});
