/**
 * Lifetimes waited out (speak-v1.md Authentication 3, Errors; Audio rules 1, Limits; Websocket
 * stream, Limits): an access token, a signed audio URL and a websocket URL are each refused once
 * their lifetime has passed, and the websocket URL still works just before. Each may still be
 * accepted a little past it, within the leeway a server may allow for clock skew (--expiry-leeway):
 * tried again while that lasts (askPastExpiry), a websocket URL with a fresh URL each time.
 *
 * The three waits run side by side (describe.concurrent), in a file of their own that the sequencer
 * starts first: the longest lifetime (the websocket URL's hour with --expiry full) is waited out
 * beside every other file. Which lifetimes are waited out is src/harness/expiry.ts (planExpiry): up
 * to --max-expiry-wait in a quick run, the real ones within --max-time with --expiry full (the
 * acceptance profile). A lifetime not waited out leaves its requirement not judged, with the reason
 * and what would judge it; it is never passed unseen.
 */
import { describe } from 'vitest';
import { assertStatus } from '../src/checks/errors.ts';
import { Finding } from '../src/checks/finding.ts';
import { assertNotServed } from '../src/checks/refusal.ts';
import { jwtLifetimeSeconds, jwtSecondsLeft } from '../src/checks/tokens.ts';
import { assertRequestEnded } from '../src/checks/websocket.ts';
import { visibleExpiryMs } from '../src/checks/websocket-url.ts';
import {
  askPastExpiry,
  ClientDiagnostic,
  check,
  coveredIds,
  covers,
  doublingWaitMs,
  EXPIRY_MARGIN_MS,
  expiryMarginMs,
  expiryTestTimeoutMs,
  fetchWebsocketUrl,
  markSetupFailure,
  notObserved,
  observe,
  type PastExpiry,
  type PastExpiryTries,
  planExpiry,
  type RequirementId,
  runSelectsArea,
  type SpeakContext,
  SpeakStreamConnection,
  triesWithin,
  waitUntil,
} from '../src/harness/index.ts';
import { signedRedirect } from './support/audio.ts';
import { generateTake, type Take, waitUntilDone } from './support/items.ts';
import { useSharedVoice } from './support/scenarios.ts';
import { attemptUpgrade, judgeUpgrades } from './support/upgrade.ts';

const sharedVoice = useSharedVoice();

/** The contract's websocket URL lifetime: "The URL from the websocket address endpoint expires after 1 hour." */
const CONTRACT_WS_URL_LIFETIME_S = 3600;

/** Routes an expired token must be refused on: one read per resource and the websocket address. */
const PROTECTED_READS = ['/v1/speak/models', '/v1/speak/voices', '/v1/speak/takes'];

const timeoutMs = expiryTestTimeoutMs();

/** How long past a lifetime the refusal is demanded: less against the run's own stack (our clock). */
const pastMarginMs = (speak: SpeakContext) => expiryMarginMs(speak.config.target);

/** A step before the judged checks: its failure blocks the requirement (not judged), it does not fail it. */
async function setup<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    markSetupFailure(error);
    throw error;
  }
}

describe.concurrent('lifetimes waited out', () => {
  if (runSelectsArea('auth'))
    covers(
      ['AUTH-EXPIRED-TOKEN-401'],
      'an access token past its lifetime is refused with 401',
      accessTokenExpires,
      { timeoutMs },
    );
  if (runSelectsArea('audio'))
    covers(['AUDIO-SIGNED-EXPIRES'], 'a signed audio URL past its lifetime is refused', signedUrlExpires, {
      timeoutMs,
    });
  if (runSelectsArea('websocket'))
    covers(
      ['WS-URL-EXPIRED-REFUSED', 'WS-OPEN-PAST-EXPIRY'],
      'a websocket URL is accepted within its lifetime and refused past it; a connection opened before stays usable (reported)',
      websocketUrlExpires,
      { timeoutMs },
    );
});

async function accessTokenExpires({ speak }: { speak: SpeakContext }): Promise<void> {
  const startedMs = Date.now();
  const { expiry, token: permanent, email, password } = speak.config;
  if (permanent !== undefined || email === undefined || password === undefined)
    return notObserved(
      coveredIds(),
      'the run uses a permanent token (--token): no access token that expires',
      '--email and --password instead of --token',
    );
  const issuedMs = Date.now();
  // A token of its own (not the session's, which refreshes itself), so its issue time is known.
  const token = await setup(async () => {
    const login = await speak.anon.post('/auth/login', { email, password });
    const access = (login.json as { access_token?: unknown } | undefined)?.access_token;
    if (login.status >= 300 || typeof access !== 'string')
      throw new Finding(`POST /auth/login answered ${login.status} without an access_token`);
    return access;
  });
  const configured = expiry.accessTokenLifetimeS;
  const left = jwtSecondsLeft(token);
  const plan = planExpiry({
    what: 'access tokens',
    expiresAtMs:
      configured !== undefined
        ? issuedMs + configured * 1000
        : left === undefined
          ? undefined
          : Date.now() + left * 1000,
    lifetimeS: configured ?? jwtLifetimeSeconds(token),
    source:
      configured !== undefined
        ? '--access-token-lifetime'
        : left === undefined
          ? 'not a JWT with exp'
          : 'JWT exp',
    flag: '--access-token-lifetime',
    expiry,
  });
  if (!plan.wait) return notObserved(coveredIds(), plan.reason, plan.wouldJudge);
  await waitUntil('access token', plan.expiresAtMs + pastMarginMs(speak));
  const read = (path: string) =>
    speak.anon.request('GET', path, { headers: { authorization: `Bearer ${token}` } });
  const past = await triedPastExpiry(speak, startedMs, plan.expiresAtMs, {
    ask: () => read(PROTECTED_READS[0]!),
    refused: errorStatus,
  });
  if (past.kind === 'within-leeway')
    return withinLeeway('AUTH-EXPIRED-TOKEN-401', 'an access token', past, speak);
  await check('AUTH-EXPIRED-TOKEN-401', async () => {
    for (const path of PROTECTED_READS) {
      const exchange = path === PROTECTED_READS[0] ? past.answer : await read(path);
      assertStatus(exchange, 401, `an access token ${plan.lifetimeS} s old, ${pastWords(past, speak)}`);
    }
  });
  observe(
    'expiry.access-token-refused',
    'an access token living {lifetimeS} s was refused with 401 on {routes} routes {pastS} s after it expired',
    {
      values: { routes: PROTECTED_READS.length },
      particulars: { lifetimeS: plan.lifetimeS, pastS: Math.round(past.pastMs / 100) / 10 },
    },
  );
}

/** What a check after the leeway's tries may still take (its requests) within the test's bound. */
const AFTER_LEEWAY_SLACK_MS = 10_000;

/** How long past a lifetime the server may still accept it (--expiry-leeway). */
const leewayMs = (speak: SpeakContext) => speak.config.expiry.leewayS * 1000;

/**
 * The expired credential tried (`tries.ask`) past its lifetime while the server accepts it, within
 * the leeway and the test's own bound (it started at `startedMs`).
 */
function triedPastExpiry<T>(
  speak: SpeakContext,
  startedMs: number,
  expiresAtMs: number,
  tries: PastExpiryTries<T>,
): Promise<PastExpiry<T>> {
  return askPastExpiry({
    ...tries,
    expiresAtMs,
    leewayMs: leewayMs(speak),
    stopAtMs: startedMs + timeoutMs - AFTER_LEEWAY_SLACK_MS,
  });
}

/** Refused, for an HTTP answer: any error status. */
const errorStatus = (answer: { status: number }) => answer.status >= 400;

/** "past its lifetime" or "past its lifetime and the N s leeway": what a failed check says. */
function pastWords(past: PastExpiry<unknown>, speak: SpeakContext): string {
  const s = Math.round(past.pastMs / 1000);
  return past.kind === 'accepted' && leewayMs(speak) > 0
    ? `${s} s past its lifetime and the ${speak.config.expiry.leewayS} s leeway a server may allow for clock skew (--expiry-leeway)`
    : `${s} s past its lifetime`;
}

/** Why a test could try an expired credential no longer (PastExpiry's `outOf`). */
const TRIED_NO_LONGER = {
  time: 'its time bound came',
  tries: 'each try needs a credential never used, and every one it fetched was used',
} as const;

/** Still accepted when the test could try no longer, within the leeway: not judged, and why. */
function withinLeeway(
  id: RequirementId,
  what: string,
  past: Extract<PastExpiry<unknown>, { kind: 'within-leeway' }>,
  speak: SpeakContext,
): void {
  notObserved(
    id,
    `${what} was still accepted ${Math.round(past.pastMs / 1000)} s past its lifetime, within the ${speak.config.expiry.leewayS} s a server may allow for clock skew (--expiry-leeway; RFC 7519 §4.1.4), and this test could try no longer (${TRIED_NO_LONGER[past.outOf]})`,
    "--expiry-leeway set to the server's own leeway (0 for none), or --profile acceptance (waits the leeway out within --max-time)",
  );
}

/** When a signed URL expires: X-Amz-Date + X-Amz-Expires (S3's form), or the stated lifetime from now. */
function signedUrlExpiry(
  url: URL,
  fetchedMs: number,
  configuredS: number | undefined,
): { expiresAtMs?: number; lifetimeS?: number; source: string } {
  const date = url.searchParams.get('X-Amz-Date');
  const signedMs = date ? amzDateMs(date) : undefined;
  const from = signedMs ?? fetchedMs;
  if (configuredS !== undefined)
    return {
      expiresAtMs: from + configuredS * 1000,
      lifetimeS: configuredS,
      source: '--signed-url-lifetime',
    };
  const expires = Number(url.searchParams.get('X-Amz-Expires'));
  if (!Number.isFinite(expires) || expires <= 0) return { source: 'the URL has no X-Amz-Expires' };
  return {
    expiresAtMs: from + expires * 1000,
    lifetimeS: expires,
    source: signedMs === undefined ? 'X-Amz-Expires from when it was fetched' : 'X-Amz-Date + X-Amz-Expires',
  };
}

/** `20260101T120000Z` → ms since the epoch. */
function amzDateMs(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

async function signedUrlExpires({ speak }: { speak: SpeakContext }): Promise<void> {
  const startedMs = Date.now();
  const { expiry } = speak.config;
  const take = await setup(async () => {
    const { take } = await generateTake(speak, {
      voice_id: (await sharedVoice(speak)).voice_id,
      text: 'This signed URL expires.',
    });
    return (await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take })).final;
  });
  const fetchedMs = Date.now();
  const redirect = await speak.api.get(`/v1/speak/takes/${encodeURIComponent(take.take_id)}/wav`);
  const signed = await setup(async () => signedRedirect(redirect));
  const lifetime = signedUrlExpiry(signed.location, fetchedMs, expiry.signedUrlLifetimeS);
  const plan = planExpiry({
    what: 'signed audio URLs',
    expiresAtMs: lifetime.expiresAtMs,
    lifetimeS: lifetime.lifetimeS,
    source: lifetime.source,
    flag: '--signed-url-lifetime',
    expiry,
  });
  if (!plan.wait) return notObserved(coveredIds(), plan.reason, plan.wouldJudge);
  await waitUntil('signed audio URL', plan.expiresAtMs + pastMarginMs(speak));
  const past = await triedPastExpiry(speak, startedMs, plan.expiresAtMs, {
    ask: () => speak.api.fetchSigned(signed.location.href),
    refused: errorStatus,
  });
  if (past.kind === 'within-leeway')
    return withinLeeway('AUDIO-SIGNED-EXPIRES', 'a signed audio URL', past, speak);
  const late = past.answer;
  // A server error may be the blob store failing, not the expiry: a URL signed now must be served.
  if (late.status >= 500) {
    const fresh = signedRedirect(
      await speak.api.get(`/v1/speak/takes/${encodeURIComponent(take.take_id)}/wav`),
    );
    const control = await speak.api.fetchSigned(fresh.location.href);
    if (control.status >= 300)
      return notObserved(
        coveredIds(),
        `a signed URL fetched now was not served either (${control.status}): the ${late.status} does not show that the expiry made the difference`,
        'a run where a fresh signed audio URL is served',
      );
  }
  check('AUDIO-SIGNED-EXPIRES', () => {
    // Refused is not served: which error status is the server's (or its blob store's) choice.
    const refusal = assertNotServed(
      late,
      `a signed audio URL ${pastWords(past, speak)} (${plan.lifetimeS} s)`,
    );
    observe(
      'expiry.audio-url-refused',
      'a signed audio URL living {lifetimeS} s ({source}) was {refusal} after it',
      {
        values: { source: lifetime.source, refusal },
        particulars: { lifetimeS: plan.lifetimeS },
      },
    );
  });
}

async function websocketUrlExpires({ speak }: { speak: SpeakContext }): Promise<void> {
  const startedMs = Date.now();
  const { expiry, timeouts } = speak.config;
  const voiceId = (await sharedVoice(speak)).voice_id;
  const issuedMs = Date.now();
  // URLs of one moment: one opened now, one used just before the lifetime ends, and a pool tried
  // after it, one URL per try: a URL may be single-use (WS-URL-NEW-PER-CONNECTION), so a second try
  // of the same URL refused would show nothing about its expiry.
  const [early, before, ...afterPool] = await Promise.all(
    Array.from({ length: 2 + pastExpiryTries(speak) }, () =>
      fetchWebsocketUrl(speak.api, speak.model.name, 'spec'),
    ),
  );
  const arrivedMs = Date.now();
  const configured = expiry.wsUrlLifetimeS;
  const shown = visibleExpiryMs(afterPool[0]!);
  const lifetimeS =
    configured ?? (shown === undefined ? CONTRACT_WS_URL_LIFETIME_S : Math.round((shown - issuedMs) / 1000));
  const plan = planExpiry({
    what: 'websocket URLs',
    expiresAtMs: issuedMs + lifetimeS * 1000,
    lifetimeS,
    source:
      configured !== undefined
        ? '--ws-url-lifetime'
        : shown === undefined
          ? 'the contract: 1 hour'
          : 'the expiry the URL shows',
    flag: '--ws-url-lifetime',
    expiry,
  });
  if (!plan.wait) return notObserved(coveredIds(), plan.reason, plan.wouldJudge);
  const opened = await SpeakStreamConnection.connect(early!, { timeoutMs: timeouts.requestMs });
  try {
    // Still within the lifetime: a margin before its end, or half-way for a lifetime that short.
    const beforeAt = Math.max(issuedMs + (plan.lifetimeS * 1000) / 2, plan.expiresAtMs - EXPIRY_MARGIN_MS);
    await waitUntil('websocket URL (still valid)', beforeAt);
    await stillAcceptedBefore(
      speak,
      before!,
      Math.round((plan.expiresAtMs - Date.now()) / 1000),
      plan.expiresAtMs,
    );
    // None of the pool was issued after it arrived (back-pressure may have held a request): the
    // tries come past the lifetime of the last one issued.
    const pastFromMs = plan.expiresAtMs + (arrivedMs - issuedMs);
    await waitUntil('websocket URL', pastFromMs + pastMarginMs(speak));
    await check('WS-URL-EXPIRED-REFUSED', () =>
      upgradesRefusedPastExpiry(
        speak,
        { startedMs, expiresAtMs: pastFromMs, lifetimeS: plan.lifetimeS },
        afterPool,
      ),
    );
    await check('WS-OPEN-PAST-EXPIRY', async () => {
      if (!opened.open) {
        observe(
          'expiry.websocket-closed-at-expiry',
          'the connection opened before expiry was closed (code {code}) when the URL expired',
          { values: { code: opened.closeInfo?.code ?? null } },
        );
        return;
      }
      const r = await opened.generate(
        { text: 'Still open.', voice_id: voiceId },
        {
          requestId: 1,
          mode: 'parts',
          timeouts: { firstMessageMs: timeouts.requestMs, endOfTakeMs: timeouts.readyMs },
        },
      );
      if (r.takeId) speak.track('take', r.takeId);
      assertRequestEnded(r);
      observe(
        'expiry.websocket-served-after-expiry',
        'a connection opened before the URL expired still served a take after expiry',
      );
    });
  } finally {
    await opened.close();
  }
}

/**
 * How many URLs the tries past the lifetime need: one per try, the tries at growing waits (2 s, 4 s,
 * 8 s, …: doublingWaitMs) up to the leeway's end. A try every 2 s would need 150 URLs for the
 * default 300 s leeway; the doubling needs 9 (3 for a 5 s leeway, 1 for none) and still tries
 * within a few seconds of the end a server allowing a small skew, the common case.
 */
const pastExpiryTries = (speak: SpeakContext) => triesWithin(leewayMs(speak), doublingWaitMs);

/**
 * Inside the check: the websocket URLs of `pool`, never connected to, tried past their lifetime (it
 * ended at `expiresAtMs`) one per try while the server upgrades them within the leeway (a connection
 * opened is closed at once: attemptUpgrade). The last outcome is judged as expectUpgradesRefused
 * judges: only an upgrade fails, and a URL issued now must open, so the refusal is the expiry's doing.
 */
async function upgradesRefusedPastExpiry(
  speak: SpeakContext,
  o: { startedMs: number; expiresAtMs: number; lifetimeS: number },
  pool: readonly string[],
): Promise<void> {
  const requestMs = speak.config.timeouts.requestMs;
  const past = await triedPastExpiry(speak, o.startedMs, o.expiresAtMs, {
    ask: (attempt) => attemptUpgrade(pool[attempt]!, requestMs),
    // Anything but an open connection ends the tries: a refusal, or what is neither (judged below).
    refused: (outcome) => outcome.kind !== 'accepted',
    waitMs: doublingWaitMs,
    maxTries: pool.length,
  });
  if (past.kind === 'within-leeway')
    return withinLeeway('WS-URL-EXPIRED-REFUSED', 'a websocket URL', past, speak);
  await judgeUpgrades(
    'WS-URL-EXPIRED-REFUSED',
    [{ outcome: past.answer, why: `a websocket URL living ${o.lifetimeS} s, ${pastWords(past, speak)}` }],
    () => fetchWebsocketUrl(speak.api, speak.model.name, 'spec'),
    { timeoutMs: requestMs, difference: 'the expiry' },
  );
}

/**
 * The URL opening before its end is half of WS-URL-EXPIRED-REFUSED: it holds only with the refusal
 * past the end (a check held here would pass the requirement even when that refusal is not judged),
 * so only a refusal is concluded now.
 */
async function stillAcceptedBefore(
  speak: SpeakContext,
  url: string,
  leftS: number,
  expiresAtMs: number,
): Promise<void> {
  const refusal = await acceptedWithin(speak, url, leftS, expiresAtMs).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (refusal !== undefined)
    check('WS-URL-EXPIRED-REFUSED', () => {
      throw refusal;
    });
}

/**
 * The URL must still open a connection `leftS` seconds before it expires (at `expiresAtMs`); it is
 * closed at once. A refusal that came only after the expiry may answer an upgrade our own
 * back-pressure waits held past it (the upgrade is retried inside the client): not concluded then,
 * never blamed (issue 37).
 */
async function acceptedWithin(
  speak: SpeakContext,
  url: string,
  leftS: number,
  expiresAtMs: number,
): Promise<void> {
  let conn: SpeakStreamConnection;
  try {
    conn = await SpeakStreamConnection.connect(url, { timeoutMs: speak.config.timeouts.requestMs });
  } catch (error) {
    if (Date.now() >= expiresAtMs)
      throw new ClientDiagnostic(
        'throttled',
        `a websocket URL tried ${leftS} s before the end of its lifetime was refused only after that end (${(error as Error).message}): the run's own waits may have held the upgrade past it`,
        // Not the URL itself: it is a credential.
        `${speak.config.baseUrl}/v1/speak/websocket`,
      );
    throw new Finding(
      `a websocket URL ${leftS} s before the end of its lifetime was refused (${(error as Error).message}); it must still be accepted`,
      { expected: '101 Switching Protocols', actual: (error as Error).message },
    );
  }
  await conn.close();
}
