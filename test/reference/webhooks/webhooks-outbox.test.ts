/**
 * The webhook outbox and delivery loop on their own: events are fed by hand (as the item event
 * tail would feed them), calls go over the network to the harness's sink. The end-to-end test
 * through the whole stack is webhooks.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookSourceEvent } from '../../../reference/webhooks/from-item-events.ts';
import {
  type ItemEventSource,
  startWebhooks,
  type Webhooks,
  withLastWebhookCalls,
} from '../../../reference/webhooks/index.ts';
import { WebhookOutbox } from '../../../reference/webhooks/outbox-store.ts';
import { isLoopbackTarget, webhookTargetRefusal } from '../../../reference/webhooks/target.ts';
import { statusOf, WebhookSink } from '../../../src/client/webhook-sink.ts';

const FAST_RETRY = { baseDelayMs: 100, maxDelayMs: 400, maxAttempts: 4, callTimeoutMs: 1_000 };

class HandFedEvents implements ItemEventSource {
  handler: ((e: WebhookSourceEvent) => void | Promise<void>) | undefined;
  seq = 0;
  subscribe(_name: string, handler: (e: WebhookSourceEvent) => void | Promise<void>): void {
    this.handler = handler;
  }
  emit(kind: 'take' | 'voice', body: Record<string, unknown> & { status: string }, seq?: number): void {
    this.seq = seq ?? this.seq + 1;
    const id = String(body.take_id ?? body.voice_id);
    void this.handler?.({
      seq: this.seq,
      kind,
      itemId: id,
      status: body.status,
      body,
      createdMs: Date.now(),
    });
  }
}

let dir: string;
let sink: WebhookSink;
const open: { db: BetterSqlite3.Database; webhooks: Webhooks }[] = [];
let databases = 0;

function start(events: HandFedEvents, dbFile = join(dir, `db-${++databases}.sqlite`)) {
  const db = new BetterSqlite3(dbFile);
  const webhooks = startWebhooks({ db, events, policy: FAST_RETRY, allow: 'loopback' });
  const entry = { db, webhooks };
  open.push(entry);
  return { ...entry, dbFile };
}

async function stop(entry: { db: BetterSqlite3.Database; webhooks: Webhooks }): Promise<void> {
  await entry.webhooks.close();
  entry.db.close();
  open.splice(open.indexOf(entry), 1);
}

function take(id: string, status: string, hooks: { status?: unknown; done?: unknown }) {
  return {
    take_id: id,
    voice_id: 'v1',
    text: 'Hello.',
    status,
    status_webhook: hooks.status ?? null,
    done_webhook: hooks.done ?? null,
    info: status === 'ready' ? { duration: 100, audio_rate: 22050, normalized_text: ['Hello.'] } : null,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'speakcheck-webhooks-'));
  sink = await WebhookSink.start();
});
afterEach(async () => {
  for (const entry of [...open]) await stop(entry);
});
afterAll(async () => {
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook outbox', () => {
  it('posts every status in event order and the done hook once, in the SDK object form too', async () => {
    const events = new HandFedEvents();
    start(events);
    const t = sink.newToken();
    const hooks = { status: t.url('status'), done: { post_url: t.url('done') } };
    for (const status of ['waiting', 'started', 'progress_25', 'progress_50', 'progress_75', 'ready']) {
      events.emit('take', take('t1', status, hooks));
    }
    events.emit('take', take('t1', 'ready', hooks)); // a second done event must not call done again
    const calls = await sink.waitForCalls(
      t.token,
      (c) => c.filter((x) => x.hook === 'status').length === 7,
      5_000,
    );
    expect(calls.filter((c) => c.hook === 'status').map((c) => statusOf(c.json))).toEqual([
      'waiting',
      'started',
      'progress_25',
      'progress_50',
      'progress_75',
      'ready',
      'ready',
    ]);
    expect(sink.calls(t.token, 'done')).toHaveLength(1);
    expect(sink.calls(t.token, 'done')[0]?.headers['content-type']).toBe('application/json');
    expect(sink.calls(t.token, 'done')[0]?.json).toMatchObject({ take_id: 't1', status: 'ready' });
  });

  it('retries after a 500 and records the last call', async () => {
    const events = new HandFedEvents();
    const { webhooks, db } = start(events);
    const t = sink.newToken({ failFirst: 2 });
    events.emit('take', take('t2', 'ready', { done: t.url('done') }));
    const calls = await sink.waitForCalls(t.token, (c) => c.length === 3, 5_000);
    expect(calls.map((c) => c.answeredStatus)).toEqual([500, 500, 200]);
    expect(calls[1]!.receivedMs - calls[0]!.receivedMs).toBeGreaterThanOrEqual(90);
    await expect
      .poll(() => webhooks.lastCall('take', 't2', 'done')?.status_code, { timeout: 2_000 })
      .toBe(200);
    expect(webhooks.lastCall('take', 't2', 'done')?.post_url).toBe(t.url('done'));
    // The serializer's view: the SDK form shows the last call, a URL string stays as given.
    const shown = withLastWebhookCalls(db, 'take', {
      take_id: 't2',
      done_webhook: { post_url: t.url('done') },
      status_webhook: t.url('status'),
    });
    expect(shown.done_webhook).toEqual({
      post_url: t.url('done'),
      timestamp_ms: expect.any(Number),
      status_code: 200,
    });
    const sentMs = (shown.done_webhook as { timestamp_ms: number }).timestamp_ms;
    expect(calls[2]!.receivedMs - sentMs).toBeGreaterThanOrEqual(0);
    expect(calls[2]!.receivedMs - sentMs).toBeLessThan(1_000);
    expect(shown.status_webhook).toBe(t.url('status'));
  });

  it('gives up after the bounded number of attempts', async () => {
    const events = new HandFedEvents();
    const { db } = start(events);
    const t = sink.newToken({ failFirst: 100 });
    events.emit('take', take('t3', 'ready', { done: t.url('done') }));
    await sink.waitForCalls(t.token, (c) => c.length === FAST_RETRY.maxAttempts, 5_000);
    const outbox = new WebhookOutbox(db);
    await expect.poll(() => outbox.deliveriesOf('take', 't3')[0]?.state, { timeout: 2_000 }).toBe('failed');
    expect(outbox.deliveriesOf('take', 't3')[0]?.attempts).toBe(FAST_RETRY.maxAttempts);
  });

  it('keeps pending deliveries across a restart and does not repeat a replayed event', async () => {
    const events = new HandFedEvents();
    const first = start(events);
    const down = await WebhookSink.start();
    const deadUrl = `${down.listenUrl}/hooks/nobody/done`;
    await down.close(); // nothing listens there now: connection refused
    events.emit('take', take('t4', 'ready', { done: deadUrl }));
    const outbox = new WebhookOutbox(first.db);
    await expect
      .poll(() => outbox.deliveriesOf('take', 't4')[0]?.attempts ?? 0, { timeout: 3_000 })
      .toBeGreaterThan(0);
    await stop(first);

    // Same database, the hook now points at a live sink: rewrite the stored URL as if the sink came back.
    const t = sink.newToken();
    const db = new BetterSqlite3(first.dbFile);
    db.prepare('UPDATE webhook_deliveries SET url = ? WHERE item_id = ?').run(t.url('done'), 't4');
    db.close();
    const again = new HandFedEvents();
    start(again, first.dbFile);
    again.emit('take', take('t4', 'ready', { done: t.url('done') }), 1); // replayed event: seq 1 again
    const calls = await sink.waitForCalls(t.token, (c) => c.length >= 1, 5_000);
    expect(calls[0]?.json).toMatchObject({ take_id: 't4', status: 'ready' });
    await new Promise((r) => setTimeout(r, 300)); // a duplicate would arrive well within this
    expect(sink.calls(t.token)).toHaveLength(1);
  });

  it('catches up on item events recorded before it started', async () => {
    const t = sink.newToken();
    const dbFile = join(dir, 'catch-up.sqlite');
    const db = new BetterSqlite3(dbFile);
    db.exec(`CREATE TABLE item_events (seq INTEGER PRIMARY KEY, kind TEXT, item_id TEXT, user_id TEXT,
      status TEXT, body TEXT, created_ms INTEGER)`);
    const insert = db.prepare('INSERT INTO item_events VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert.run(
      1,
      'take',
      't7',
      'u',
      'started',
      JSON.stringify(take('t7', 'started', { status: t.url('status') })),
      1,
    );
    insert.run(
      2,
      'take',
      't7',
      'u',
      'ready',
      JSON.stringify(take('t7', 'ready', { status: t.url('status') })),
      2,
    );
    db.close();
    const events = new HandFedEvents();
    start(events, dbFile);
    events.emit('take', take('t7', 'ready', { status: t.url('status') }), 2); // the tail replays: ignored
    const calls = await sink.waitForCalls(t.token, (c) => c.length === 2, 3_000);
    expect(calls.map((c) => statusOf(c.json))).toEqual(['started', 'ready']);
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.calls(t.token)).toHaveLength(2);
  });

  it('does not let a slow sink hold up other items', async () => {
    const events = new HandFedEvents();
    start(events);
    const slow = sink.newToken({ delayMs: 800 });
    const fast = sink.newToken();
    events.emit('take', take('t5', 'ready', { done: slow.url('done') }));
    const before = Date.now();
    events.emit('take', take('t6', 'ready', { done: fast.url('done') }));
    const [call] = await sink.waitForCalls(fast.token, (c) => c.length === 1, 2_000);
    expect(call!.receivedMs - before).toBeLessThan(600);
  });

  it('sends a voice done hook only once its example take is done', async () => {
    const events = new HandFedEvents();
    start(events);
    const t = sink.newToken();
    const exampleWaiting = take('ex1', 'started', {});
    events.emit('voice', {
      voice_id: 'v9',
      status: 'ready',
      example_take_id: 'ex1',
      example_take: exampleWaiting,
      done_webhook: t.url('done'),
      status_webhook: null,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.calls(t.token)).toHaveLength(0);
    events.emit('take', take('ex1', 'ready', {}));
    const [call] = await sink.waitForCalls(t.token, (c) => c.length === 1, 3_000);
    expect(call?.json).toMatchObject({ voice_id: 'v9', example_take: { take_id: 'ex1', status: 'ready' } });
  });
});

describe('webhook targets', () => {
  it('refuses what --webhook-allow excludes', () => {
    expect(webhookTargetRefusal('http://127.0.0.1:9/x', 'loopback')).toBeNull();
    expect(webhookTargetRefusal('http://[::1]:9/x', 'loopback')).toBeNull();
    expect(webhookTargetRefusal('http://localhost:9/x', 'loopback')).toBeNull();
    expect(webhookTargetRefusal('http://example.test/x', 'loopback')).toMatch(/not loopback/);
    expect(webhookTargetRefusal('http://example.test/x', 'any')).toBeNull();
    expect(webhookTargetRefusal('http://127.0.0.1:9/x', 'none')).toMatch(/disabled/);
    expect(webhookTargetRefusal('ftp://127.0.0.1/x', 'any')).toMatch(/scheme/);
    expect(isLoopbackTarget('http://127.0.0.2/')).toBe(true);
  });
});
