import { describe, expect, it } from 'vitest';
import { assertStatusOrder, distinctRuns, isDone } from '../../src/checks/status.ts';

describe('assertStatusOrder', () => {
  it('accepts forward sequences, with repeats and skipped states', () => {
    expect(() =>
      assertStatusOrder(['waiting', 'waiting', 'started', 'progress_50', 'ready', 'ready']),
    ).not.toThrow();
    expect(() => assertStatusOrder(['waiting', 'ready'])).not.toThrow();
    expect(() => assertStatusOrder(['waiting', 'progress_25', 'progress_75', 'error'])).not.toThrow();
    expect(() => assertStatusOrder(['started', 'timeout', 'timeout'])).not.toThrow();
  });

  it('rejects a sequence that goes backwards', () => {
    expect(() => assertStatusOrder(['waiting', 'progress_50', 'started'], 'take t1')).toThrow(
      /take t1: status went backwards from "progress_50" to "started"/,
    );
  });

  it('rejects leaving ready', () => {
    expect(() => assertStatusOrder(['waiting', 'ready', 'progress_75'])).toThrow(
      /left the done state "ready"/,
    );
  });

  it('rejects leaving error or timeout, even for ready', () => {
    expect(() => assertStatusOrder(['waiting', 'error', 'ready'])).toThrow(/left the done state "error"/);
    expect(() => assertStatusOrder(['timeout', 'waiting'])).toThrow(/done states are terminal/);
  });

  it('leaves statuses of no known rank out of the order (the contract lists the values seen)', () => {
    expect(() => assertStatusOrder(['waiting', 'processing', 'started', 'training', 'ready'])).not.toThrow();
    expect(() => assertStatusOrder(['started', 'processing', 'waiting'])).toThrow(
      /went backwards from "started"/,
    );
    expect(() => assertStatusOrder(['ready', 'processing', 'progress_75'])).toThrow(
      /left the done state "ready"/,
    );
  });

  it('knows the done states', () => {
    expect(['ready', 'error', 'timeout'].every(isDone)).toBe(true);
    expect(isDone('progress_75')).toBe(false);
    expect(distinctRuns(['waiting', 'waiting', 'ready', 'ready'])).toEqual(['waiting', 'ready']);
  });
});
