/**
 * Every take the run polls is judged, not only the takes of the file that judges (issue 49): each
 * file's waitUntilDone (suites/support/items.ts) writes the sequence it saw as a run-wide fact (src/facts), and
 * the takes file's state rules (status order, info null before ready) judge its own sequences and
 * every one the other files of the run recorded by then, naming the take.
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import { runFacts } from '../facts/run-facts.ts';

/** A polled sequence (suites/support/items.ts waitUntilDone writes each through this file). */
export interface ObservedSequence {
  kind: ItemKind;
  id: string;
  snapshots: Array<{ status: string }>;
}

/** One snapshot as kept for the run: its status, and its info only where info may not be set yet. */
interface KeptSnapshot {
  status: string;
  info: unknown;
}

/**
 * Writes a polled sequence for the run: its statuses (each run of equal ones once, with the first
 * non-null info shown before ready kept), so other files can judge it.
 */
export function recordSequence(sequence: ObservedSequence): void {
  const kept: KeptSnapshot[] = [];
  for (const snapshot of sequence.snapshots) {
    const info = (snapshot as { info?: unknown }).info;
    const early = snapshot.status !== 'ready' && info !== null && info !== undefined ? info : null;
    const last = kept.at(-1);
    if (last && last.status === snapshot.status) {
      if (last.info === null && early !== null) last.info = early;
      continue;
    }
    kept.push({ status: snapshot.status, info: early });
  }
  runFacts().record({
    key: `sequence:${sequence.kind}:${sequence.id}`,
    type: 'observed-sequence',
    kind: sequence.kind,
    id: sequence.id,
    snapshots: kept,
  });
}

/** The sequences other files of the run recorded so far (those not in `own`), of `kind`. */
export function runSequences(
  kind: ObservedSequence['kind'],
  own: readonly ObservedSequence[],
): ObservedSequence[] {
  const ownIds = new Set(own.map((s) => s.id));
  const seen = new Set<string>();
  const out: ObservedSequence[] = [];
  for (const f of runFacts().ofType('observed-sequence')) {
    if (f.kind !== kind || ownIds.has(f.id) || seen.has(f.id)) continue;
    seen.add(f.id);
    out.push({ kind, id: f.id, snapshots: f.snapshots });
  }
  return out;
}
