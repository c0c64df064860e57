import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planWebhookSink, WebhookSink } from '../../src/client/webhook-sink.ts';

let sink: WebhookSink;
beforeAll(async () => {
  sink = await WebhookSink.start();
});
afterAll(async () => {
  await sink.close();
});

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: signal ?? AbortSignal.timeout(5_000),
  });

describe('webhook sink', () => {
  it('matches calls to their token and hook and records them', async () => {
    const a = sink.newToken();
    const b = sink.newToken();
    expect((await post(a.url('status'), { status: 'started' })).status).toBe(200);
    expect((await post(b.url('done'), { status: 'ready' })).status).toBe(200);
    expect((await post(`${sink.publicUrl}/hooks/unknown/done`, {})).status).toBe(404);
    const calls = await sink.waitForCalls(a.token, (c) => c.length === 1, 1_000);
    expect(calls[0]).toMatchObject({ hook: 'status', index: 1, method: 'POST', json: { status: 'started' } });
    expect(calls[0]!.headers['content-type']).toBe('application/json');
    expect(sink.calls(b.token, 'done')).toHaveLength(1);
    expect(sink.calls(b.token, 'status')).toHaveLength(0);
    expect(sink.strays().map((s) => s.path)).toEqual(['/hooks/unknown/done']);
  });

  it('finds the token behind a path prefix (a tunnel that keeps its prefix)', async () => {
    const t = sink.newToken();
    expect(
      (await post(`${sink.listenUrl}/tunnel/abc/hooks/${t.token}/done`, { status: 'ready' })).status,
    ).toBe(200);
    expect(sink.calls(t.token, 'done')).toHaveLength(1);
  });

  it('answers 500 to the first N calls, then 200', async () => {
    const t = sink.newToken({ failFirst: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(t.url('done'), { i })).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(sink.calls(t.token).map((c) => c.answeredStatus)).toEqual([500, 500, 200]);
  });

  it('answers slowly when told to, but records the arrival at once', async () => {
    const t = sink.newToken({ delayMs: 400 });
    const start = Date.now();
    const answered = post(t.url('status'), {}).then(() => Date.now() - start);
    const [call] = await sink.waitForCalls(t.token, (c) => c.length === 1, 1_000);
    expect(call!.receivedMs - start).toBeLessThan(300);
    expect(await answered).toBeGreaterThanOrEqual(380);
  });

  it('rejects a bounded wait with what did arrive', async () => {
    const t = sink.newToken();
    await post(t.url('status'), { status: 'started' });
    await expect(sink.waitForCalls(t.token, (c) => c.length === 2, 200)).rejects.toThrow(
      /did not arrive within 200 ms \(arrived: status:started\)/,
    );
  });
});

describe('webhook sink plan', () => {
  it('listens on loopback for a server on this machine', () => {
    expect(planWebhookSink({ baseUrl: 'http://127.0.0.1:8080' }, {})).toEqual({
      reachable: true,
      options: { host: '127.0.0.1', port: 0 },
    });
    expect(
      planWebhookSink({ baseUrl: 'http://localhost:1' }, { SPEAK_WEBHOOK_LISTEN: '127.0.0.1:9100' }),
    ).toEqual({
      reachable: true,
      options: { host: '127.0.0.1', port: 9100 },
    });
  });

  it('skips with a reason for a remote server without --webhook-url, and uses the URL when given', () => {
    const plan = planWebhookSink({ baseUrl: 'https://speak.example.test' }, {});
    expect(plan.reachable).toBe(false);
    expect(!plan.reachable && plan.reason).toMatch(/--webhook-url/);
    expect(
      planWebhookSink(
        { baseUrl: 'https://speak.example.test', webhookUrl: 'https://hooks.example.test:8443' },
        {},
      ),
    ).toEqual({
      reachable: true,
      options: { host: '127.0.0.1', port: 8443, publicUrl: 'https://hooks.example.test:8443' },
    });
  });
});
