/**
 * Creating voices and takes, and waiting for them: every item created is tracked for cleanup,
 * every wait is bounded (the run's ready timeout) and polls at a small interval, recording the
 * status sequence and each observed body for the ordering and info checks.
 */
import { beforeAll, inject } from 'vitest';
import type { Take, Voice } from '../../schemas/types.ts';
import { assertClientError } from '../../src/checks/errors.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { distinctRuns, isDone } from '../../src/checks/status.ts';
import {
  adoptScenarioRecord,
  against,
  allowedWaitMs,
  ClientDiagnostic,
  type Exchange,
  expectJson,
  expectSchema,
  markSetupFailure,
  NotWaitedAgain,
  newTestRecord,
  type ProvidedSharedVoice,
  ReadyBoundExceeded,
  runWaitLedger,
  runWithRecord,
  type SpeakContext,
  selectedRequirements,
  type WaitLedger,
} from '../../src/harness/index.ts';

export type Kind = 'voice' | 'take';

/** The shapes of schemas/ (generated types): what the contract says a voice and a take are. */
export type { Take, TakeInfo, Voice } from '../../schemas/types.ts';

const POLL_START_MS = 60;
const POLL_MAX_MS = 300;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A 2xx with a JSON body, or a Finding naming the request and what came back. */
export function expectCreated(exchange: Exchange, what: string): unknown {
  if (exchange.status < 200 || exchange.status >= 300) {
    throw new Finding(
      `${what}: ${exchange.method} ${new URL(exchange.url).pathname} answered ${exchange.status}: ${show(exchange.text, 300)}`,
      { where: exchange.url, expected: '2xx', actual: exchange.status },
    );
  }
  return expectJson(exchange, what);
}

/**
 * expectSchema for a Voice or Take body: a schema finding is evidence against the kind's field-types
 * requirement wherever it surfaces (a generation step, a wait), so check() attributes it there.
 */
function expectItemSchema(kind: Kind, schema: string, json: unknown, what: string): void {
  against(kind === 'take' ? 'TAKE-FIELD-TYPES' : 'VOICE-FIELD-TYPES', () => expectSchema(schema, json, what));
}

export async function generateVoice(
  s: SpeakContext,
  body: Record<string, unknown>,
): Promise<{ exchange: Exchange; voice: Voice }> {
  const exchange = await s.api.post('/v1/speak/voices/generate', body);
  const json = expectCreated(exchange, 'voice generation');
  const id = (json as { voice_id?: unknown } | null)?.voice_id;
  if (typeof id === 'string' && id) s.track('voice', id);
  expectItemSchema('voice', 'Voice', json, 'the generated voice');
  return { exchange, voice: json as Voice };
}

export async function generateTake(
  s: SpeakContext,
  body: Record<string, unknown>,
): Promise<{ exchange: Exchange; take: Take }> {
  const exchange = await s.api.post('/v1/speak/takes/generate', body);
  const json = expectCreated(exchange, 'take generation');
  const id = (json as { take_id?: unknown } | null)?.take_id;
  if (typeof id === 'string' && id) s.track('take', id);
  expectItemSchema('take', 'Take', json, 'the generated take');
  return { exchange, take: json as Take };
}

export async function getItem<T>(s: SpeakContext, kind: Kind, id: string): Promise<T> {
  const exchange = await s.api.get(`/v1/speak/${kind}s/${encodeURIComponent(id)}`);
  const json = expectCreated(exchange, `GET ${kind} ${id.slice(0, 8)}`);
  if (Array.isArray(json)) {
    throw new Finding(
      `GET /v1/speak/${kind}s/{id} answered an array (${json.length} items), expected one object`,
      {
        where: exchange.url,
        expected: 'object',
        actual: 'array',
        requirement: kind === 'take' ? 'TAKE-GET-OBJECT' : 'VOICE-GET-OBJECT',
      },
    );
  }
  expectItemSchema(kind, kind === 'take' ? 'Take' : 'Voice', json, `the ${kind} from GET`);
  return json as T;
}

export interface Polled<T> {
  final: T;
  /** Every status observed, in order, starting with the one passed in (if any). */
  statuses: string[];
  /** Every body observed, in order. */
  snapshots: T[];
  /** When each snapshot was observed (ms since the epoch): the first one passed in, when polling began. */
  times: number[];
  ms: number;
}

export interface ObservedSequence {
  kind: Kind;
  id: string;
  snapshots: Array<{ status: string }>;
}

/**
 * State kept per file, keyed by the file's SpeakContext (useSpeak() makes one per file): suites run
 * with `isolate: false`, so module-level state would be shared by every file a worker runs.
 */
interface FileState {
  /** Every body sequence waitUntilDone observed in this file. */
  sequences: ObservedSequence[];
  /** The first page number per list, probed once per file. */
  firstPages: Map<Kind, Promise<number>>;
}

const fileStates = new WeakMap<SpeakContext, FileState>();

function fileState(s: SpeakContext): FileState {
  let state = fileStates.get(s);
  if (!state) {
    state = { sequences: [], firstPages: new Map() };
    fileStates.set(s, state);
  }
  return state;
}

/** Every body sequence waitUntilDone observed in this file (this SpeakContext), for checks over all of them. */
export function observedSequences(s: SpeakContext): readonly ObservedSequence[] {
  return fileState(s).sequences;
}

let ledger: WaitLedger | undefined;

/** The run's ledger of stuck waits (src/harness/wait-ledger.ts): one wait per stuck thing, run-wide. */
function waitLedger(): WaitLedger {
  if (!ledger) {
    let path: string | undefined;
    try {
      path = inject('speakWaitLedger');
    } catch {
      path = undefined; // outside a run: a ledger in memory
    }
    ledger = runWaitLedger(path);
  }
  return ledger;
}

/**
 * Polls GET /{kind}s/{id} until a done state (ready | error | timeout), bounded by the run's
 * ready timeout from `since` (the item's creation when it was made before this wait, e.g. the
 * shared voice; default: now). Throws a Finding when the bound passes or the final state is not
 * `ready` (unless `acceptFailure`). A wait that runs its whole bound is written in the run's ledger;
 * from then on, waits of the same kind end early with NotWaitedAgain (the stuck item itself after
 * one poll, another after twice the slowest done item of its kind this run).
 */
export async function waitUntilDone<T extends { status: string }>(
  s: SpeakContext,
  kind: Kind,
  id: string,
  o: { first?: T; boundMs?: number; acceptFailure?: boolean; since?: number } = {},
): Promise<Polled<T>> {
  const bound = o.boundMs ?? s.config.timeouts.readyMs;
  const started = Math.min(o.since ?? Date.now(), Date.now());
  const snapshots: T[] = o.first ? [o.first] : [];
  const times: number[] = o.first ? [Date.now()] : [];
  fileState(s).sequences.push({ kind, id, snapshots });
  let interval = POLL_START_MS;
  for (;;) {
    const item = await getItem<T>(s, kind, id);
    snapshots.push(item);
    times.push(Date.now());
    if (isDone(item.status)) break;
    const waitedMs = Date.now() - started;
    if (waitedMs > bound) {
      const stuck = {
        kind,
        id,
        statuses: distinctRuns(snapshots.map((x) => x.status)),
        polls: snapshots.length,
        waitedMs,
        boundMs: bound,
      };
      waitLedger().recordStuck(stuck);
      throw new ReadyBoundExceeded(stuck, item.status);
    }
    const known = allowedWaitMs(waitLedger(), kind, id, bound);
    if (known.stuck && waitedMs >= known.allowedMs) {
      throw new NotWaitedAgain(kind, id, known.stuck, {
        status: item.status,
        waitedMs,
        sameItem: known.stuck.id === id,
      });
    }
    await sleep(interval);
    interval = Math.min(POLL_MAX_MS, Math.round(interval * 1.3));
  }
  waitLedger().recordDone(kind, id, Date.now() - started);
  const final = snapshots[snapshots.length - 1]!;
  if (final.status !== 'ready' && !o.acceptFailure) {
    throw new Finding(`${kind} ${id.slice(0, 8)} ended in ${show(final.status)} instead of ready`, {
      where: `${kind} ${id}`,
      expected: 'ready',
      actual: final.status,
    });
  }
  return { final, statuses: snapshots.map((x) => x.status), snapshots, times, ms: Date.now() - started };
}

/** One answer of GET /{kind}s for a query; the JSON array, schema-checked. */
export async function listPage<T>(
  s: SpeakContext,
  kind: Kind,
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const exchange = await s.api.get(`/v1/speak/${kind}s`, { query });
  const json = expectCreated(exchange, `GET /v1/speak/${kind}s ${show(query)}`);
  expectItemSchema(
    kind,
    kind === 'take' ? 'TakeList' : 'VoiceList',
    json,
    `the ${kind} list for ${show(query)}`,
  );
  return json as T[];
}

const idOf = (kind: Kind, item: unknown) => String((item as Record<string, unknown>)[`${kind}_id`]);

/**
 * The number of the first page ("whether pages are counted from 0 or 1: not shown"): the page that,
 * with length=1 and an id filter of two listed items, holds the first of them (the filter keeps
 * items other files create meanwhile out of the probe).
 */
async function firstPageOf(s: SpeakContext, kind: Kind, ids: readonly string[]): Promise<number> {
  for (const page of [1, 0]) {
    const exchange = await s.api.get(`/v1/speak/${kind}s`, {
      query: { [`${kind}_id`]: ids.join(','), length: 1, page },
    });
    const json = exchange.json;
    if (exchange.status === 200 && Array.isArray(json) && json.length === 1 && idOf(kind, json[0]) === ids[0])
      return page;
  }
  return 1;
}

/**
 * Lists /{kind}s with a query. Without `length` this is the whole list: the default page size is
 * not shown, so when the answer may be one page of several (a server with a default page size), the
 * following pages of that size are read too, until an empty one.
 */
export async function list<T>(
  s: SpeakContext,
  kind: Kind,
  query: Record<string, string | number> = {},
): Promise<T[]> {
  const first = await listPage<T>(s, kind, query);
  if ('length' in query || 'page' in query || first.length < 2) return first;
  const seen = new Set(first.map((item) => idOf(kind, item)));
  const all = [...first];
  const { firstPages } = fileState(s);
  if (!firstPages.has(kind)) firstPages.set(kind, firstPageOf(s, kind, [...seen].slice(0, 2)));
  const base = await firstPages.get(kind)!;
  // Bounded: a server that ignores page would otherwise be read forever.
  for (let page = base + 1; page <= base + 100; page++) {
    const next = await listPage<T>(s, kind, { ...query, length: first.length, page });
    const fresh = next.filter((item) => !seen.has(idOf(kind, item)));
    if (fresh.length === 0) break;
    for (const item of fresh) seen.add(idOf(kind, item));
    all.push(...fresh);
  }
  return all;
}

/**
 * The whole list, read again (at most `reads` times in all) while it lacks one of `ids`, items the
 * caller knows exist. When the server has a default page length the list is read page by page, and
 * another file deleting an item on an earlier page meanwhile shifts the next one onto a page already
 * read: unseen in that read (the latitude switch default-page-length showed it). A server that keeps
 * leaving one out is still caught; the last read is returned either way.
 */
export async function listHolding<T>(
  s: SpeakContext,
  kind: Kind,
  ids: readonly string[],
  reads = 3,
): Promise<T[]> {
  let all: T[] = [];
  for (let read = 1; read <= reads; read++) {
    all = await list<T>(s, kind);
    const listed = new Set(all.map((item) => idOf(kind, item)));
    if (ids.every((id) => listed.has(id))) break;
  }
  return all;
}

/** A request that must be refused: 4xx (never 5xx, never success). */
export function expectRefused(exchange: Exchange, why: string): void {
  assertClientError(exchange, why);
}

/**
 * Milliseconds since the epoch, not seconds: within a day of this machine's clock (tolerates
 * skew with a remote server, catches seconds and microseconds).
 */
export function assertEpochMs(value: number, where: string): void {
  const day = 24 * 3600 * 1000;
  if (!Number.isInteger(value) || Math.abs(value - Date.now()) > day) {
    throw new Finding(
      `${where}: timestamp_ms ${value} is not milliseconds since the epoch near now (${Date.now()}); ${value < 1e11 ? 'it looks like seconds' : 'it is far off'}`,
      { where, expected: Date.now(), actual: value },
    );
  }
}

/**
 * Runs `make` once; later callers share its promise (one scenario feeds several tests). The
 * scenario records its exchanges and observations apart, and every test that awaits it receives a
 * copy as its own evidence, whichever test (or prefetch) started it. `evidence: false` for plumbing
 * that every test awaits (the shared voice), whose exchanges would only bury the test's own.
 */
export function once<T>(make: () => Promise<T>, o: { evidence?: boolean } = {}): () => Promise<T> {
  let promise: Promise<T> | undefined;
  if (o.evidence === false) {
    return () => {
      promise ??= make();
      return promise.catch((error: unknown) => {
        markSetupFailure(error);
        throw error;
      });
    };
  }
  const scenario = newTestRecord();
  return () => {
    promise ??= runWithRecord(scenario, make);
    // The reactions run in the awaiting test's context (AsyncLocalStorage follows `then`).
    return promise.then(
      (value) => {
        adoptScenarioRecord(scenario);
        return value;
      },
      (error: unknown) => {
        adoptScenarioRecord(scenario);
        markSetupFailure(error);
        throw error;
      },
    );
  };
}

/** `requirement`: the id the mismatch is evidence against when it surfaces in a shared scenario (see Finding). */
export function assertEqualField(
  actual: unknown,
  expected: unknown,
  where: string,
  requirement?: string,
): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Finding(`${where}: expected ${show(expected)}, got ${show(actual)}`, {
      where,
      expected,
      actual,
      ...(requirement === undefined ? {} : { requirement }),
    });
  }
}

/**
 * Starts scenarios as soon as the file's login is done, without awaiting them: synthesis of
 * independent items overlaps instead of queueing behind each test. Each test still awaits its
 * scenario and sees its failure; here failures are only kept from being unhandled.
 * With a requirement selection (`run --requirement`) nothing is started early: most scenarios
 * would feed tests that are not registered, and each selected test starts what it awaits.
 */
export function prefetch(...scenarios: Array<() => Promise<unknown>>): void {
  if (selectedRequirements()) return;
  beforeAll(() => {
    for (const scenario of scenarios) scenario().catch(() => undefined);
  });
}

/**
 * The run's shared voice (src/harness/shared-voice.ts), ready: for files that only need *a* voice
 * to make takes with. The global setup asked for it; here its generate answer is schema-checked and
 * it is waited for like any voice (bounded by the ready timeout from its creation, statuses recorded:
 * every file's wait ends at the same moment, and a file that starts later polls once). Not tracked:
 * the global setup deletes it after every file. Call once per file, at the top.
 */
export function useSharedVoice(s: SpeakContext): () => Promise<Voice> {
  return once(
    async () => {
      const provided = JSON.parse(inject('speakSharedVoice')) as ProvidedSharedVoice;
      if (!provided.ok && provided.throttled)
        throw new ClientDiagnostic('throttled', provided.problem, 'POST /v1/speak/voices/generate');
      if (!provided.ok) throw new Finding(provided.problem, { where: 'POST /v1/speak/voices/generate' });
      expectSchema('Voice', provided.created, 'the generated voice');
      const created = provided.created as Voice;
      const since = provided.createdMs;
      return (await waitUntilDone<Voice>(s, 'voice', provided.voiceId, { first: created, since })).final;
    },
    { evidence: false },
  );
}
