/**
 * The model of the contract that sequences of calls are judged against (suites/sequences.spec.ts,
 * issue 50): pure data and pure functions, no server, no clock. It holds what the contract says the
 * server's state is after each call the sequence made: each customer's takes (generated, deleted),
 * their sessions (a login's refresh chain, its depth, whether it was logged out), websocket
 * connections and how many requests each has served, and what the server showed where the contract
 * is silent (whether it offers delete, the first page number). A command asks the model what to
 * expect before its call (`expect*`) and tells it what happened after (`record*`).
 *
 * Fair: nothing here assumes an order of the list, a page base or a page size; those are the
 * server's to choose and are read from its own answers (`whole` lists, `firstPage`).
 */
import { catalogue, type RequirementId } from '../../requirements/index.ts';

/** What only sequences judge: the catalogue's `sequences` area, its one list. */
export const SEQUENCE_IDS: readonly RequirementId[] = catalogue
  .filter((requirement) => requirement.area === 'sequences')
  .map((requirement) => requirement.id);

/** The customer a command runs as: the run's account, or the second one when the run has it. */
export type AccountName = 'primary' | 'second';

export interface ModelTake {
  /** Index in the model: the step's name for it (T1, T2 …), stable while ids are the server's. */
  key: number;
  account: AccountName;
  text: string;
  /** Set once the server answered the generation. */
  takeId?: string;
  voiceId?: string;
  deleted: boolean;
  /**
   * Whether it was deleted cannot be known (a DELETE sent again after no answer, then 404, before
   * the sequence learned that the server deletes at all): the model neither uses nor judges it.
   */
  forgotten?: true;
  /** Made over a websocket connection rather than POST /v1/speak/takes/generate. */
  via: 'rest' | 'websocket';
}

export interface ModelSession {
  key: number;
  account: AccountName;
  /** Refreshes made on this chain so far (0: as logged in). */
  depth: number;
  loggedOut: boolean;
  /**
   * Refused after another session of the customer was logged out: the server logs out everywhere,
   * a design the contract leaves open ("revokes that refresh token" does not say only that one).
   */
  endedWithSibling?: boolean;
}

export interface ModelSocket {
  key: number;
  account: AccountName;
  /** Take requests the connection served so far. */
  requests: number;
}

/** What the server showed where the contract leaves it open, learned as the sequence goes. */
export interface Learned {
  /** DELETE /v1/speak/takes/{id} (a wire fact): undefined until tried, false when the server refused it for a live take. */
  deleteOffered?: boolean;
  /** POST /v1/speak/voices/{id} (a wire fact): as deleteOffered, for a voice of the customer's. */
  updateOffered?: boolean;
  /** An array body on POST /v1/speak/takes/generate (a wire fact): false when refused as a malformed body. */
  batchOffered?: boolean;
}

/** What the sequence last set on a customer's voice (POST /v1/speak/voices/{id}); unknown before. */
export interface ModelVoice {
  name?: string;
  description?: string;
}

export interface SequenceModel {
  readonly accounts: readonly AccountName[];
  readonly takes: ModelTake[];
  readonly sessions: ModelSession[];
  readonly sockets: ModelSocket[];
  readonly learned: Learned;
  /** Per customer: its voice as the sequence's last update left it (absent: not updated in this sequence). */
  readonly voices: Partial<Record<AccountName, ModelVoice>>;
  /** What the sequence has brought about: the requirement ids it could judge (a pass needs an observation). */
  readonly observed: Set<RequirementId>;
}

/** Bounds that keep one sequence cheap against a server that bills per character. */
export const MODEL_LIMITS = { takes: 7, sessions: 3, sockets: 2, requestsPerSocket: 5 } as const;

export function newModel(accounts: readonly AccountName[]): SequenceModel {
  return { accounts, takes: [], sessions: [], sockets: [], learned: {}, voices: {}, observed: new Set() };
}

export function takesOf(m: SequenceModel, account: AccountName): ModelTake[] {
  return m.takes.filter((t) => t.account === account && t.takeId !== undefined && !t.forgotten);
}

export function liveTakes(m: SequenceModel, account: AccountName): ModelTake[] {
  return takesOf(m, account).filter((t) => !t.deleted);
}

export function deletedTakes(m: SequenceModel, account: AccountName): ModelTake[] {
  return takesOf(m, account).filter((t) => t.deleted);
}

/** The n-th take of `account` the server knows (wrapping), or undefined when it has none. */
export function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

export function canGenerate(m: SequenceModel, count = 1): boolean {
  return m.takes.length + count <= MODEL_LIMITS.takes;
}

/** A batch may be sent until the server showed it offers none (a wire fact). */
export function canBatch(m: SequenceModel, size: number): boolean {
  return m.learned.batchOffered !== false && canGenerate(m, size);
}

export function canUpdateVoice(m: SequenceModel): boolean {
  return m.learned.updateOffered !== false;
}

/**
 * Whether a status answered to a wire fact's operation the first time says the server does not offer
 * it: an unknown route or method (404, 405, 501), or (a batch: an array where one object is expected)
 * a malformed body (400, 415, 422). Only before the operation ever succeeded.
 */
export function notOffered(status: number, kind: 'route' | 'body'): boolean {
  return [404, 405, 501].includes(status) || (kind === 'body' && [400, 415, 422].includes(status));
}

/**
 * What a view of a customer's voice (GET, or the list) shows against the model's last update: what
 * differs, or [] (fields the sequence did not set are not judged).
 */
export function voiceViewProblems(expected: ModelVoice, shown: unknown): string[] {
  const voice = (shown ?? {}) as Record<string, unknown>;
  return (['name', 'description'] as const)
    .filter((field) => expected[field] !== undefined && voice[field] !== expected[field])
    .map(
      (field) =>
        `${field} ${JSON.stringify(voice[field])}, where the update set ${JSON.stringify(expected[field])}`,
    );
}

/**
 * What a view of a customer's voice shows of its status, the voice having been ready before the
 * sequence (the file waited for it): undefined when `ready`, else what it showed
 * (SEQ-VOICE-STATUS-THROUGH-CHANGES, INFO: the contract shows no transition of a voice after
 * `ready`, so another status after an update is noted, never a verdict).
 */
export function voiceStatusNote(shown: unknown): string | undefined {
  const status = ((shown ?? {}) as Record<string, unknown>).status;
  return status === 'ready'
    ? undefined
    : `status ${JSON.stringify(status)}, where the voice was ready before`;
}

/**
 * What a batch answer must hold for bodies of `texts`: an array of as many takes, each with a
 * take_id, in the order of the bodies (each answered take's text is its body's). [] when it does.
 */
export function batchProblems(texts: readonly string[], answered: unknown): string[] {
  if (!Array.isArray(answered)) return [`answered ${typeof answered}, not an array of takes`];
  const problems: string[] = [];
  if (answered.length !== texts.length)
    problems.push(`answered ${answered.length} takes for ${texts.length} bodies`);
  const takes = answered as Array<{ take_id?: unknown; text?: unknown } | null>;
  if (takes.some((t) => typeof t?.take_id !== 'string')) problems.push('an item without a take_id');
  const order = takes.map((t) => t?.text);
  if (problems.length === 0 && order.some((text, i) => text !== texts[i]))
    problems.push(
      `takes in another order than the bodies: ${JSON.stringify(order)} for ${JSON.stringify(texts)}`,
    );
  return problems;
}

/** A take the model adds before the call; the command fills in its ids from the answer. */
export function addTake(
  m: SequenceModel,
  account: AccountName,
  text: string,
  via: ModelTake['via'],
): ModelTake {
  const take: ModelTake = { key: m.takes.length + 1, account, text, deleted: false, via };
  m.takes.push(take);
  return take;
}

/** Whether a generation answered with `takeId` is a new job (SEQ-REPEAT-NEW-TAKE): no take of the model has it. */
export function isNewTakeId(m: SequenceModel, takeId: string, self: ModelTake): boolean {
  return !m.takes.some((t) => t !== self && t.takeId === takeId);
}

/** Whether some earlier take of the account asked for the same text: a generation that repeats an input. */
export function repeatsInput(m: SequenceModel, take: ModelTake): boolean {
  return m.takes.some(
    (t) => t !== take && t.account === take.account && t.text === take.text && t.via === 'rest',
  );
}

export function recordDeleted(take: ModelTake): void {
  take.deleted = true;
}

/** A take the model can no longer know the state of: it leaves the model's uses and judgments. */
export function forgetTake(take: ModelTake): void {
  take.forgotten = true;
}

export function canDelete(m: SequenceModel, account: AccountName): boolean {
  return m.learned.deleteOffered !== false && liveTakes(m, account).length > 0;
}

export function addSession(m: SequenceModel, account: AccountName): ModelSession {
  const session: ModelSession = { key: m.sessions.length + 1, account, depth: 0, loggedOut: false };
  m.sessions.push(session);
  return session;
}

export function openSessions(m: SequenceModel): ModelSession[] {
  return m.sessions.filter((s) => !s.loggedOut && !s.endedWithSibling);
}

/**
 * What a refresh of `session` must answer. The chain's own logout ends it: a refusal is a MUST
 * ("Afterwards no new access token can be obtained with it", SEQ-REFRESH-CHAIN-ANY-DEPTH at any
 * depth); before it, a new pair at any depth. Once another session of the customer was logged out,
 * a refusal is only an observation (SEQ-LOGOUT-ONE-SESSION, INFO: logging out everywhere is a
 * design the contract allows); a session the server ended that way is not judged further ('either').
 */
export function expectRefresh(
  m: SequenceModel,
  session: ModelSession,
  /**
   * Whether the run, outside this sequence (another file, running in parallel), logged out a session
   * of the same customer since this session's login: the same latitude as a sibling's logout.
   */
  runLoggedOut = false,
): { outcome: 'pair' | 'refused' | 'either'; requirement: RequirementId } {
  if (session.loggedOut) return { outcome: 'refused', requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH' };
  if (session.endedWithSibling) return { outcome: 'either', requirement: 'SEQ-LOGOUT-ONE-SESSION' };
  const sibling =
    runLoggedOut || m.sessions.some((s) => s !== session && s.account === session.account && s.loggedOut);
  return { outcome: 'pair', requirement: sibling ? 'SEQ-LOGOUT-ONE-SESSION' : 'SEQ-REFRESH-CHAIN-ANY-DEPTH' };
}

/** The server refused `session` after a sibling's logout (log out everywhere): observed, not a finding. */
export function recordEndedWithSibling(m: SequenceModel, session: ModelSession): void {
  session.endedWithSibling = true;
  m.observed.add('SEQ-LOGOUT-ONE-SESSION');
}

/** A refresh refused after the chain's own logout: the chain's end, observed past the fixed suite's depth. */
export function recordRefusedAfterLogout(m: SequenceModel, session: ModelSession): void {
  if (session.depth >= 2) m.observed.add('SEQ-REFRESH-CHAIN-ANY-DEPTH');
}

export function recordRefreshed(m: SequenceModel, session: ModelSession, runLoggedOut = false): void {
  session.depth += 1;
  // A chain past the fixed suites' depth (three, then a fourth) is what only a sequence judges.
  if (session.depth >= 2) m.observed.add('SEQ-REFRESH-CHAIN-ANY-DEPTH');
  if (runLoggedOut || m.sessions.some((s) => s !== session && s.account === session.account && s.loggedOut))
    m.observed.add('SEQ-LOGOUT-ONE-SESSION');
}

export function recordLoggedOut(session: ModelSession): void {
  session.loggedOut = true;
}

export function addSocket(m: SequenceModel, account: AccountName): ModelSocket {
  const socket: ModelSocket = { key: m.sockets.length + 1, account, requests: 0 };
  m.sockets.push(socket);
  return socket;
}

/**
 * How a take request on a websocket connection ended, for SEQ-WS-REQUESTS-ANY-COUNT: served (ready,
 * with its take id); not served, a finding (it ended otherwise, or it was left silent past the
 * harness's own request bound on an open connection that answered an earlier request: the evidence
 * WS-SERIALIZED rests on, `evidenceAgainst`); or timed out, which concludes nothing (a slow server,
 * a take slower than the ready bound: latency is never a verdict).
 */
export function socketRequestEnd(ended: {
  outcome: string;
  status: unknown;
  takeId: string | undefined;
  evidenceAgainst: string | undefined;
}): 'served' | 'not-served' | 'timed-out' {
  if (ended.outcome === 'ended' && ended.status === 'ready' && ended.takeId) return 'served';
  if (ended.outcome === 'timeout' && ended.evidenceAgainst === undefined) return 'timed-out';
  return 'not-served';
}

export function recordSocketRequest(m: SequenceModel, socket: ModelSocket): void {
  socket.requests += 1;
  if (socket.requests >= 2) m.observed.add('SEQ-WS-REQUESTS-ANY-COUNT');
}

/** What GET of a take must answer: the take, or (deleted) a client error. */
export function expectTakeGet(take: ModelTake): 'take' | 'gone' {
  return take.deleted ? 'gone' : 'take';
}

/** The class of a status the model judges: a success, a client error, a server error. */
export function statusClass(status: number): '2xx' | '3xx' | '4xx' | '5xx' | 'other' {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

/**
 * What a list of `account`'s takes filtered to every id the sequence made must hold: the live ones
 * (in any order: the order is the server's), none of the deleted ones. Returns what is wrong, or [].
 */
export function listProblems(m: SequenceModel, account: AccountName, listed: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set(listed);
  const name = (t: ModelTake) => `T${t.key} (${t.takeId})`;
  const missing = liveTakes(m, account).filter((t) => !seen.has(t.takeId!));
  if (missing.length > 0)
    problems.push(`missing ${missing.map(name).join(', ')}, which the sequence made and did not delete`);
  const ghosts = deletedTakes(m, account).filter((t) => seen.has(t.takeId!));
  if (ghosts.length > 0)
    problems.push(`still lists ${ghosts.map(name).join(', ')}, deleted earlier in the sequence`);
  const known = new Set(takesOf(m, account).map((t) => t.takeId));
  const strangers = listed.filter((id) => !known.has(id));
  if (strangers.length > 0) problems.push(`lists ${strangers.join(', ')}, no take of the filter`);
  return problems;
}

/**
 * Whether a paged read is one a sequence alone brings about: pages of a list some change of the
 * sequence touched. A generation is a change: delete is only a wire fact, so a server that offers
 * none is judged on pages after its generations.
 */
export function recordPaged(m: SequenceModel, account: AccountName, pages: number): void {
  if (pages >= 2 && takesOf(m, account).length > 0) m.observed.add('SEQ-LIST-PAGES-AFTER-CHANGES');
}

/**
 * The wire facts' operations a server may not offer, what only each brings about (a server without it
 * cannot be judged on those: not applicable), and the sentence that says so.
 */
export const WIRE_OPERATIONS = {
  deleteOffered: {
    needs: ['SEQ-ERROR-AFTER-CHANGE-4XX', 'SEQ-DELETED-TAKE-GONE'],
    reason: 'the server offers no DELETE (a wire fact, not the contract)',
    wouldJudge: 'a server that offers DELETE /v1/speak/takes/{id}',
  },
  updateOffered: {
    needs: ['SEQ-VOICE-UPDATE-EVERY-VIEW', 'SEQ-VOICE-STATUS-THROUGH-CHANGES'],
    reason: 'the server offers no voice update (a wire fact, not the contract)',
    wouldJudge: 'a server that offers POST /v1/speak/voices/{id}',
  },
  batchOffered: {
    needs: ['SEQ-BATCH-EVERY-TAKE'],
    reason: 'the server offers no batch generation (a wire fact, not the contract)',
    wouldJudge: 'a server that accepts an array on POST /v1/speak/takes/generate',
  },
} as const satisfies Record<
  keyof Learned,
  { needs: readonly RequirementId[]; reason: string; wouldJudge: string }
>;

export type Offered = Partial<Record<keyof Learned, boolean>>;

/**
 * Whether the run's server offers each wire-fact operation, from what its sequences learned: true
 * once any call of it succeeded, false when one was refused as not offered and none succeeded.
 */
export function offeredIn(learned: readonly Learned[]): Offered {
  const offered: Offered = {};
  for (const key of Object.keys(WIRE_OPERATIONS) as (keyof Learned)[]) {
    if (learned.some((l) => l[key] === true)) offered[key] = true;
    else if (learned.some((l) => l[key] === false)) offered[key] = false;
  }
  return offered;
}

/** The wire-fact operation the server does not offer that `id` needs, if any. */
export function missingOperation(id: RequirementId, offered: Offered): keyof Learned | undefined {
  return (Object.keys(WIRE_OPERATIONS) as (keyof Learned)[]).find(
    (key) => offered[key] === false && (WIRE_OPERATIONS[key].needs as readonly RequirementId[]).includes(id),
  );
}

/**
 * How the suite concludes `id` after its sequences: judged when some sequence brought its state
 * about; not applicable when only a wire fact's operation (delete, update, batch) brings it about
 * and the server offers none; else not observed (more sequences would judge it).
 */
export function sequenceConclusion(
  id: RequirementId,
  observed: ReadonlySet<RequirementId>,
  offered: Offered,
): 'observed' | 'not-applicable' | 'not-observed' {
  if (observed.has(id)) return 'observed';
  if (missingOperation(id, offered) !== undefined) return 'not-applicable';
  return 'not-observed';
}
