/**
 * The auth suite's refresh chain (one login, then refreshes that build on each other), fair to a
 * server that logs out everywhere. The suites run in parallel, and a logout another file sends for
 * the same customer may end this chain on such a server, as the contract allows ("revokes that
 * refresh token. Afterwards no new access token can be obtained with it." names no other token that
 * must survive; SEQ-LOGOUT-ONE-SESSION is INFO). A refusal after such a logout (src/facts/logouts.ts)
 * proves nothing about refresh: the chain starts over from a new login, at most CHAIN_RESTARTS times.
 * A refusal no logout of the run explains is judged as before.
 */
import type { TokenPair } from '../../src/checks/tokens.ts';
import {
  cannotObserve,
  type Exchange,
  loggedOutSince,
  observe,
  type SpeakContext,
} from '../../src/harness/index.ts';
import { once } from './scenarios.ts';

/** Starts over at most this many times (each after a logout elsewhere ended the chain). */
export const CHAIN_RESTARTS = 3;

/** Thrown by a step of the chain that a logout elsewhere ended: caught by `step`, which starts over. */
class EndedElsewhere extends Error {}

type Refresh = (
  speak: SpeakContext,
  token: string,
  o?: { email?: boolean; bearer?: string },
) => Promise<Exchange>;
type Login = (speak: SpeakContext) => Promise<TokenPair>;

export interface RefreshChainDeps {
  login: Login;
  refresh: Refresh;
  expectPair(exchange: Exchange, what: string): TokenPair;
  /** The access token a client carries after its 401 (undefined when not even that is refused). */
  refusedBearer(speak: SpeakContext, access: string): Promise<string | undefined>;
  /** The first chain's login (the suite's shared one) and when it was sent. */
  start: { login: Login; sentMs: () => number };
}

/** A login made once (shared), and when it was sent (0 before). */
export function loginOnce(login: Login): { login: Login; sentMs: () => number } {
  let sent = 0;
  return {
    login: once((speak: SpeakContext) => {
      sent = Date.now();
      return login(speak);
    }),
    sentMs: () => sent,
  };
}

export function refreshChain(d: RefreshChainDeps) {
  /**
   * The run's logouts of the customer since `sinceMs` explain the refusal `exchange` (`own`
   * excluded); never with a permanent token (no email: nothing is explained).
   */
  const endedElsewhere = (
    speak: SpeakContext,
    exchange: Exchange,
    sinceMs: number,
    own?: string,
  ): boolean => {
    const email = speak.config.email;
    const served = exchange.status >= 200 && exchange.status < 300;
    return !served && email !== undefined && loggedOutSince(email, sinceMs, undefined, own);
  };

  /** The chain's scenarios from one login (`start`, sent at `sinceMs()`). */
  const chainFrom = (start: Login, sinceMs: () => number) => {
    const judged: Refresh = async (speak, token, o) => {
      const exchange = await d.refresh(speak, token, o);
      if (endedElsewhere(speak, exchange, sinceMs())) throw new EndedElsewhere();
      return exchange;
    };
    const refreshed = once(async (speak: SpeakContext) => {
      const from = await start(speak);
      return { from, exchange: await judged(speak, from.refresh_token) };
    });
    const refreshedWithBearer = once(async (speak: SpeakContext) => {
      const from = d.expectPair((await refreshed(speak)).exchange, 'POST /auth/refresh');
      // Carrying what a client has after its 401, not a valid token the refresh could lean on.
      const stale = await d.refusedBearer(speak, from.access_token);
      return {
        stale: stale !== undefined,
        exchange: await judged(speak, from.refresh_token, { bearer: stale ?? from.access_token }),
      };
    });
    const chain = once(async (speak: SpeakContext) => {
      let pair = d.expectPair(
        (await refreshedWithBearer(speak)).exchange,
        'POST /auth/refresh with Authorization',
      );
      const pairs = [pair];
      for (let round = 1; round <= 3; round++) {
        pair = d.expectPair(
          await judged(speak, pair.refresh_token),
          `POST /auth/refresh (chain round ${round})`,
        );
        pairs.push(pair);
      }
      return pairs;
    });
    const refreshedWithoutEmail = once(async (speak: SpeakContext) => {
      const from = (await chain(speak)).at(-1)!;
      return { from, exchange: await judged(speak, from.refresh_token, { email: false }) };
    });
    return { sinceMs, refreshed, refreshedWithBearer, chain, refreshedWithoutEmail };
  };
  type Chain = ReturnType<typeof chainFrom>;

  let current = chainFrom(d.start.login, d.start.sentMs);

  /** A step of the chain; when a logout elsewhere ended it, the chain starts over from a new login. */
  const step =
    <T>(of: (c: Chain, speak: SpeakContext) => Promise<T>): ((speak: SpeakContext) => Promise<T>) =>
    async (speak) => {
      for (let n = 0; ; n++) {
        const c = current;
        try {
          return await of(c, speak);
        } catch (error) {
          if (!(error instanceof EndedElsewhere)) throw error;
          observe(
            'auth.chain-ended-elsewhere',
            'a refresh of the chain was refused after the run logged out another session of the customer: this server logs out everywhere (allowed); the chain starts over from a new login.',
          );
          if (n >= CHAIN_RESTARTS)
            cannotObserve(
              `the refresh chain was ended ${n + 1} times by the run's own logouts elsewhere (this server logs out everywhere)`,
              'a run with --only auth, where no other file logs out the customer',
            );
          if (current === c) {
            const again = loginOnce(d.login);
            current = chainFrom(again.login, again.sentMs);
          }
        }
      }
    };

  /**
   * Fresh access tokens made by the same step (a refresh), for a token gone stale in our waits: from
   * a login of their own, each refresh building on the one before, `depth` deep before the first is
   * given (the token it stands in for was that deep). Never a refresh token the chain or another test
   * still holds: refreshing one of those revokes it under their feet (rotation), and that test then
   * fails on our doing (CI 2026-11-29, short-lifetimes: chain round 1 refused). After a logout
   * elsewhere in the run ended it (a server that logs out everywhere), from a new login.
   */
  const freshAccess = (speak: SpeakContext, what: string, depth = 1): (() => Promise<string>) => {
    let own: { refreshToken: string; sinceMs: number; made: number } | undefined;
    const ownLogin = async () => {
      const sinceMs = Date.now();
      return { refreshToken: (await d.login(speak)).refresh_token, sinceMs, made: 0 };
    };
    const refreshOnce = async (): Promise<string> => {
      own ??= await ownLogin();
      let exchange = await d.refresh(speak, own.refreshToken);
      if (endedElsewhere(speak, exchange, own.sinceMs)) {
        own = await ownLogin();
        exchange = await d.refresh(speak, own.refreshToken);
      }
      const pair = d.expectPair(exchange, what);
      own.refreshToken = pair.refresh_token;
      own.made++;
      return pair.access_token;
    };
    return async () => {
      let access = await refreshOnce();
      while (own!.made < depth) access = await refreshOnce();
      return access;
    };
  };

  return { step, endedElsewhere, freshAccess };
}
