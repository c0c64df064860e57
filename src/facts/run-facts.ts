/**
 * Run-wide facts, learned once (issue 37; design: architecture review §3). What one request, wait or
 * connection of a run found out about the server, and that every later one of the run must not find
 * out again at the cost of its own bound: a take that never got ready, a route that only ever answers
 * 429, a websocket that stops answering after its first request.
 *
 * One transport for the whole run: the suites run as worker threads of one vitest process, the
 * preflight, global setup and reporter in its main thread. The main thread makes a file of JSON lines
 * and publishes its path through node:worker_threads environment data before the suites' threads
 * start (they copy it when they start, like the throttle's SharedArrayBuffer in
 * src/client/back-pressure.ts); every thread appends whole lines (single small O_APPEND writes) and
 * reads what the others appended. Outside a run (a unit test, a CLI command) the facts live in memory,
 * per thread.
 *
 * A fact names its consequence for the requirements it touches: what it blocks, what it leaves not
 * concluded (back-pressure, never a failure), or which requirement it is evidence against.
 */
import {
  appendFileSync,
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { type Fact, type FactKind, type FactOf, groupOf } from './fact.ts';

export type {
  Consequence,
  EarlyConclusion,
  Fact,
  FactKind,
  FactOf,
  RouteOutageData,
  SilentSituation,
  StuckWait,
  WaitKind,
} from './fact.ts';
export { groupOf } from './fact.ts';

export interface Allowance {
  /** How long a wait for `key` may go on. */
  allowedMs: number;
  /** The fact that shortened it, if one did. */
  fact?: Fact;
}

export interface FactStore {
  record(fact: Fact): void;
  /** The first fact of `key` that has a consequence (limits later waits). */
  find(key: string): Fact | undefined;
  /** The first fact of `key` of kind `type`. */
  find<K extends FactKind>(key: string, type: K): FactOf<K> | undefined;
  /** Every fact of kind `type`, in the order recorded. */
  ofType<K extends FactKind>(type: K): FactOf<K>[];
  /** Every fact, in the order recorded. */
  all(): readonly Fact[];
  /**
   * How long a wait for `key` may go on, given what the run knows: `boundMs` unless a limiting fact
   * names it (then 0), or a spreading one names its group (then twice the slowest success of the
   * group but at least ALLOWANCE_FLOOR_MS, never more than `boundMs`; none when nothing of the
   * group succeeded).
   */
  allowance(key: string, boundMs: number): Allowance;
}

/**
 * The shortest allowance a success of the group buys a later wait. Twice the slowest success is the
 * rule, but successes can be sub-millisecond (a websocket's first message on the reference): twice
 * that is below a busy machine's timer and GC jitter, and a request that was answered would be
 * concluded silent (CI saw a shrunk sequence fail on a served request, allowed 1.6 ms). A second
 * stays short next to the bounds it cuts (15 s and more) and no server is judged for answering
 * within it.
 */
export const ALLOWANCE_FLOOR_MS = 1_000;

const isKind =
  <K extends FactKind>(type: K) =>
  (f: Fact): f is FactOf<K> =>
    f.type === type;

/** The store over `facts()`: every answer is derived from the facts read at each question. */
function storeOver(facts: () => readonly Fact[], append: (fact: Fact) => void): FactStore {
  function find(key: string): Fact | undefined;
  function find<K extends FactKind>(key: string, type: K): FactOf<K> | undefined;
  function find(key: string, type?: FactKind): Fact | undefined {
    return facts().find(
      (f) => f.key === key && (type === undefined ? f.consequence !== undefined : f.type === type),
    );
  }
  return {
    record: (fact) => append({ ...fact, atMs: fact.atMs ?? Date.now() }),
    find,
    ofType: (type) => facts().filter(isKind(type)),
    all: facts,
    allowance(key, boundMs) {
      const all = facts();
      const same = all.find((f) => f.consequence !== undefined && f.key === key);
      if (same) return { allowedMs: 0, fact: same };
      const group = groupOf(key);
      const spread = all.find((f) => f.consequence !== undefined && f.spreads && groupOf(f.key) === group);
      if (!spread) return { allowedMs: boundMs };
      const took = all.flatMap((f) =>
        f.consequence === undefined && f.tookMs !== undefined && groupOf(f.key) === group ? [f.tookMs] : [],
      );
      const slowest = took.length > 0 ? Math.max(...took) : undefined;
      const allowedMs =
        slowest === undefined ? 0 : Math.min(boundMs, Math.max(2 * slowest, ALLOWANCE_FLOOR_MS));
      return { allowedMs, fact: spread };
    },
  };
}

/**
 * Facts in a file of JSON lines shared by every thread of the run. Reads only what was appended
 * since the last read (the file only grows), so asking at every request stays cheap.
 */
export function fileFacts(path: string): FactStore {
  const known: Fact[] = [];
  let offset = 0;
  let partial = '';
  const read = (): readonly Fact[] => {
    // Asked at every request: one stat when nothing was appended (the usual answer), not an open,
    // a stat and a close (~0.1 CPU-s of a run's suite threads).
    if ((statSync(path, { throwIfNoEntry: false })?.size ?? 0) <= offset) return known;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return known;
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return known;
      const buffer = Buffer.alloc(size - offset);
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      offset += n;
      const text = partial + buffer.subarray(0, n).toString('utf8');
      const lines = text.split('\n');
      // The last piece is a line being written right now (or ''): read complete next time.
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() === '') continue;
        try {
          // The one boundary where a fact is read untyped: lines only record() writes.
          const fact: unknown = JSON.parse(line);
          if (isFactLine(fact)) known.push(fact);
        } catch {
          // not a fact (never written by record()): ignored
        }
      }
      return known;
    } finally {
      closeSync(fd);
    }
  };
  return storeOver(read, (fact) => appendFileSync(path, `${JSON.stringify(fact)}\n`));
}

/** A line record() wrote: an object with a string key and kind (a reader filters on the kind). */
function isFactLine(value: unknown): value is Fact {
  if (typeof value !== 'object' || value === null) return false;
  const { key, type } = value as { key?: unknown; type?: unknown };
  return typeof key === 'string' && typeof type === 'string';
}

export function memoryFacts(): FactStore {
  const facts: Fact[] = [];
  return storeOver(
    () => facts,
    (fact) => facts.push(fact),
  );
}

const ENVIRONMENT_KEY = 'speakcheck:run-facts';
const stores = new Map<string, FactStore>();
let inMemory: FactStore | undefined;

/** The run's facts: the file the main thread published, else (outside a run) this thread's memory. */
export function runFacts(): FactStore {
  const path = publishedFactsPath();
  if (path === undefined) {
    inMemory ??= memoryFacts();
    return inMemory;
  }
  let store = stores.get(path);
  if (!store) {
    store = fileFacts(path);
    stores.set(path, store);
  }
  return store;
}

/** The path of the run's facts file, when a run published one. */
export function publishedFactsPath(): string | undefined {
  const path = getEnvironmentData(ENVIRONMENT_KEY);
  return typeof path === 'string' && path !== '' ? path : undefined;
}

/**
 * A new run's facts (main thread, before the suites' worker threads start): an empty file, published
 * for every thread started from now on. `remove()` deletes it and unpublishes it.
 */
export function startRunFacts(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'speakcheck-facts-'));
  const path = join(dir, 'run-facts.jsonl');
  writeFileSync(path, '');
  setEnvironmentData(ENVIRONMENT_KEY, path);
  return {
    path,
    remove: () => {
      if (getEnvironmentData(ENVIRONMENT_KEY) === path) setEnvironmentData(ENVIRONMENT_KEY, undefined);
      stores.delete(path);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Forgets the facts kept in memory (tests that start a new "run" in one thread). */
export function resetMemoryFacts(): void {
  inMemory = undefined;
}
