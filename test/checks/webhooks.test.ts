import { describe, expect, it } from 'vitest';
import { isFinding } from '../../src/checks/finding.ts';
import {
  assertWebhookBodyMatchesGet,
  firstDifference,
  formatTimeline,
  statusChanges,
  withoutWebhookBookkeeping,
} from '../../src/checks/webhooks.ts';

const take = {
  take_id: 't1',
  status: 'ready',
  info: { duration: 100, audio_rate: 22050, normalized_text: ['Hi.'] },
  status_webhook: null,
  done_webhook: { post_url: 'http://127.0.0.1:1/hooks/x/done', timestamp_ms: null, status_code: null },
};

describe('webhook checks', () => {
  it('accepts a body equal to GET apart from the last-call bookkeeping', () => {
    const fetched = { ...take, done_webhook: { ...take.done_webhook, timestamp_ms: 5, status_code: 200 } };
    expect(() => assertWebhookBodyMatchesGet(take, fetched, 'take t1')).not.toThrow();
    expect(withoutWebhookBookkeeping(fetched)).toEqual({
      ...take,
      done_webhook: 'http://127.0.0.1:1/hooks/x/done',
    });
  });

  it('names the first differing pointer with both values', () => {
    const fetched = { ...take, info: { ...take.info, duration: 101 } };
    let error: unknown;
    try {
      assertWebhookBodyMatchesGet(take, fetched, 'take t1');
    } catch (e) {
      error = e;
    }
    expect(isFinding(error)).toBe(true);
    expect((error as Error).message).toBe(
      'take t1: the webhook body differs from GET made right after at /info/duration: webhook 100, GET 101',
    );
  });

  it('sees a missing field, a changed status and an array of another length', () => {
    expect(firstDifference({ a: 1 }, { a: 1, b: null })).toEqual({ pointer: '/b', a: undefined, b: null });
    expect(firstDifference({ status: 'progress_75' }, { status: 'ready' })?.pointer).toBe('/status');
    expect(firstDifference({ n: ['a'] }, { n: ['a', 'b'] })?.pointer).toBe('/n/1');
    expect(firstDifference([1], { 0: 1 })?.pointer).toBe('/');
  });

  it('reduces polled observations to changes and prints them relative to the start', () => {
    const polled = [
      { atMs: 1_000, status: 'waiting' },
      { atMs: 1_200, status: 'waiting' },
      { atMs: 1_400, status: 'started' },
      { atMs: 2_000, status: 'ready' },
    ];
    expect(formatTimeline(1_000, statusChanges(polled))).toBe(
      'waiting +0 ms → started +400 ms → ready +1000 ms',
    );
    expect(formatTimeline(0, [])).toBe('(none)');
  });
});
