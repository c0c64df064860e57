/** The one typed configuration of a conformance run: what `speakcheck run` resolves from flags and
 *  environment, and what every suite sees through `useSpeak().config`. */

import type { Expectation } from '../requirements/expectations.ts';

/** strict: MUST and SHOULD gate; lenient: only MUST; sdk: strict plus the SDK's wire facts as SHOULD. */
export type Profile = 'strict' | 'lenient' | 'sdk';
/** embedded: `serve` as a child process; container: API + worker containers (src/stack/container.ts). */
export type Target = 'embedded' | 'remote' | 'container';

/** A listening address: port 0 is any free port; no host means the default (127.0.0.1). */
export interface ListenAddress {
  host?: string;
  port: number;
}

/** Where a server is and how to sign in: the options `run`, `load` and `perf` share. */
export interface TargetFlags {
  baseUrl?: string;
  authUrl?: string;
  email?: string;
  password?: string;
  token?: string;
  model?: string;
}

export interface Timeouts {
  /** Bound of one HTTP exchange (headers and body together). */
  requestMs: number;
  /** Bound of waiting for an asynchronous item (voice or take) to become ready. */
  readyMs: number;
}

/** What the run knows about lifetimes, so the expiry MUSTs can be waited out (or say why not). */
export interface ExpiryConfig {
  /** `--access-token-lifetime`: seconds an access token lives (absent: read a JWT's exp, if any). */
  accessTokenLifetimeS?: number;
  /** `--ws-url-lifetime`: seconds a websocket URL lives (absent: read the URL's expiry, if shown). */
  wsUrlLifetimeS?: number;
  /** `--max-expiry-wait`: the longest lifetime the run waits out; a longer one skips the requirement. */
  maxWaitS: number;
}

export interface RunConfig {
  /** Where the server under test lives, without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Where `/auth/login|refresh|logout` live; the base url unless told otherwise. */
  authUrl: string;
  email?: string;
  password?: string;
  /** A permanent token: used as the bearer instead of logging in; never refreshed. */
  token?: string;
  /** The model under test; the first listed model when absent. */
  model?: string;
  /** Public URL of the harness's webhook sink, for servers that cannot reach loopback. */
  webhookUrl?: string;
  /** Where the webhook sink listens (`--webhook-listen HOST:PORT`); see src/client/webhook-sink.ts for the default. */
  webhookListen?: ListenAddress;
  timeouts: Timeouts;
  expiry: ExpiryConfig;
  profile: Profile;
  /** Areas to run (empty: all). With a requirement selection and no --only: the selection's areas. */
  only: string[];
  /** `--requirement`: only tests covering one of these ids run, only these are judged (empty: all). */
  requirements: string[];
  /** Upper bound of HTTP requests in flight for the whole run. */
  concurrency: number;
  /** Keep what the run creates instead of deleting it at the end. */
  keep: boolean;
  reportDir: string;
  target: Target;
  /** Short random id of this run; part of every name the run creates. */
  runId: string;
  /** `speakcheck-<runId>-`: the prefix of every name the run creates. */
  namePrefix: string;
  /** `--expect FILE` (or `speakcheck.expect.yaml` when present): the failures already known. */
  expect?: { file: string; entries: Expectation[] };
}

/** The environment variable that carries the resolved RunConfig (JSON) to the vitest workers. */
export const RUN_CONFIG_ENV = 'SPEAKCHECK_RUN_CONFIG';
