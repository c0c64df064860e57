/**
 * Every take the run polls is judged, not only the takes of the file that judges (issue 49): each
 * file's waitUntilDone (./items.ts) writes the sequence it saw as a run-wide fact (src/facts), and
 * the takes file's state rules (status order, info null before ready) judge its own sequences and
 * every one the other files of the run recorded by then, naming the take.
 */
import { distinctRuns } from '../../src/checks/status.ts';
import { runFacts } from '../../src/facts/run-facts.ts';

/** A polled sequence (./items.ts ObservedSequence; not imported: items.ts writes through this file). */
export interface ObservedSequence {
  kind: 'take' | 'voice';
  id: string;
  snapshots: Array<{ status: string }>;
}

/** The fact type of one polled sequence (key `sequence:<kind>:<id>`). */
const OBSERVED_SEQUENCE = 'observed-sequence';

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
    type: OBSERVED_SEQUENCE,
    data: { kind: sequence.kind, id: sequence.id, snapshots: kept },
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
  for (const f of runFacts().all()) {
    if (f.type !== OBSERVED_SEQUENCE || f.data?.kind !== kind) continue;
    const id = String(f.data.id);
    if (ownIds.has(id) || seen.has(id)) continue;
    seen.add(id);
    out.push({ kind, id, snapshots: (f.data.snapshots ?? []) as KeptSnapshot[] });
  }
  return out;
}

/** "waiting→started→ready" */
export function statusesOf(sequence: ObservedSequence): string {
  return distinctRuns(sequence.snapshots.map((s) => s.status)).join('→');
}
