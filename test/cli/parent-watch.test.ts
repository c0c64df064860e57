/** serve's parent watch (issue 51 item 9): a changed parent pid is "gone"; init as parent is no parent to follow. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { onParentGone } from '../../src/cli/parent-watch.ts';

afterEach(() => vi.useRealTimers());

describe('onParentGone', () => {
  test('fires once when the parent pid changes (adopted by init or a subreaper)', () => {
    vi.useFakeTimers();
    let parent = 4242;
    const gone = vi.fn();
    onParentGone(gone, 1000, () => parent);
    vi.advanceTimersByTime(3000);
    expect(gone).not.toHaveBeenCalled();
    parent = 77; // a subreaper, not only init
    vi.advanceTimersByTime(1000);
    expect(gone).toHaveBeenCalledTimes(1);
    parent = 1;
    vi.advanceTimersByTime(5000);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  test('a process whose parent is already init (a container entry point) is never stopped by the watch', () => {
    vi.useFakeTimers();
    const gone = vi.fn();
    onParentGone(gone, 1000, () => 1);
    vi.advanceTimersByTime(10_000);
    expect(gone).not.toHaveBeenCalled();
  });

  test('the returned stop ends the watch', () => {
    vi.useFakeTimers();
    let parent = 10;
    const gone = vi.fn();
    const stop = onParentGone(gone, 1000, () => parent);
    stop();
    parent = 1;
    vi.advanceTimersByTime(5000);
    expect(gone).not.toHaveBeenCalled();
  });
});
