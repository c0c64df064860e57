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
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import type { RequirementId } from '../requirements/index.ts';

/** What a fact means for the requirements it touches. */
export type Consequence =
  /** What needed the thing (a take, a voice) cannot be judged: blocked by the fact's evidence. */
  | { kind: 'blocks' }
  /** Back-pressure: what needed it is not concluded, and `wouldJudge` says what would conclude it. */
  | { kind: 'not-concluded'; wouldJudge: string }
  /** The feature is absent: what needs it does not apply. */
  | { kind: 'not-applicable' }
  /** The fact is evidence that the server breaks `requirement`. */
  | { kind: 'evidence-against'; requirement: RequirementId };

/**
 * One fact. `key` is `group:what` (e.g. `take:<id>`, `route:GET /v1/speak/takes/{take_id}/flac`); a
 * fact with a consequence limits later waits of its key (see allowance), and of its whole group when
 * it `spreads`. A fact without a consequence is an observation the policies count (a success and how
 * long it took, a throttled answer).
 */
export interface Fact {
  key: string;
  /** What happened: 'stuck', 'done', 'throttled', 'served', 'unavailable', 'silent', ... */
  type: string;
  /** When it was recorded (epoch ms; record() fills it in). */
  atMs?: number;
  consequence?: Consequence;
  /** Whether a limiting fact also limits the other keys of its group (a stuck take: every take). */
  spreads?: boolean;
  /** The fact's evidence in one sentence, as later conclusions name it. */
  sentence?: string;
  /** For a success: how long it took (allowance's measure of the group). */
  tookMs?: number;
  data?: Record<string, unknown>;
}

export interface Allowance {
  /** How long a wait for `key` may go on. */
  allowedMs: number;
  /** The fact that shortened it, if one did. */
  fact?: Fact;
}

export interface FactStore {
  record(fact: Fact): void;
  /** The first fact of `key` (of `type`, when given) that has a consequence unless `type` says otherwise. */
  find(key: string, type?: string): Fact | undefined;
  /** Every fact, in the order recorded. */
  all(): readonly Fact[];
  /**
   * How long a wait for `key` may go on, given what the run knows: `boundMs` unless a limiting fact
   * names it (then 0), or a spreading one names its group (then twice the slowest success of the
   * group, never more than `boundMs`, none when nothing of the group succeeded).
   */
  allowance(key: string, boundMs: number): Allowance;
}

/** `take` of `take:1234`: the part of a key before its first colon. */
export function groupOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
}

/** The store over `facts()`: every answer is derived from the facts read at each question. */
function storeOver(facts: () => readonly Fact[], append: (fact: Fact) => void): FactStore {
  return {
    record: (fact) => append({ ...fact, atMs: fact.atMs ?? Date.now() }),
    find: (key, type) =>
      facts().find(
        (f) => f.key === key && (type === undefined ? f.consequence !== undefined : f.type === type),
      ),
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
      return { allowedMs: Math.min(boundMs, slowest === undefined ? 0 : 2 * slowest), fact: spread };
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
          known.push(JSON.parse(line) as Fact);
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
