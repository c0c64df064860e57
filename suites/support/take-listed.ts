/**
 * TAKE-LISTED-AT-ONCE's scenario (suites/takes.spec.ts): a take read in the take list right after
 * its generation, retried with a longer text while the take was done too soon to tell.
 */

import type { Voice } from '../../schemas/types.ts';
import { isDone } from '../../src/checks/status.ts';
import { observe, type SpeakContext } from '../../src/harness/index.ts';
import { generateTake, getItem, type Polled, type Take, waitUntilDone } from './items.ts';
import { listHolding } from './lists.ts';
import { longText } from './long-text.ts';

/** Long text, then longer: a server too fast to observe a take in progress gets a longer take. */
const LISTED_REPEATS = [1, 5, 15] as const;

/** What one list read showed of a take it was read right after. */
export type ListedObservation =
  | { kind: 'listed-in-progress'; message: string }
  | { kind: 'missing'; message: string }
  | { kind: 'not-observable'; reason: string };

/**
 * Polls the long take to its end: its many parts keep it in started and progress_* long enough for
 * polling to see them (TAKE-INFO-NULL-BEFORE-READY needs a take seen in progress).
 */
function pollLong(speak: SpeakContext, take: Take): Promise<Polled<Take>> {
  const polled = waitUntilDone<Take>(speak, 'take', take.take_id, { first: take });
  polled.catch(() => undefined); // awaited by the tests that judge it
  return polled;
}

/**
 * TAKE-LISTED-AT-ONCE speaks of a take still in progress ("on acceptance the take is waiting and
 * appears in the take list"): a list read after the take was ready shows nothing about that state,
 * and a server that lists only ready takes passes it. So the list is read right after generation,
 * once per attempt, and the answer counts only when the take provably was not done when it answered:
 * its own entry shows an in-progress status, or, when the entry is missing, a GET right after the
 * list answered still shows it not done. A take done before that is retried with a longer text
 * (at most three takes: a rate-limited server is not hammered).
 */
/** What the list showed, and the long take polled to its end. */
export interface ListedAtOnce {
  observed: ListedObservation;
  polled: Promise<Polled<Take>>;
}

export async function listedRightAfterGeneration(speak: SpeakContext, v: Voice): Promise<ListedAtOnce> {
  let reason = '';
  let last: Take | undefined;
  for (const repeat of LISTED_REPEATS) {
    const text = longText(repeat);
    const { take } = await generateTake(speak, { voice_id: v.voice_id, text });
    // The unfiltered list (length absent is unlimited, wire facts), whole: the take is the newest.
    // Read again (at most three reads, at once) while it lacks the take: read page by page under a
    // default page size, another file deleting meanwhile (the sequences do, often) shifts it past a
    // page already read; a server that leaves it out keeps leaving it out.
    const whole = await listHolding<Take>(speak, 'take', [take.take_id]);
    const where = `take ${take.take_id.slice(0, 8)} (${text.length} characters)`;
    last = take;
    const entry = whole.find((t) => t.take_id === take.take_id);
    if (entry && !isDone(entry.status))
      return {
        observed: {
          kind: 'listed-in-progress',
          message: `${where} is in GET /v1/speak/takes right after generation, ${entry.status} there`,
        },
        polled: pollLong(speak, take),
      };
    if (!entry) {
      const after = await getItem<Take>(speak, 'take', take.take_id);
      const state = isDone(after.status)
        ? `already ${after.status} when read right after the list (it may have been done when the list answered)`
        : `still ${after.status} when read right after the list: it was in progress when the list answered`;
      return {
        observed: {
          kind: 'missing',
          message: `GET /v1/speak/takes (${whole.length} takes) right after generation does not hold ${where}, ${state}`,
        },
        polled: pollLong(speak, take),
      };
    }
    reason = `even a take of ${repeat} times the long text (${text.length} characters) was ${entry.status} before the take list answered: a take in progress could not be observed in the list`;
    const caught = { particulars: { where, status: entry.status }, caught: true };
    observe('takes.too-quick', '{where} was already {status} in the list; trying a longer one', caught);
  }
  return { observed: { kind: 'not-observable', reason }, polled: pollLong(speak, last!) };
}
