/**
 * A file's failed login or model list (src/harness/context.ts) is the file's setup failure: a test
 * stopped by it is blocked by it (src/harness/disposition.ts classify), not a finding against every
 * id it covers. (What covers() throws to vitest is redacted: redactError, test/client/redact.test.ts.)
 */
import { afterEach, describe, expect, test } from 'vitest';
import { closeHttp } from '../../src/client/http.ts';
import { resolveRunConfig } from '../../src/config/resolve.ts';
import { speakFile } from '../../src/harness/context.ts';
import { classify } from '../../src/harness/disposition.ts';
import { resolveRunPlan } from '../../src/harness/run-plan.ts';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeHttp();
});

/** The `speak` context of a file against a fake server whose login or model list fails. */
async function fileWhose(failing: 'login' | 'models') {
  server = await startFakeServer((req, res) => {
    if (req.url === '/auth/login') {
      if (failing === 'login') return sendJson(res, 401, { detail: 'wrong password' });
      return sendJson(res, 200, { access_token: 'acc-stopped-aaaa', refresh_token: 'ref-stopped-aaaa' });
    }
    if (req.url === '/v1/speak/models') return sendJson(res, 500, { detail: 'models are down' });
    sendJson(res, 404, { detail: 'unknown' });
  });
  const config = resolveRunConfig(
    { baseUrl: server.url, email: 'a@b.c', password: 'pw-123456' },
    {},
    new Date(),
  );
  const file = speakFile();
  await file.open(resolveRunPlan(config, undefined, undefined));
  return file.context;
}

function thrownBy(use: () => unknown): unknown {
  try {
    use();
  } catch (err) {
    return err;
  }
  throw new Error('expected the use to throw');
}

describe("a file's failed setup", () => {
  test('a failed login blocks the tests that use it', async () => {
    const speak = await fileWhose('login');
    expect(classify(thrownBy(() => speak.api)).kind).toBe('setup');
  });

  test('a failed model list blocks the tests that use it', async () => {
    const speak = await fileWhose('models');
    expect(classify(thrownBy(() => speak.model)).kind).toBe('setup');
  });
});
