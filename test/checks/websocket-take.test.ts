/**
 * The take checks of the websocket suite on hand-made requests: each passes a right one and throws
 * a Finding that names the fault for a wrong one.
 */
import { describe, expect, it } from 'vitest';
import {
  assertAudioStreamed,
  assertDistinctTakes,
  assertDurationInSamples,
  assertErrorNamesRequest,
  assertMultipartProgress,
  assertReadyTake,
  assertSampleRateOfInfo,
  assertStartedAnnounced,
  assertStillOpen,
  assertTakeInRest,
  assertTakeMessagesOfRequest,
  assertTakeMessagesSent,
  takeStatuses,
} from '../../src/checks/websocket-take.ts';
import type { ReassembledTake } from '../../src/client/reassembler.ts';
import type { TakeMessage } from '../../src/client/ws-stream.ts';
import { findingOf } from '../support/finding-of.ts';

const message = (seq: number, data: Record<string, unknown>): TakeMessage =>
  ({ seq, atMs: seq, raw: { request_id: 1, data }, data }) as TakeMessage;

const TAKE = { take_id: 't1', text: 'Hello.', voice_id: 'v1' };

describe('assertReadyTake', () => {
  it('returns the last Take when it is ready', () => {
    const take = { ...TAKE, status: 'ready' };
    expect(assertReadyTake({ requestId: 1, lastTake: take })).toBe(take);
  });

  it('names the status of a last Take that is not ready, or its absence', () => {
    expect(findingOf(() => assertReadyTake({ requestId: 'a', lastTake: { status: 'error' } })).message).toBe(
      'request "a": the last Take message has status "error", expected "ready"',
    );
    expect(findingOf(() => assertReadyTake({ requestId: 2, lastTake: undefined })).message).toMatch(
      /status null/,
    );
  });
});

describe('status messages', () => {
  const r = {
    takeMessages: ['waiting', 'started', 'progress_50', 'ready'].map((s, i) => message(i, { status: s })),
  };

  it('reads the statuses in arrival order', () => {
    expect(takeStatuses(r)).toEqual(['waiting', 'started', 'progress_50', 'ready']);
  });

  it('wants `started` announced', () => {
    expect(() => assertStartedAnnounced(takeStatuses(r), 'parts mode')).not.toThrow();
    expect(findingOf(() => assertStartedAnnounced(['waiting', 'ready'], 'parts mode')).message).toBe(
      'parts mode: the Take messages went waiting → ready, without `started`: a status change was not sent',
    );
  });

  it('wants started, then progress_50, then ready for a multi-part take', () => {
    expect(() => assertMultipartProgress(takeStatuses(r), 3, 'chunks mode')).not.toThrow();
    for (const wrong of [
      ['waiting', 'started', 'ready'],
      ['waiting', 'progress_50', 'started', 'ready'],
      ['started', 'ready', 'progress_50'],
    ]) {
      expect(findingOf(() => assertMultipartProgress(wrong, 3, 'chunks mode')).message).toMatch(
        /^chunks mode: a take sent in 3 parts went .*; expected started, then progress_50, then ready$/,
      );
    }
  });
});

describe('assertTakeMessagesOfRequest', () => {
  it("passes messages about this request's take and names one about another", () => {
    const asked = { text: 'Hello.', voiceId: 'v1' };
    expect(() =>
      assertTakeMessagesOfRequest({ takeId: 't1', takeMessages: [message(1, TAKE)] }, asked),
    ).not.toThrow();
    const f = findingOf(() =>
      assertTakeMessagesOfRequest(
        { takeId: 't1', takeMessages: [message(1, TAKE), message(2, { ...TAKE, text: 'Other.' })] },
        asked,
      ),
    );
    expect(f.message).toContain("Take message #2 is not this request's take");
    expect(f.facts.where).toBe('message #2');
  });
});

describe('assertTakeInRest', () => {
  const take = { ...TAKE, status: 'ready', done_webhook: 'http://h/done' };

  it('passes a listed take whose GET equals it, webhook bookkeeping aside', () => {
    const fetched = { ...take, done_webhook: { post_url: 'http://h/done', status_code: 200 } };
    expect(() => assertTakeInRest(take, [{ take_id: 't0' }, { take_id: 't1' }], fetched)).not.toThrow();
  });

  it('names a take missing from the list, and the first field GET shows otherwise', () => {
    const missing = findingOf(() => assertTakeInRest(take, [{ take_id: 't0' }], take));
    expect(missing.message).toBe('take t1 made over the websocket is not in GET /v1/speak/takes?take_id=t1');
    expect(missing.facts.actual).toEqual(['t0']);
    expect(findingOf(() => assertTakeInRest(take, { detail: 'x' }, take)).facts.actual).toEqual({
      detail: 'x',
    });
    const differs = findingOf(() => assertTakeInRest(take, [{ take_id: 't1' }], { ...take, text: 'Other.' }));
    expect(differs.message).toMatch(/differs from the websocket's ready Take at \/text/);
    const info = findingOf(() =>
      assertTakeInRest({ ...take, info: { duration: 5 } }, [{ take_id: 't1' }], {
        ...take,
        info: { duration: 6 },
      }),
    );
    expect(info.message).toMatch(/at \/info\/duration/);
  });

  it('leaves what the requirement does not speak of to the server: a timestamp per message', () => {
    const stamped = { ...take, timestamp_ms: 2_000 };
    expect(() =>
      assertTakeInRest(stamped, [{ take_id: 't1' }], { ...take, timestamp_ms: 1_000 }),
    ).not.toThrow();
  });
});

describe('samples against info', () => {
  it('wants info.duration samples at info.audio_rate', () => {
    const info = { duration: 1000, audio_rate: 22050 };
    expect(() =>
      assertDurationInSamples({ totalSamples: 1000, sampleRate: 22050 }, info, 't1'),
    ).not.toThrow();
    expect(
      findingOf(() => assertDurationInSamples({ totalSamples: 999, sampleRate: 22050 }, info, 't1')).message,
    ).toBe('take t1: the stream holds 999 samples at 22050 Hz, info says duration 1000 at 22050 Hz');
    expect(() => assertSampleRateOfInfo(22050, info, '"x" (parts)')).not.toThrow();
    expect(findingOf(() => assertSampleRateOfInfo(16000, info, '"x" (parts)')).message).toBe(
      '"x" (parts): stream sampled at 16000 Hz, info.audio_rate 22050 Hz',
    );
  });
});

describe('assertErrorNamesRequest', () => {
  const error = (json: unknown) => ({ json, text: JSON.stringify(json) });

  it('passes an error status naming the request', () => {
    expect(() =>
      assertErrorNamesRequest(error({ status: 'error', request_id: 'r1' }), 'r1', 'bad command'),
    ).not.toThrow();
    expect(() => assertErrorNamesRequest(error({ status: 'error' }), undefined, 'bad JSON')).not.toThrow();
  });

  it('names an answer that is no error, and an error naming another request', () => {
    expect(
      findingOf(() => assertErrorNamesRequest(error({ status: 'ok' }), 'r1', 'bad command')).message,
    ).toBe('bad command: answered {"status":"ok"}, expected status "error"');
    expect(
      findingOf(() => assertErrorNamesRequest(error({ status: 'error', request_id: 7 }), 'r1', 'bad command'))
        .message,
    ).toBe('bad command: the error message names request_id 7, expected "r1"');
  });
});

describe('assertStillOpen and assertDistinctTakes', () => {
  it('names how the worker closed the connection', () => {
    expect(() => assertStillOpen({ open: true }, 'bad JSON')).not.toThrow();
    expect(
      findingOf(() => assertStillOpen({ open: false, closeInfo: { code: 1011, reason: 'boom' } }, 'bad JSON'))
        .message,
    ).toBe('the worker closed the connection after bad JSON (code 1011, "boom")');
  });

  it('wants one take per connection', () => {
    expect(() => assertDistinctTakes([{ takeId: 'a' }, { takeId: 'b' }, { takeId: 'c' }])).not.toThrow();
    const f = findingOf(() => assertDistinctTakes([{ takeId: 'a' }, { takeId: 'a' }, { takeId: 'c' }]));
    expect(f.message).toBe('the 3 connections got takes ["a","c"]');
    expect(f.facts).toMatchObject({ expected: 3, actual: 2 });
  });
});

describe('something was sent', () => {
  it('wants Take messages and an audio part', () => {
    expect(() => assertTakeMessagesSent({ takeMessages: [message(1, TAKE)] }, 'parts mode')).not.toThrow();
    expect(findingOf(() => assertTakeMessagesSent({ takeMessages: [] }, 'parts mode')).message).toBe(
      'parts mode: no Take text message at all',
    );
    const parts = (n: number) => ({
      reassembly: { parts: Array.from({ length: n }) } as unknown as ReassembledTake,
    });
    expect(() => assertAudioStreamed(parts(1), 'chunks mode')).not.toThrow();
    expect(findingOf(() => assertAudioStreamed(parts(0), 'chunks mode')).message).toBe(
      'chunks mode: the take streamed no audio part',
    );
  });
});
