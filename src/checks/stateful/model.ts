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
import type { RequirementId } from '../../requirements/index.ts';

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
}

export interface SequenceModel {
  readonly accounts: readonly AccountName[];
  readonly takes: ModelTake[];
  readonly sessions: ModelSession[];
  readonly sockets: ModelSocket[];
  readonly learned: Learned;
  /** What the sequence has brought about: the requirement ids it could judge (a pass needs an observation). */
  readonly observed: Set<RequirementId>;
}

/** Bounds that keep one sequence cheap against a server that bills per character. */
export const MODEL_LIMITS = { takes: 7, sessions: 3, sockets: 2, requestsPerSocket: 5 } as const;

export function newModel(accounts: readonly AccountName[]): SequenceModel {
  return { accounts, takes: [], sessions: [], sockets: [], learned: {}, observed: new Set() };
}

export function takesOf(m: SequenceModel, account: AccountName): ModelTake[] {
  return m.takes.filter((t) => t.account === account && t.takeId !== undefined);
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

export function canGenerate(m: SequenceModel): boolean {
  return m.takes.length < MODEL_LIMITS.takes;
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
): { outcome: 'pair' | 'refused' | 'either'; requirement: RequirementId } {
  if (session.loggedOut) return { outcome: 'refused', requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH' };
  if (session.endedWithSibling) return { outcome: 'either', requirement: 'SEQ-LOGOUT-ONE-SESSION' };
  const sibling = m.sessions.some((s) => s !== session && s.account === session.account && s.loggedOut);
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

export function recordRefreshed(m: SequenceModel, session: ModelSession): void {
  session.depth += 1;
  // A chain past the fixed suites' depth (three, then a fourth) is what only a sequence judges.
  if (session.depth >= 2) m.observed.add('SEQ-REFRESH-CHAIN-ANY-DEPTH');
  if (m.sessions.some((s) => s !== session && s.account === session.account && s.loggedOut))
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
 * Pages of one `length`, read one after another with no change between them, against the whole list
 * read just before (the server's order): they must concatenate to it. Returns what is wrong, or [].
 */
export function pagesProblems(
  pages: readonly (readonly string[])[],
  whole: readonly string[],
  length: number,
): string[] {
  const problems: string[] = [];
  pages.forEach((page, i) => {
    if (page.length > length)
      problems.push(`page ${i + 1} holds ${page.length} items, more than length=${length}`);
  });
  const joined = pages.flat();
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const id of joined) {
    if (seen.has(id)) twice.push(id);
    seen.add(id);
  }
  if (twice.length > 0) problems.push(`${twice.join(', ')} on two pages`);
  const skipped = whole.filter((id) => !seen.has(id));
  if (skipped.length > 0) problems.push(`pages skip ${skipped.join(', ')}, which the whole list holds`);
  const extra = joined.filter((id) => !whole.includes(id));
  if (extra.length > 0) problems.push(`pages hold ${extra.join(', ')}, which the whole list does not`);
  if (problems.length === 0 && joined.some((id, i) => id !== whole[i]))
    problems.push(
      `pages hold the whole list's items in another order: ${joined.join(', ')} vs ${whole.join(', ')}`,
    );
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

/** What only a deleted take brings about: a server that offers no DELETE (a wire fact) cannot be judged on it. */
export const NEEDS_DELETE: readonly RequirementId[] = ['SEQ-ERROR-AFTER-CHANGE-4XX', 'SEQ-DELETED-TAKE-GONE'];

export const NO_DELETE_REASON = 'the server offers no DELETE (a wire fact, not the contract)';

/**
 * Whether the run's server offers delete, from what its sequences learned: true once any DELETE of
 * a live take succeeded, false when one was refused as an unknown route and none succeeded.
 */
export function deleteOfferedIn(learned: readonly Learned[]): boolean | undefined {
  if (learned.some((l) => l.deleteOffered === true)) return true;
  return learned.some((l) => l.deleteOffered === false) ? false : undefined;
}

/**
 * How the suite concludes `id` after its sequences: judged when some sequence brought its state
 * about; not applicable when only a delete brings it about and the server offers none; else not
 * observed (more sequences would judge it).
 */
export function sequenceConclusion(
  id: RequirementId,
  observed: ReadonlySet<RequirementId>,
  deleteOffered: boolean | undefined,
): 'observed' | 'not-applicable' | 'not-observed' {
  if (observed.has(id)) return 'observed';
  if (deleteOffered === false && NEEDS_DELETE.includes(id)) return 'not-applicable';
  return 'not-observed';
}
