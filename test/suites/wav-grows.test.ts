/**
 * AUDIO-WAV-GROWS (INFO): a wav stream that ended before its take was done is reported only when a
 * poll sent after the stream's end still saw the take in progress, never for a poll's own delay.
 */
import { expect, test } from 'vitest';
import { streamEndedInProgress } from '../../suites/support/audio-before-ready.ts';

/** Polls answered at `times` (ms) with `statuses`. */
const polled = (statuses: string[], times: number[]) => ({
  snapshots: statuses.map((status) => ({ status })),
  times,
});

test('a poll sent after the stream ended that saw the take in progress: the stream ended early', () => {
  // Answered at 100 (started), 200 (progress_50), then done at 300. The stream ended at 150: the
  // poll answered at 200 was sent after 100, perhaps before 150, so it proves nothing.
  expect(
    streamEndedInProgress(150, polled(['started', 'progress_50', 'ready'], [100, 200, 300])),
  ).toBeUndefined();
  // The stream ended at 90: the poll answered at 200 was sent after 100, after the end.
  expect(streamEndedInProgress(90, polled(['started', 'progress_50', 'ready'], [100, 200, 300]))).toEqual({
    status: 'progress_50',
    afterMs: 10,
  });
});

test("the stream ending before the poll that saw done, a poll's interval later: nothing is known", () => {
  expect(
    streamEndedInProgress(250, polled(['started', 'progress_75', 'ready'], [100, 200, 900])),
  ).toBeUndefined();
  expect(streamEndedInProgress(50, polled(['ready'], [100]))).toBeUndefined();
  expect(streamEndedInProgress(undefined, polled(['started', 'ready'], [100, 200]))).toBeUndefined();
});
