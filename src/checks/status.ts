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
 * Throws when a later observation ranks below an earlier one, or anything follows a done state other
 * than the same done state repeated. A status of no known rank is left out of the order: the contract
 * lists the values "seen" and leaves the others open ("Other done-states … not shown"); which values
 * a server uses is reported (TAKE-STATUS-VALUES, INFO), not judged here.
 * @param what names the item for the message, e.g. `take 3f2…`.
 */
export function assertStatusOrder(sequence: readonly string[], what = 'item'): void {
  let previous: { status: string } | undefined;
  for (let i = 0; i < sequence.length; i++) {
    const status = sequence[i]!;
    if (rank(status) < 0) continue;
    if (previous && isDone(previous.status) && status !== previous.status) {
      throw new Finding(
        `${what}: status left the done state ${show(previous.status)} for ${show(status)} (observation ${i} of ${show(sequence)}); done states are terminal`,
        { where: `${what} status[${i}]`, expected: previous.status, actual: status },
      );
    }
    if (previous && rank(status) < rank(previous.status)) {
      throw new Finding(
        `${what}: status went backwards from ${show(previous.status)} to ${show(status)} (observation ${i} of ${show(sequence)})`,
        { where: `${what} status[${i}]`, expected: `not before ${previous.status}`, actual: status },
      );
    }
    previous = { status };
  }
}

/** Collapses repeats: [waiting, waiting, started, ready, ready] → [waiting, started, ready]. */
export function distinctRuns(sequence: readonly string[]): string[] {
  return sequence.filter((status, i) => i === 0 || status !== sequence[i - 1]);
}
