/** The one typed configuration of a conformance run: what `speakcheck run` resolves from flags and
 *  environment. The suites see it as part of the run plan (src/harness/run-plan.ts), through
 *  `speak.config` (the test's `speak` fixture). */

/** strict: MUST, SHOULD and security checks gate; lenient: only MUST; acceptance: strict and everything judged; sdk: strict plus the SDK's wire facts as SHOULD. */
export type Profile = 'strict' | 'lenient' | 'acceptance' | 'sdk';

/** `--expiry`: quick (wait out lifetimes up to --max-expiry-wait) or full (wait out the real ones). */
export type ExpiryMode = 'quick' | 'full';

/**
 * What each profile gates. A new profile adds its row here (the Record makes it a type error to
 * forget one), and parseProfile accepts it from PROFILES.
 *   shouldGates:     a failed (or blocked) SHOULD fails the run, and CONFORMS needs every SHOULD judged;
 *   securityGates:   a failed (or blocked) security check (tenant isolation) fails the run;
 *   notJudgedGates:  a MUST or SHOULD left unjudged (skipped, not applicable, not concluded) fails the
 *                    run (exit 1): the profile of a buyer's acceptance, where "not judged" is no answer;
 *   expiry:          the default of --expiry in this profile.
 */
export const PROFILE_RULES: Record<
  Profile,
  {
    shouldGates: boolean;
    securityGates: boolean;
    notJudgedGates: boolean;
    expiry: ExpiryMode;
    summary: string;
  }
> = {
  strict: {
    shouldGates: true,
    securityGates: true,
    notJudgedGates: false,
    expiry: 'quick',
    summary: 'MUST, SHOULD and security checks gate; default',
  },
  lenient: {
    shouldGates: false,
    securityGates: false,
    notJudgedGates: false,
    expiry: 'quick',
    summary: 'only MUST gates (a failed SHOULD or security check is reported, non-strict)',
  },
  acceptance: {
    shouldGates: true,
    securityGates: true,
    notJudgedGates: true,
    expiry: 'full',
    summary:
      'strict, and any MUST, SHOULD or security check not judged fails; waits out the real lifetimes (--expiry full)',
  },
  sdk: {
    shouldGates: true,
    securityGates: true,
    notJudgedGates: false,
    expiry: 'quick',
    summary: 'strict plus the wire facts the vendor SDK relies on, as SHOULD (src/verdict/sdk-profile.ts)',
  },
};

export const PROFILES = Object.keys(PROFILE_RULES) as Profile[];

/** Whether a failed or blocked requirement of `level` fails the run in `profile` (INFO never does). */
export function levelGates(level: 'MUST' | 'SHOULD' | 'INFO' | 'SECURITY', profile: Profile): boolean {
  const rules = PROFILE_RULES[profile];
  if (level === 'MUST') return true;
  if (level === 'SHOULD') return rules.shouldGates;
  if (level === 'SECURITY') return rules.securityGates;
  return false;
}
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

/** `--second-email/--second-password` or `--second-token`: another account of the same server. */
export interface SecondIdentity {
  email?: string;
  password?: string;
  token?: string;
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
  /**
   * `--expiry-leeway`: seconds past a lifetime a server may still accept an access token, a signed
   * audio URL or a websocket URL (RFC 7519 §4.1.4's leeway for clock skew) before that is a failure.
   */
  leewayS: number;
  /** `--signed-url-lifetime`: seconds a signed audio URL lives (absent: read its X-Amz-Expires, if any). */
  signedUrlLifetimeS?: number;
  /**
   * `--expiry` (default: the profile's): quick waits out only lifetimes up to maxWaitS; full waits
   * out the real ones (in parallel with the rest of the run, bounded by --max-time).
   */
  mode?: ExpiryMode;
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
  /** `--cache-dir`: where the run's generated files go (src/config/cache-dir.mjs); absent: the default. */
  cacheDir?: string;
  target: Target;
  /**
   * A second identity (customer B) for the security area's isolation checks: email/password or a
   * permanent token. Absent against a remote server: those checks are not judged.
   */
  second?: SecondIdentity;
  /** Short random id of this run; part of every name the run creates. */
  runId: string;
  /** `speakcheck-<runId>-`: the prefix of every name the run creates. */
  namePrefix: string;
  /** `--expect FILE` (or `speakcheck.expect.yaml` when present): the failures already known. */
  expect?: { file: string; entries: Expectation[] };
  /** `--max-rps`: the run-wide request rate (requests/s) to stay under from the start. */
  maxRps?: number;
  /** `--sequences`: call sequences the stateful suite explores (default: sized to the main job). */
  sequences?: number;
  /** `--seed`: the seed of the run's generated inputs (property tests, call sequences). */
  seed?: number;
  /** `--replay-path`: the fast-check path of one shrunk sequence to replay (with --seed). */
  replayPath?: string;
  /** `--ca-file`: absolute path of a private CA (PEM) trusted besides the system roots. */
  caFile?: string;
}

/** One entry of the expect file (`run --expect FILE`): a known failure, applied by src/verdict/expectations.ts. */
export interface Expectation {
  requirement: string;
  reason: string;
  link?: string;
  /** `YYYY-MM-DD`: the entry holds through that day (UTC), and fails the run after it. */
  expires?: string;
}
