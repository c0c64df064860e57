/**
 * One wait per stuck thing (issue 32). A voice or take that did not get done within the ready bound
 * is written down here, run-wide: the suite files run as worker threads of one process (and a
 * per-file state lives in each file's SpeakContext), so the ledger is kept in the run's facts
 * (src/facts: one file of JSON lines every thread shares, its path published by the main thread).
 * Later waits read it at every poll (src/harness and suites/support/items.ts `waitUntilDone`):
 *   - a wait for the very item that already exceeded its bound concludes after one poll;
 *   - a wait for another item of the same kind waits at most twice as long as the slowest item of
 *     that kind this run saw done (but at least ALLOWANCE_FLOOR_MS, src/facts; not at all when
 *     none got done), then concludes;
 * each concluding with NotWaitedAgain, which blocks what needed the item and names the first wait's
 * evidence. Fair: only a wait that ran its whole bound poisons later ones, and only of its own kind;
 * a slow server whose items all get done never writes a stuck line.
 *
 * Outside a run (a unit test calling the helpers) the facts live in memory, per thread. No vitest
 * import here: the main thread (speakcheck run, else the global setup) makes the file.
 */
import { Finding, show } from '../checks/finding.ts';
import { SpeakcheckError } from '../errors.ts';
import {
  type FactStore,
  fileFacts,
  groupOf,
  memoryFacts,
  runFacts,
  type StuckWait,
  type WaitKind,
} from '../facts/run-facts.ts';
import './meta.ts';

import { READY_BOUND_REQUIREMENT } from '../requirements/index.ts';

export type { StuckWait, WaitKind };

/**
 * The requirement a wait's bound proves, per kind (declared with `readyBoundOf` in its catalogue
 * entry): a stuck item is evidence against it.
 */
export { READY_BOUND_REQUIREMENT };

export interface WaitLedger {
  recordStuck(stuck: StuckWait): void;
  recordDone(kind: WaitKind, id: string, tookMs: number): void;
  /** The first stuck wait of this item, else of this kind. */
  stuck(kind: WaitKind, id: string): { stuck: StuckWait; sameItem: boolean } | undefined;
  /** The longest a done item of this kind took this run (from its creation or its wait's start). */
  slowestDoneMs(kind: WaitKind): number | undefined;
  /** The run-wide facts the ledger writes to and reads from (src/facts). */
  readonly facts: FactStore;
}

const keyOf = (kind: WaitKind, id: string): `${WaitKind}:${string}` => `${kind}:${id}`;

/**
 * The ledger over run-wide facts: a stuck wait is a fact keyed `<kind>:<id>` that spreads to its
 * kind (evidence against the kind's ready bound), a done item a success with how long it took.
 */
export function ledgerOver(facts: FactStore): WaitLedger {
  return {
    facts,
    recordStuck: (stuck) =>
      facts.record({
        key: keyOf(stuck.kind, stuck.id),
        type: 'stuck',
        spreads: true,
        consequence: { kind: 'evidence-against', requirement: READY_BOUND_REQUIREMENT[stuck.kind] },
        sentence: describeStuck(stuck),
        stuck: { ...stuck },
      }),
    recordDone: (kind, id, tookMs) => facts.record({ key: keyOf(kind, id), type: 'done', tookMs }),
    stuck(kind, id) {
      const all = facts.ofType('stuck').filter((f) => f.stuck.kind === kind);
      const same = all.find((f) => f.stuck.id === id);
      if (same) return { stuck: same.stuck, sameItem: true };
      return all[0] ? { stuck: all[0].stuck, sameItem: false } : undefined;
    },
    slowestDoneMs(kind) {
      const took = facts
        .ofType('done')
        .filter((f) => groupOf(f.key) === kind)
        .map((f) => f.tookMs);
      return took.length > 0 ? Math.max(...took) : undefined;
    },
  };
}

/** A ledger in a file of JSON lines (the run's facts file, or any other). */
export function fileLedger(path: string): WaitLedger {
  return ledgerOver(fileFacts(path));
}

export function memoryLedger(): WaitLedger {
  return ledgerOver(memoryFacts());
}

/** The run's ledger: over the run's facts (src/facts: one file for every thread, in memory outside a run). */
export function runWaitLedger(): WaitLedger {
  return ledgerOver(runFacts());
}

/**
 * How long a wait may go on, given what the run already knows (the facts' allowance): `boundMs`
 * unless an item of its kind got stuck; then none for the stuck item itself, and twice the slowest
 * done item of the kind (at least ALLOWANCE_FLOOR_MS, none when none got done, and never more than
 * `boundMs`) for any other.
 */
export function allowedWaitMs(
  ledger: WaitLedger,
  kind: WaitKind,
  id: string,
  boundMs: number,
): { allowedMs: number; stuck?: StuckWait } {
  const { allowedMs, fact } = ledger.facts.allowance(keyOf(kind, id), boundMs);
  if (fact?.type !== 'stuck') return { allowedMs: boundMs };
  return { allowedMs, stuck: fact.stuck };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The first wait's evidence, in one phrase. */
export function describeStuck(stuck: StuckWait): string {
  const held = stuck.heldMs
    ? `, not counting the ${seconds(stuck.heldMs)} the server asked the run or its polls to wait`
    : '';
  return `${stuck.kind} ${stuck.id.slice(0, 8)} did not reach a done state within ${stuck.boundMs} ms (waited ${seconds(stuck.waitedMs)}${held}, ${stuck.polls} polls; statuses seen: ${show(stuck.statuses)})`;
}

/**
 * A wait that ran its whole bound (the first for its item): evidence against the kind's ready bound,
 * failing it where a test covers it; elsewhere it blocks what needed the item (src/harness/check.ts),
 * as a generation step that failed would: a voice that never got ready says nothing about the take
 * generation a test wanted it for.
 */
export class ReadyBoundExceeded extends Finding {
  constructor(
    readonly stuck: StuckWait,
    status: string,
  ) {
    super(describeStuck(stuck), {
      where: `${stuck.kind} ${stuck.id}`,
      expected: 'ready',
      actual: status,
      requirement: READY_BOUND_REQUIREMENT[stuck.kind],
    });
  }
}

/**
 * A wait concluded early because another wait of its kind already ran its whole bound: what needed
 * the item is blocked by the first wait's evidence (src/harness/check.ts treats it as a setup
 * failure), except the ready-bound requirement of the kind, which that evidence fails.
 */
export class NotWaitedAgain extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_WAIT_BLOCKED';
  readonly facts: { where: string; requirement: string; expected: string; actual: string };

  constructor(
    readonly kind: WaitKind,
    readonly id: string,
    readonly stuck: StuckWait,
    o: { status: string; waitedMs: number; sameItem: boolean },
  ) {
    const self = `${kind} ${id.slice(0, 8)}`;
    super(
      o.sameItem
        ? `${describeStuck(stuck)}; not waited for again (still ${show(o.status)})`
        : `${describeStuck(stuck)}; so ${self}, still ${show(o.status)} after ${(o.waitedMs / 1000).toFixed(1)} s, was not waited for again (one wait per stuck ${kind})`,
    );
    this.name = 'NotWaitedAgain';
    this.facts = {
      where: `${kind} ${id}`,
      requirement: READY_BOUND_REQUIREMENT[kind],
      expected: 'ready',
      actual: o.status,
    };
  }
}

/** Whether `err` is a stuck wait's (the first wait's or a later one's): it blocks, it judges nothing else. */
export function isStuckWait(err: unknown): boolean {
  return stuckWaitRequirement(err) !== undefined;
}

/**
 * A stuck wait's error (the first wait's or a later one's), also as the cause of a wrapper (a
 * property's failure): the ready-bound requirement it names, else undefined.
 */
export function stuckWaitRequirement(err: unknown): string | undefined {
  const cause = (err as { cause?: unknown } | null)?.cause;
  for (const e of [err, cause])
    if (e instanceof NotWaitedAgain || e instanceof ReadyBoundExceeded) return e.facts.requirement;
  return undefined;
}
