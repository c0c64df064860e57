/**
 * Who deletes what a run made: a file deletes what it tracked at its end (takes first, each once;
 * a voice with its example take),
 * but an item a webhook window still speaks of is handed to the run's end (SettleEntry.item,
 * src/client/webhook-sink-control.ts) and deleted by the global teardown with the shared voice,
 * after the judge: a server may drop the calls still due for a deleted item, and the run's own
 * cleanup must not decide the window's verdict.
 */
import { afterEach, expect, test } from 'vitest';
import { closeHttp } from '../../src/client/http.ts';
import { resolveRunConfig } from '../../src/config/resolve.ts';
import { speakFile } from '../../src/harness/context.ts';
import { resolveRunPlan } from '../../src/harness/run-plan.ts';
import { generateSharedVoice } from '../../src/harness/shared-voice.ts';
import { type FakeServer, sendJson, startFakeServer } from '../support/fake-server.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeHttp();
});

async function planOfFakeServer() {
  const deletes: string[] = [];
  server = await startFakeServer((req, res) => {
    if (req.url === '/auth/login')
      return sendJson(res, 200, { access_token: 'acc-cleanup-aaaa', refresh_token: 'ref-cleanup-aaaa' });
    if (req.url === '/auth/logout') return sendJson(res, 200, {});
    if (req.url === '/v1/speak/models') return sendJson(res, 200, [{ name: 'm1', genders: ['female'] }]);
    if (req.url === '/v1/speak/voices/generate') return sendJson(res, 200, { voice_id: 'shared-v' });
    if (req.method === 'GET' && req.url?.startsWith('/v1/speak/voices/')) {
      const id = req.url.split('/').at(-1);
      return sendJson(res, 200, { voice_id: id, example_take_id: `example-of-${id}` });
    }
    if (req.method === 'DELETE') {
      deletes.push(req.url ?? '');
      return sendJson(res, 200, true);
    }
    sendJson(res, 404, { detail: 'unknown' });
  });
  const config = resolveRunConfig(
    { baseUrl: server.url, email: 'a@b.c', password: 'pw-123456' },
    {},
    new Date(),
  );
  return { plan: resolveRunPlan(config, undefined, undefined), deletes };
}

test('a file deletes what it tracked, takes first, each once, but not what it handed over', async () => {
  const { plan, deletes } = await planOfFakeServer();
  const file = speakFile();
  await file.open(plan);
  file.context.track('voice', 'v1');
  file.context.track('take', 't1');
  file.context.track('take', 't1');
  file.context.track('take', 't2');
  file.context.untrack('take', 't2'); // handed to the run's end
  await file.close();
  // The voice's example take too: the run made it, and a server may keep it after its voice.
  expect(deletes).toEqual(['/v1/speak/takes/t1', '/v1/speak/voices/v1', '/v1/speak/takes/example-of-v1']);
});

test('the run deletes the items handed to it, takes first, before its shared voice', async () => {
  const { plan, deletes } = await planOfFakeServer();
  const shared = await generateSharedVoice(plan);
  expect(shared.provided.ok).toBe(true);
  await shared.remove([
    { kind: 'voice', id: 'v9' },
    { kind: 'take', id: 't9' },
  ]);
  expect(deletes).toEqual([
    '/v1/speak/takes/t9',
    '/v1/speak/voices/v9',
    '/v1/speak/takes/example-of-v9',
    '/v1/speak/voices/shared-v',
    '/v1/speak/takes/example-of-shared-v',
  ]);
});
