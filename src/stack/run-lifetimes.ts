/**
 * The lifetimes of the reference stack a conformance run starts itself (issue 42). The stack is
 * ours, so the default run can judge everything: with serve's own lifetimes (access tokens and
 * signed audio URLs 900 s, websocket URLs 3600 s: the contract's hour) a quick run (--expiry quick,
 * waits up to --max-expiry-wait, default 20 s) could not wait out AUTH-EXPIRED-TOKEN-401,
 * AUDIO-SIGNED-EXPIRES and WS-URL-EXPIRED-REFUSED and left them not judged. The embedded (and
 * container) stack of a quick run therefore serves short ones, waited out beside the rest of the
 * suites (suites/expiry.spec.ts starts first).
 *
 * With --expiry full (the acceptance profile) the stack keeps serve's lifetimes: waiting out the
 * real ones, the websocket URL's hour included, is that run's point (the nightly run of the README).
 * `speakcheck serve` always keeps its defaults. The websocket URL's short lifetime is a deviation
 * from the contract's hour that WS-URL-LIFETIME (INFO) reports as an observation, never a failure.
 */
import type { ExpiryMode } from '../config/types.ts';

export interface StackLifetimes {
  accessTokenS: number;
  signedUrlS: number;
  websocketUrlS: number;
}

/**
 * Short enough that the expiry file (the lifetime, its 2 s margin, the checks: ~6 s with 4 s) ends
 * before the webhook windows do (6 s from the first done call, judged by the last file), which bound
 * the run anyway: the waits cost no time (suites 8.8 s before, 9.4 s with 4 s, 10.4 s with 5 s and
 * 14 s with 8–10 s lifetimes, before the expiry file had a thread of its own). Long enough that no
 * other check meets an expired credential in its own steps: the client renews a token or URL a
 * tenth of its lifetime before the end (src/client/lifetime.ts), and the websocket URL's "still
 * accepted" check connects 2 s before its end.
 */
export const QUICK_RUN_LIFETIMES: StackLifetimes = {
  accessTokenS: 4,
  signedUrlS: 4,
  websocketUrlS: 4,
};

/** The lifetimes the run's own stack serves: short ones in a quick run, serve's own with --expiry full. */
export function runStackLifetimes(mode: ExpiryMode | undefined): StackLifetimes | undefined {
  return mode === 'full' ? undefined : QUICK_RUN_LIFETIMES;
}

/** The `serve` flags that set them. */
export function lifetimeServeArgs(lifetimes: StackLifetimes): string[] {
  return [
    '--access-token-ttl',
    String(lifetimes.accessTokenS),
    '--signed-url-ttl',
    String(lifetimes.signedUrlS),
    '--websocket-url-ttl',
    String(lifetimes.websocketUrlS),
  ];
}

/** The run's header line: which lifetimes the stack serves, and why. */
export function lifetimesSentence(lifetimes: StackLifetimes): string {
  return `the stack serves short lifetimes (access tokens ${lifetimes.accessTokenS} s, signed audio URLs ${lifetimes.signedUrlS} s, websocket URLs ${lifetimes.websocketUrlS} s; speakcheck serve: 900 s, 900 s, 1 h) so that this quick run judges the three expiry MUSTs, waited out beside the other suites; the websocket URL's short lifetime is reported under WS-URL-LIFETIME (INFO); --expiry full keeps the real ones`;
}
