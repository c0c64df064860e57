/**
 * Webhook delivery of the reference stack, end to end over the network: `speakcheck serve` in a
 * child process, a node:http sink (the harness's) on loopback, and the stack's REST API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databasePath } from '../../../reference/store/db.ts';
import { assertStatusOrder, isDone } from '../../../src/checks/status.ts';
import { statusOf, WebhookSink } from '../../../src/client/webhook-sink.ts';
import { type Session, type Stack, startStack } from '../stack.ts';

const TEXT = 'The first sentence is short. A second one follows it. And a third sentence ends the text.';
const READY_MS = 60_000;

type Api = Session;

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
}

async function pollUntilDone(api: Api, path: string): Promise<{ atMs: number; body: unknown }> {
  const deadline = Date.now() + READY_MS;
  for (;;) {
    const { json } = await api.get(path);
    if (isDone(String(field(json, 'status')))) return { atMs: Date.now(), body: json };
    if (Date.now() > deadline)
      throw new Error(`${path} not done within ${READY_MS} ms: ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function newVoice(
  api: Api,
  extra: Record<string, unknown> = {},
): Promise<{ voiceId: string; body: unknown }> {
  const models = await api.get('/v1/speak/models');
  const model = (models.json as { name: string; genders: string[] }[])[0]!;
  const created = await api.post('/v1/speak/voices/generate', {
    name: 'webhooks-test',
    gender: model.genders[0] ?? 'female',
    model: model.name,
    ...extra,
  });
  expect(created.status).toBe(200);
  return { voiceId: String(field(created.json, 'voice_id')), body: created.json };
}

async function newTake(api: Api, voiceId: string, extra: Record<string, unknown>): Promise<string> {
  const created = await api.post('/v1/speak/takes/generate', { voice_id: voiceId, text: TEXT, ...extra });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  return String(field(created.json, 'take_id'));
}

/** A take's done call as the stack's outbox holds it (read-only look at its database). */
function doneDelivery(data: string, takeId: string): { attempts: number; state: string } | undefined {
  const db = new BetterSqlite3(databasePath(data), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        "SELECT attempts, state FROM webhook_deliveries WHERE kind = 'take' AND item_id = ? AND hook = 'done'",
      )
      .get(takeId) as { attempts: number; state: string } | undefined;
  } finally {
    db.close();
  }
}

/** Attempts made so far for a take's done call. */
function attemptsOf(data: string, takeId: string): number {
  return doneDelivery(data, takeId)?.attempts ?? 0;
}

let dir: string;
let sink: WebhookSink;
const started: Stack[] = [];

async function serve(data: string, allow = 'loopback'): Promise<Stack> {
  const stack = await startStack(['--data', data, '--webhook-allow', allow]);
  started.push(stack);
  return stack;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-webhooks-e2e-'));
  sink = await WebhookSink.start();
});
afterEach(async () => {
  for (const stack of started.splice(0)) await stack.stop();
});
afterAll(async () => {
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reference webhooks', () => {
  let stack: Stack;
  let api: Api;
  let voiceId: string;

  beforeAll(async () => {
    stack = await startStack(['--data', join(dir, 'shared'), '--webhook-allow', 'loopback']);
    api = await stack.login();
    voiceId = (await newVoice(api)).voiceId;
    await pollUntilDone(api, `/v1/speak/voices/${voiceId}`);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('posts status changes in order and done once, after the audio is fetchable', async () => {
    const t = sink.newToken();
    const takeId = await newTake(api, voiceId, {
      status_webhook: t.url('status'),
      done_webhook: t.url('done'),
    });
    const atDone = sink
      .waitForCalls(t.token, (c) => c.some((x) => x.hook === 'done'), READY_MS)
      .then(async () => {
        // Right when the done call arrives, every format must be there.
        const formats: Record<string, number> = {};
        for (const format of ['wav', 'mp3', 'flac']) {
          const redirect = await api.get(`/v1/speak/takes/${takeId}/${format}`);
          const location = redirect.headers.get('location');
          formats[format] = location
            ? (await fetch(location, { signal: AbortSignal.timeout(15_000) })).status
            : redirect.status;
        }
        return formats;
      });
    const polled = await pollUntilDone(api, `/v1/speak/takes/${takeId}`);
    expect(field(polled.body, 'status')).toBe('ready');
    expect(await atDone).toEqual({ wav: 200, mp3: 200, flac: 200 });
    const calls = await sink.waitForCalls(
      t.token,
      (c) => c.some((x) => x.hook === 'status' && statusOf(x.json) === 'ready'),
      5_000,
    );
    const statuses = calls.filter((c) => c.hook === 'status').map((c) => statusOf(c.json));
    assertStatusOrder(statuses, `take ${takeId} status calls`);
    expect(statuses[0]).toBe('waiting');
    expect(statuses.at(-1)).toBe('ready');
    expect(statuses).toContain('started');
    // A second done call would come right away; give it a moment to show up.
    await sink
      .waitForCalls(t.token, (c) => c.filter((x) => x.hook === 'done').length > 1, 1_500)
      .catch(() => undefined);
    const done = sink.calls(t.token, 'done');
    expect(done).toHaveLength(1);
    expect(done[0]!.json).toMatchObject({ take_id: takeId, status: 'ready' });
    expect(field(done[0]!.json, 'info')).not.toBeNull();
  });

  it('accepts the SDK form {"post_url"} and calls post_url', async () => {
    const t = sink.newToken();
    const takeId = await newTake(api, voiceId, { done_webhook: { post_url: t.url('done') } });
    const [call] = await sink.waitForCalls(t.token, (c) => c.length === 1, READY_MS);
    expect(call!.json).toMatchObject({
      take_id: takeId,
      status: 'ready',
      done_webhook: { post_url: t.url('done') },
    });
  });

  it('shows a {"post_url"} hook with its last call: null before it, filled after, on GET and list', async () => {
    const t = sink.newToken({ failFirst: 1 });
    const statusSink = sink.newToken();
    const before = Date.now();
    const created = await api.post('/v1/speak/takes/generate', {
      voice_id: voiceId,
      text: TEXT,
      status_webhook: statusSink.url('status'),
      done_webhook: { post_url: t.url('done') },
    });
    expect(created.status).toBe(200);
    const takeId = String(field(created.json, 'take_id'));
    // A URL string stays as given; the object form gets its (still empty) call record.
    expect(created.json).toMatchObject({
      status_webhook: statusSink.url('status'),
      done_webhook: { post_url: t.url('done'), timestamp_ms: null, status_code: null },
    });
    // The first done call is answered 500, the retry 200: the record is of the last call.
    await sink.waitForCalls(t.token, (c) => c.length === 2, READY_MS + 10_000);
    const path = `/v1/speak/takes/${takeId}`;
    await expect
      .poll(async () => field(field((await api.get(path)).json, 'done_webhook'), 'status_code'), {
        timeout: 5_000,
      })
      .toBe(200);
    const take = (await api.get(path)).json;
    const hook = field(take, 'done_webhook') as Record<string, unknown>;
    expect(Object.keys(hook).sort()).toEqual(['post_url', 'status_code', 'timestamp_ms']);
    expect(hook.post_url).toBe(t.url('done'));
    const retry = sink.calls(t.token, 'done')[1]!;
    expect(hook.timestamp_ms).toBeGreaterThanOrEqual(before);
    expect(hook.timestamp_ms).toBeLessThanOrEqual(retry.receivedMs);
    expect(field(take, 'status_webhook')).toBe(statusSink.url('status'));
    const listed = await api.get(`/v1/speak/takes?take_id=${takeId}`);
    expect(listed.json).toEqual([take]);
  }, 150_000);

  it('shows a voice\'s {"post_url"} done hook with its last call', async () => {
    const t = sink.newToken();
    const { voiceId: id, body } = await newVoice(api, { done_webhook: { post_url: t.url('done') } });
    expect(body).toMatchObject({
      status_webhook: null,
      done_webhook: { post_url: t.url('done'), timestamp_ms: null, status_code: null },
    });
    await sink.waitForCalls(t.token, (c) => c.length === 1, READY_MS);
    const path = `/v1/speak/voices/${id}`;
    await expect
      .poll(async () => field((await api.get(path)).json, 'done_webhook'), { timeout: 5_000 })
      .toMatchObject({ post_url: t.url('done'), timestamp_ms: expect.any(Number), status_code: 200 });
    const listed = await api.get(`/v1/speak/voices?voice_id=${id}`);
    expect(field((listed.json as unknown[])[0], 'done_webhook')).toMatchObject({ status_code: 200 });
  });

  it('retries a done call answered with 500', async () => {
    const t = sink.newToken({ failFirst: 1 });
    await newTake(api, voiceId, { done_webhook: t.url('done') });
    const calls = await sink.waitForCalls(t.token, (c) => c.length === 2, READY_MS + 10_000);
    expect(calls.map((c) => c.answeredStatus)).toEqual([500, 200]);
    expect(calls[1]!.receivedMs - calls[0]!.receivedMs).toBeGreaterThanOrEqual(900); // first backoff: 1 s
    expect(calls[1]!.text).toBe(calls[0]!.text);
  });

  it("calls a voice's done hook after its example take is ready", async () => {
    const t = sink.newToken();
    const { voiceId: id } = await newVoice(api, {
      done_webhook: t.url('done'),
      example_take: { text: 'This is how the new voice sounds.' },
    });
    const [call] = await sink.waitForCalls(t.token, (c) => c.length === 1, READY_MS);
    const exampleId = field(call!.json, 'example_take_id');
    expect(typeof exampleId).toBe('string');
    const example = await api.get(`/v1/speak/takes/${String(exampleId)}`);
    expect(field(example.json, 'status')).toBe('ready');
    expect(call!.json).toMatchObject({ voice_id: id });
    expect(isDone(statusOf(call!.json))).toBe(true);
  });

  it('does not let a slow sink delay ready', async () => {
    const startBaseline = Date.now();
    const baselineId = await newTake(api, voiceId, {});
    const baselineMs = (await pollUntilDone(api, `/v1/speak/takes/${baselineId}`)).atMs - startBaseline;

    const t = sink.newToken({ delayMs: 4_000 });
    const start = Date.now();
    const takeId = await newTake(api, voiceId, {
      status_webhook: t.url('status'),
      done_webhook: t.url('done'),
    });
    const slowMs = (await pollUntilDone(api, `/v1/speak/takes/${takeId}`)).atMs - start;
    // Waiting on the sink would cost 4 s per status call before ready (at least three of them);
    // half the baseline plus two delays are left for noise on a busy machine.
    expect(slowMs).toBeLessThan(baselineMs * 1.5 + 8_000);
  });
});

describe('reference webhooks across a restart', () => {
  it('delivers a done call that failed while the sink was down, after the stack restarts', async () => {
    const data = join(dir, 'restart');
    const first = await serve(data);
    const api = await first.login();
    const { voiceId } = await newVoice(api);
    await pollUntilDone(api, `/v1/speak/voices/${voiceId}`);

    // A port with nothing listening: the sink is "down".
    const probe = await WebhookSink.start();
    const port = Number(new URL(probe.listenUrl).port);
    const token = probe.newToken().token;
    await probe.close();
    const deadUrl = `http://127.0.0.1:${port}/hooks/${token}/done`;
    const takeId = await newTake(api, voiceId, { done_webhook: { post_url: deadUrl } });
    await pollUntilDone(api, `/v1/speak/takes/${takeId}`);
    // The first attempt has been made (and refused): the outbox in the data directory shows it.
    await expect.poll(() => attemptsOf(data, takeId), { timeout: 5_000 }).toBeGreaterThan(0);
    await first.stop();
    started.splice(started.indexOf(first), 1);

    const back = await WebhookSink.start({ port });
    try {
      const t = back.newToken({}, token);
      await serve(data);
      const [call] = await back.waitForCalls(t.token, (c) => c.length >= 1, 40_000);
      expect(call!.json).toMatchObject({ take_id: takeId, status: 'ready' });
    } finally {
      await back.close();
    }
  }, 150_000);
});

describe('reference webhooks with --webhook-allow none', () => {
  it('records the call as refused and sends nothing', async () => {
    const data = join(dir, 'none');
    const stack = await serve(data, 'none');
    const api = await stack.login();
    const { voiceId } = await newVoice(api);
    await pollUntilDone(api, `/v1/speak/voices/${voiceId}`);
    const t = sink.newToken();
    const takeId = await newTake(api, voiceId, {
      done_webhook: t.url('done'),
      status_webhook: t.url('status'),
    });
    await pollUntilDone(api, `/v1/speak/takes/${takeId}`);
    await expect.poll(() => doneDelivery(data, takeId)?.state, { timeout: 5_000 }).toBe('refused');
    expect(doneDelivery(data, takeId)?.attempts).toBe(0);
    expect(sink.calls(t.token)).toHaveLength(0);
  }, 120_000);
});
