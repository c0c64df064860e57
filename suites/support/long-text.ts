/**
 * A text long enough that a take of it is still being generated a moment after it was accepted,
 * and longer versions of it: checks of a state that lasts only while a take is in progress (wav
 * streamed before ready, the take listed while waiting) retry with a longer take when the server
 * was too fast to observe it. 15 times over is 4470 characters, under the 5000 the reference accepts.
 */
import { loadRunConfig, runPacing, tooFastRemedyFor } from '../../src/harness/index.ts';

export const LONG_TEXT = [
  'This text is a little longer on purpose.',
  'It gives the server time to stream the wav while it is generated.',
  'Every sentence becomes one part of the audio.',
  'The harness reads the growing body until the stream ends.',
  'Then it compares the streamed audio with the finished take.',
  'That is all for this test.',
].join(' ');

/** LONG_TEXT `repeat` times over, one space between. */
export function longText(repeat: number): string {
  return Array.from({ length: repeat }, () => LONG_TEXT).join(' ');
}

/**
 * What would judge a "while in progress" requirement of `area` when even the longest take was done
 * too soon: a slower take, or, when the run was paced (--max-rps, the server's 429s), less pacing
 * (src/harness/pacing.ts says which and how).
 */
export function tooFastRemedy(area: string): string {
  return tooFastRemedyFor(runPacing(loadRunConfig()), area);
}
