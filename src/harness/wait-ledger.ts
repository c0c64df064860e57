/**
 * One wait per stuck thing (issue 32). A voice or take that did not get done within the ready bound
 * is written down here, run-wide: the suite files run as worker threads of one process (and a
 * per-file state lives in each file's SpeakContext), so the ledger is a file of JSON lines made by
 * the suites' global setup and handed to every thread through provide/inject. Later waits read it
 * at every poll (src/harness and suites/support/items.ts `waitUntilDone`):
 *   - a wait for the very item that already exceeded its bound concludes after one poll;
 *   - a wait for another item of the same kind waits at most twice as long as the slowest item of
 *     that kind this run saw done (not at all when none got done), then concludes;
 * each concluding with NotWaitedAgain, which blocks what needed the item and names the first wait's
 * evidence. Fair: only a wait that ran its whole bound poisons later ones, and only of its own kind;
 * a slow server whose items all get done never writes a stuck line.
 *
 * Outside a run (a unit test calling the helpers) the ledger lives in memory, per thread. No vitest
 * import here: the global setup (main thread) makes the file.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Finding, show } from '../checks/finding.ts';
import { SpeakcheckError } from '../errors.ts';
import './meta.ts';

export type WaitKind = 'voice' | 'take';

/** The requirement a wait's bound proves, per kind: a stuck item is evidence against it. */
export const READY_BOUND_REQUIREMENT: Record<WaitKind, string> = {
  voice: 'VOICE-READY-BOUND',
  take: 'TAKE-READY-BOUND',
};

/** The evidence of a wait that ran its whole bound. */
export interface StuckWait {
  kind: WaitKind;
  id: string;
  /** The statuses polling saw, each run of equal ones once (e.g. ["waiting", "started"]). */
  statuses: string[];
  polls: number;
  waitedMs: number;
  boundMs: number;
}

type Line = ({ type: 'stuck' } & StuckWait) | { type: 'done'; kind: WaitKind; id: string; tookMs: number };

export interface WaitLedger {
  recordStuck(stuck: StuckWait): void;
  recordDone(kind: WaitKind, id: string, tookMs: number): void;
  /** The first stuck wait of this item, else of this kind. */
  stuck(kind: WaitKind, id: string): { stuck: StuckWait; sameItem: boolean } | undefined;
  /** The longest a done item of this kind took this run (from its creation or its wait's start). */
  slowestDoneMs(kind: WaitKind): number | undefined;
}

/** The ledger over `lines()`: everything is derived from the lines read at each question. */
function ledgerOver(lines: () => Line[], append: (line: Line) => void): WaitLedger {
  return {
    recordStuck: (stuck) => append({ type: 'stuck', ...stuck }),
    recordDone: (kind, id, tookMs) => append({ type: 'done', kind, id, tookMs }),
    stuck(kind, id) {
      const all = lines().flatMap(({ type, ...line }) =>
        type === 'stuck' && line.kind === kind ? [line as StuckWait] : [],
      );
      const same = all.find((l) => l.id === id);
      if (same) return { stuck: same, sameItem: true };
      return all[0] ? { stuck: all[0], sameItem: false } : undefined;
    },
    slowestDoneMs(kind) {
      const took = lines().flatMap((l) => (l.type === 'done' && l.kind === kind ? [l.tookMs] : []));
      return took.length > 0 ? Math.max(...took) : undefined;
    },
  };
}

/** A ledger in a file of JSON lines: appends are single small writes (O_APPEND), whole lines. */
export function fileLedger(path: string): WaitLedger {
  const lines = (): Line[] => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Line];
        } catch {
          return []; // a line being written right now: read complete at the next poll
        }
      });
  };
  return ledgerOver(lines, (line) => appendFileSync(path, `${JSON.stringify(line)}\n`));
}

export function memoryLedger(): WaitLedger {
  const lines: Line[] = [];
  return ledgerOver(
    () => lines,
    (line) => lines.push(line),
  );
}

const ledgers = new Map<string, WaitLedger>();
let inMemory: WaitLedger | undefined;

/**
 * The run's ledger at `path` (what the global setup provided as `speakWaitLedger`), or one in memory
 * when there is none (outside a run).
 */
export function runWaitLedger(path: string | undefined): WaitLedger {
  if (!path) {
    inMemory ??= memoryLedger();
    return inMemory;
  }
  let ledger = ledgers.get(path);
  if (!ledger) {
    ledger = fileLedger(path);
    ledgers.set(path, ledger);
  }
  return ledger;
}

/** Made by the suites' global setup: an empty ledger file, and its removal at the end of the run. */
export function createLedgerFile(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'speakcheck-waits-'));
  const path = join(dir, 'stuck-waits.jsonl');
  writeFileSync(path, '');
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * How long a wait may go on, given what the run already knows: `boundMs` unless an item of its kind
 * got stuck; then none for the stuck item itself, and twice the slowest done item of the kind (none
 * when none got done, and never more than `boundMs`) for any other.
 */
export function allowedWaitMs(
  ledger: WaitLedger,
  kind: WaitKind,
  id: string,
  boundMs: number,
): { allowedMs: number; stuck?: StuckWait } {
  const known = ledger.stuck(kind, id);
  if (!known) return { allowedMs: boundMs };
  if (known.sameItem) return { allowedMs: 0, stuck: known.stuck };
  const slowest = ledger.slowestDoneMs(kind);
  return { allowedMs: Math.min(boundMs, slowest === undefined ? 0 : 2 * slowest), stuck: known.stuck };
}

/** The first wait's evidence, in one phrase. */
export function describeStuck(stuck: StuckWait): string {
  return `${stuck.kind} ${stuck.id.slice(0, 8)} did not reach a done state within ${stuck.boundMs} ms (waited ${(stuck.waitedMs / 1000).toFixed(1)} s, ${stuck.polls} polls; statuses seen: ${show(stuck.statuses)})`;
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
