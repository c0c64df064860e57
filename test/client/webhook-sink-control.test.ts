import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSink } from '../../src/client/webhook-sink.ts';
import { RemoteWebhookSink, SinkControl } from '../../src/client/webhook-sink-control.ts';

let sink: WebhookSink;
let control: SinkControl;
let remote: RemoteWebhookSink;

beforeAll(async () => {
  sink = await WebhookSink.start();
  control = await SinkControl.start(sink, 1);
  remote = new RemoteWebhookSink(control.url, sink.publicUrl);
});
afterAll(async () => {
  await control.close();
  await sink.close();
});

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });

describe('webhook sink control (the run sink seen from a worker)', () => {
  it('hands out tokens with their behaviour and reports their calls', async () => {
    const t = await remote.newToken({ failFirst: 1 });
    expect(t.url('done')).toBe(`${sink.publicUrl}/hooks/${t.token}/done`);
    expect((await post(t.url('done'), { status: 'ready' })).status).toBe(500);
    expect((await post(t.url('done'), { status: 'ready' })).status).toBe(200);
    const calls = await remote.calls(t.token);
    expect(calls.map((c) => [c.hook, c.answeredStatus])).toEqual([
      ['done', 500],
      ['done', 200],
    ]);
  });

  it('waits for calls event by event, bounded, and can be stopped', async () => {
    const t = await remote.newToken();
    const waiting = remote.waitForCalls(t.token, (calls) => calls.length === 2, 3_000);
    await post(t.url('status'), { status: 'started' });
    await post(t.url('done'), { status: 'ready' });
    expect((await waiting).map((c) => c.hook)).toEqual(['status', 'done']);
    const started = Date.now();
    await expect(remote.waitForCalls(t.token, (calls) => calls.length > 2, 300)).rejects.toThrow(
      /did not arrive within 300 ms \(arrived: status:started, done:ready\)/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    const stop = new AbortController();
    const stopped = remote.waitForCalls(t.token, () => false, 10_000, stop.signal);
    stop.abort();
    await expect(stopped).rejects.toThrow();
  });

  it('gives the filed entries once every producer has finished', async () => {
    const entry = {
      requirement: 'WEBHOOK-DONE-ONCE' as const,
      subject: 'take tk_1',
      token: 'abc',
      hook: 'done',
      expect: 'once' as const,
      fromMs: Date.now(),
      windowMs: 6_000,
    };
    await remote.settleLater(entry);
    expect(await remote.settleEntries(200)).toEqual({ entries: [entry], complete: false });
    const judged = remote.settleEntries(5_000);
    await remote.producerDone();
    expect(await judged).toEqual({ entries: [entry], complete: true });
  });

  it("hands the entries' items to the run, each once", async () => {
    const filed = (
      requirement: 'WEBHOOK-DONE-ONCE' | 'WEBHOOK-POST-JSON',
      item?: { kind: 'take'; id: string },
    ) =>
      remote.settleLater({
        requirement,
        subject: 'take tk_2',
        token: 'def',
        hook: 'done',
        expect: 'once',
        fromMs: Date.now(),
        windowMs: 2_500,
        ...(item ? { item } : {}),
      });
    await filed('WEBHOOK-DONE-ONCE', { kind: 'take', id: 'tk_2' });
    await filed('WEBHOOK-POST-JSON', { kind: 'take', id: 'tk_2' });
    await filed('WEBHOOK-POST-JSON');
    expect(control.handedOver()).toEqual([{ kind: 'take', id: 'tk_2' }]);
  });

  it('answers nothing without its secret', async () => {
    const base = control.url.replace(/\/[^/]+$/, '');
    expect((await fetch(`${base}/wrong/settle`)).status).toBe(404);
  });
});
