/**
 * The commands on sessions (login, refresh chains of any depth, logout) and on websocket connections
 * (several take requests per connection), with their preconditions on the model, the real calls and
 * the postconditions (see take-commands.ts).
 */
import { Finding, show } from '../../src/checks/finding.ts';
import {
  type AccountName,
  addSession,
  addSocket,
  addTake,
  canGenerate,
  expectRefresh,
  MODEL_LIMITS,
  type ModelSession,
  type ModelSocket,
  openSessions,
  pick,
  recordEndedWithSibling,
  recordLoggedOut,
  recordRefreshed,
  recordRefusedAfterLogout,
  recordSocketRequest,
  type SequenceModel,
  socketRequestEnd,
  statusClass,
} from '../../src/checks/stateful/model.ts';
import { websocketOpenLines, websocketRequestLines } from '../../src/checks/stateful/script-websocket.ts';
import { authCall, capture } from '../../src/checks/stateful/script-words.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  type Exchange,
  fetchWebsocketUrl,
  loggedOutSince,
  recordedLogout,
  type SpeakStreamConnection,
  SpeakStreamConnection as Stream,
} from '../../src/harness/index.ts';
import { type Real, SequenceTimeout, type TokenPair } from './real.ts';
import { type SequenceCommand, violate } from './take-commands.ts';

const sessionVar = (key: number) => `R${key}`;
const where = (e: Exchange) => `${e.method} ${new URL(e.url).pathname}`;

function pairOf(exchange: Exchange): TokenPair | undefined {
  const json = exchange.json as Partial<TokenPair> | undefined;
  if (statusClass(exchange.status) !== '2xx') return undefined;
  if (typeof json?.access_token !== 'string' || typeof json.refresh_token !== 'string') return undefined;
  if (!json.access_token || !json.refresh_token) return undefined;
  return { access_token: json.access_token, refresh_token: json.refresh_token };
}

export class Login implements SequenceCommand {
  constructor(readonly account: AccountName) {}
  check(m: Readonly<SequenceModel>): boolean {
    return m.accounts.includes(this.account) && m.sessions.length < MODEL_LIMITS.sessions;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const credentials = r.world.credentials[this.account];
    const session = addSession(m, this.account);
    if (!credentials) {
      // A run with a token instead of a password cannot log in again: the session stays unused.
      recordLoggedOut(session);
      return;
    }
    const email = this.account === 'primary' ? 'SPEAK_EMAIL' : 'SPEAK_SECOND_EMAIL';
    const password = this.account === 'primary' ? 'SPEAK_PASSWORD' : 'SPEAK_SECOND_PASSWORD';
    r.step(`S${session.key} = log in as ${this.account} (a session of its own)`, [
      authCall('/auth/login', { email, password }),
      capture(sessionVar(session.key), 'refresh_token'),
    ]);
    r.loggedInAtMs.set(session.key, Date.now());
    const exchange = await r.world.speak.anon.post('/auth/login', credentials);
    const pair = pairOf(exchange);
    if (!pair)
      throw new Finding(`login as ${this.account} answered ${exchange.status}: ${show(exchange.text)}`, {
        requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH',
        where: where(exchange),
      });
    r.sessions.set(session.key, pair);
  }
  toString(): string {
    return `Login(${this.account})`;
  }
}

/**
 * Whether the run logged out a session of `session`'s customer, outside this sequence, since its
 * login (another file in parallel; `own`, the key of the caller's own logout, excluded).
 */
function runLoggedOut(r: Real, session: ModelSession, own?: string): boolean {
  const email = r.world.credentials[session.account]?.email;
  const since = r.loggedInAtMs.get(session.key);
  if (email === undefined || since === undefined) return false;
  return loggedOutSince(email, since, undefined, own);
}

export class Refresh implements SequenceCommand {
  constructor(
    readonly n: number,
    /** Refreshes in a row on the chain: chains past any fixed scenario's depth. */
    readonly times: number,
  ) {}
  check(m: Readonly<SequenceModel>): boolean {
    return m.sessions.length > 0;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const session = pick(m.sessions, this.n)!;
    const credentials = r.world.credentials[session.account];
    if (!credentials) return;
    const email = session.account === 'primary' ? 'SPEAK_EMAIL' : 'SPEAK_SECOND_EMAIL';
    for (let i = 0; i < this.times; i++) {
      let expected = expectRefresh(m, session, runLoggedOut(r, session));
      // Ended with a sibling's logout (log out everywhere, which the contract allows): nothing to judge.
      if (expected.outcome === 'either') return;
      const pair = r.sessions.get(session.key)!;
      r.step(
        `refresh S${session.key} (${session.account}, chain depth ${session.depth + 1}${session.loggedOut ? ', logged out earlier' : ''})`,
        [
          authCall('/auth/refresh', { refresh_token: sessionVar(session.key), email }),
          `[ "$STATUS" = 200 ] && ${capture(sessionVar(session.key), 'refresh_token')}`,
        ],
      );
      const exchange = await r.world.speak.anon.post('/auth/refresh', {
        refresh_token: pair.refresh_token,
        email: credentials.email,
      });
      const next = pairOf(exchange);
      // Asked after the answer: a logout of the customer by another file may have raced this refresh.
      const elsewhere = runLoggedOut(r, session);
      if (!next) expected = expectRefresh(m, session, elsewhere);
      if (expected.outcome === 'refused') {
        if (next)
          throw new Finding(
            `refresh of S${session.key} (chain depth ${session.depth}) after its own logout answered a new token pair: logout revokes that refresh token, and afterwards no new access token can be obtained with it`,
            { requirement: 'SEQ-REFRESH-CHAIN-ANY-DEPTH', where: where(exchange) },
          );
        recordRefusedAfterLogout(m, session);
        return;
      }
      if (!next && expected.requirement === 'SEQ-LOGOUT-ONE-SESSION') {
        violate(
          r,
          new Finding(
            `refresh of S${session.key} (${session.account}, not logged out) answered ${exchange.status} after another session of the customer logged out${elsewhere ? ' (in this sequence or elsewhere in the run)' : ''}: this server's logout ends every session of the customer (the contract leaves it open)`,
            { requirement: 'SEQ-LOGOUT-ONE-SESSION', where: where(exchange) },
          ),
        );
        recordEndedWithSibling(m, session);
        return;
      }
      if (!next) {
        const siblings = m.sessions.filter(
          (s) => s !== session && s.account === session.account && s.loggedOut,
        );
        throw new Finding(
          `refresh ${session.depth + 1} of S${session.key}'s chain (${session.account}; the session was not logged out${siblings.length > 0 ? `; ${siblings.map((s) => `S${s.key}`).join(', ')} of the same customer was` : ''}) answered ${exchange.status}: ${show(exchange.text)}`,
          {
            requirement: expected.requirement,
            where: where(exchange),
            expected: 'a new token pair',
            actual: exchange.status,
          },
        );
      }
      r.sessions.set(session.key, next);
      recordRefreshed(m, session, elsewhere);
    }
  }
  toString(): string {
    return `Refresh(${this.n}, ${this.times})`;
  }
}

export class Logout implements SequenceCommand {
  constructor(readonly n: number) {}
  check(m: Readonly<SequenceModel>): boolean {
    return openSessions(m as SequenceModel).length > 0;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const session = pick(openSessions(m), this.n)!;
    const pair = r.sessions.get(session.key);
    if (!pair) return;
    r.step(`log out S${session.key} (${session.account})`, [
      authCall('/auth/logout', { refresh_token: sessionVar(session.key) }),
    ]);
    // Recorded for the run: with a server that logs out everywhere, other files' sessions end too.
    let own: string | undefined;
    const exchange = await recordedLogout(r.world.credentials[session.account]?.email, (key) => {
      own = key;
      return r.world.speak.anon.post('/auth/logout', { refresh_token: pair.refresh_token });
    });
    if (statusClass(exchange.status) !== '2xx') {
      const expected = expectRefresh(m, session, runLoggedOut(r, session, own));
      // After a sibling's logout the server may have ended this session too (log out everywhere).
      if (expected.requirement === 'SEQ-LOGOUT-ONE-SESSION' && statusClass(exchange.status) === '4xx') {
        violate(
          r,
          new Finding(
            `logout of S${session.key} (${session.account}) answered ${exchange.status} after another session of the customer logged out: this server's logout ends every session of the customer (the contract leaves it open)`,
            { requirement: 'SEQ-LOGOUT-ONE-SESSION', where: where(exchange) },
          ),
        );
        recordEndedWithSibling(m, session);
        return;
      }
      throw new Finding(
        `logout of S${session.key} (${session.account}, not logged out before) answered ${exchange.status}: ${show(exchange.text)}`,
        { requirement: expected.requirement, where: where(exchange) },
      );
    }
    recordLoggedOut(session);
  }
  toString(): string {
    return `Logout(${this.n})`;
  }
}

/**
 * Take requests on a websocket connection, one after another: on a new connection (`fresh`) or the
 * customer's last one, `times` in a row (connections serving more requests than any fixed scenario).
 */
export class WebsocketTake implements SequenceCommand {
  constructor(
    readonly account: AccountName,
    readonly fresh: boolean,
    readonly text: string,
    readonly times = 1,
  ) {}
  private socketOf(m: SequenceModel) {
    return [...m.sockets].reverse().find((s) => s.account === this.account);
  }
  check(m: Readonly<SequenceModel>): boolean {
    const model = m as SequenceModel;
    if (!m.accounts.includes(this.account) || !canGenerate(model)) return false;
    const socket = this.socketOf(model);
    if (this.fresh || !socket) return m.sockets.length < MODEL_LIMITS.sockets;
    return socket.requests < MODEL_LIMITS.requestsPerSocket;
  }
  async run(m: SequenceModel, r: Real): Promise<void> {
    const existing = this.fresh ? undefined : this.socketOf(m);
    let socket = existing ?? addSocket(m, this.account);
    let conn = r.sockets.get(socket.key) ?? (await this.open(r, socket));
    for (
      let i = 0;
      i < this.times && canGenerate(m) && socket.requests < MODEL_LIMITS.requestsPerSocket;
      i++
    ) {
      // Closed by the server while idle between requests, which the contract allows ("A disconnect
      // does not happen while a request is being processed"): noted, and the request goes on a new
      // connection. Checked in the same tick as the send, so only requests sent on an open one are judged.
      if (!conn.open) {
        const closed = socket;
        socket = addSocket(m, this.account);
        r.world.infoNotes.add(
          `websocket: the server closed connection W${closed.key} while idle, after ${closed.requests} request(s) (allowed: a disconnect only may not happen while a request is being processed); the next request went on a new connection W${socket.key}`,
        );
        conn = await this.open(r, socket);
      }
      await this.request(m, r, conn, socket);
    }
  }

  private async open(r: Real, socket: ModelSocket): Promise<SpeakStreamConnection> {
    r.step(
      `W${socket.key} = open a websocket connection as ${this.account}`,
      websocketOpenLines(this.account, socket.key, r.world.speak.model.name),
      { websocket: true },
    );
    const url = await fetchWebsocketUrl(r.client(this.account), r.world.speak.model.name, 'spec');
    const conn = await Stream.connect(url, { timeoutMs: r.world.speak.config.timeouts.requestMs });
    r.sockets.set(socket.key, conn);
    return conn;
  }

  private async request(
    m: SequenceModel,
    r: Real,
    conn: SpeakStreamConnection,
    socket: ModelSocket,
  ): Promise<void> {
    const take = addTake(m, this.account, this.text, 'websocket');
    const requestId = r.nextRequestId();
    const data = { text: this.text, voice_id: r.voice(this.account) };
    r.step(
      `T${take.key} = request ${socket.requests + 1} on W${socket.key}: ${show(this.text)}`,
      websocketRequestLines({
        account: this.account,
        socket: socket.key,
        take: take.key,
        requestId,
        text: this.text,
      }),
      { websocket: true },
    );
    const ended = await conn.generate(data, {
      requestId,
      timeouts: {
        ...DEFAULT_STREAM_TIMEOUTS,
        firstMessageMs: r.firstMessageBound(),
        endOfTakeMs: r.world.speak.config.timeouts.readyMs,
      },
    });
    if (ended.takeId) {
      take.takeId = ended.takeId;
      take.voiceId = data.voice_id;
      r.track(this.account, ended.takeId);
    }
    const status = (ended.lastTake as { status?: unknown } | undefined)?.status;
    const end = socketRequestEnd({
      outcome: ended.outcome,
      status,
      takeId: ended.takeId,
      evidenceAgainst: ended.evidenceAgainst,
    });
    if (end === 'timed-out')
      throw new SequenceTimeout(
        `request ${socket.requests + 1} on websocket connection W${socket.key} (${this.account}) timed out: ${ended.diagnostic ?? 'no end within the bound'}`,
      );
    if (end === 'not-served')
      throw new Finding(
        `request ${socket.requests + 1} on websocket connection W${socket.key} (${this.account}) ended ${ended.outcome}${ended.diagnostic ? ` (${ended.diagnostic})` : ''}, last status ${show(status)}: every request of a connection is served, one after another`,
        { requirement: 'SEQ-WS-REQUESTS-ANY-COUNT', where: `websocket W${socket.key}` },
      );
    recordSocketRequest(m, socket);
  }
  toString(): string {
    return `WebsocketTake(${this.account}, ${this.fresh ? 'new connection' : 'last connection'}, ${JSON.stringify(this.text)}, ${this.times})`;
  }
}
