/**
 * States and transitions: a take only moves forward through
 * waiting < started < progress_25 < progress_50 < progress_75 < ready; error and timeout are done
 * states (wire-facts) reachable from any earlier state and never left. Polling may miss states, so
 * a sequence may skip ranks but never go back.
 */
import { Finding, show } from './finding.ts';

export const PROGRESS_ORDER = [
  'waiting',
  'started',
  'progress_25',
  'progress_50',
  'progress_75',
  'ready',
] as const;
export const TERMINAL_FAILURES = ['error', 'timeout'] as const;
export const DONE_STATES: readonly string[] = ['ready', ...TERMINAL_FAILURES];

export function isDone(status: string): boolean {
  return DONE_STATES.includes(status);
}

function rank(status: string): number {
  const index = (PROGRESS_ORDER as readonly string[]).indexOf(status);
  if (index >= 0) return index;
  if ((TERMINAL_FAILURES as readonly string[]).includes(status)) return PROGRESS_ORDER.length;
  return -1;
}

/**
 * Throws when a status is unknown, a later observation ranks below an earlier one, or anything
 * follows a done state other than the same done state repeated.
 * @param what names the item for the message, e.g. `take 3f2…`.
 */
export function assertStatusOrder(sequence: readonly string[], what = 'item'): void {
  for (let i = 0; i < sequence.length; i++) {
    const status = sequence[i]!;
    if (rank(status) < 0) {
      throw new Finding(
        `${what}: unknown status ${show(status)} at observation ${i} of ${show(sequence)} (known: ${[...PROGRESS_ORDER, ...TERMINAL_FAILURES].join(', ')})`,
        {
          where: `${what} status[${i}]`,
          expected: [...PROGRESS_ORDER, ...TERMINAL_FAILURES],
          actual: status,
        },
      );
    }
    if (i === 0) continue;
    const previous = sequence[i - 1]!;
    if (isDone(previous) && status !== previous) {
      throw new Finding(
        `${what}: status left the done state ${show(previous)} for ${show(status)} (observation ${i} of ${show(sequence)}); done states are terminal`,
        { where: `${what} status[${i}]`, expected: previous, actual: status },
      );
    }
    if (rank(status) < rank(previous)) {
      throw new Finding(
        `${what}: status went backwards from ${show(previous)} to ${show(status)} (observation ${i} of ${show(sequence)})`,
        { where: `${what} status[${i}]`, expected: `not before ${previous}`, actual: status },
      );
    }
  }
}

/** Collapses repeats: [waiting, waiting, started, ready, ready] → [waiting, started, ready]. */
export function distinctRuns(sequence: readonly string[]): string[] {
  return sequence.filter((status, i) => i === 0 || status !== sequence[i - 1]);
}
