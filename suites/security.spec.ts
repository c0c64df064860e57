/**
 * Tenant isolation (the security area; src/requirements/catalogue/security.ts): customer B, the run's
 * second identity, against customer A's items (the run's own identity). Each check answers one
 * question of a buyer's security review (OWASP API Security Top 10 2023, API1:2023 Broken Object
 * Level Authorization): can B read, list, fetch the audio of, delete, update or synthesize with A's
 * voices and takes, or see A's websocket stream? And does A's logout revoke A's refresh token only?
 *
 * Fair: any refusal counts, 403 and 404 alike (which one is the server's choice: speak-v1.md leaves
 * "the error for unknown identifiers" open); 401 does not (B's token is valid: a client would refresh
 * and retry), nor a redirect or a 5xx. Cheap: A's items are the run's shared voice plus two one-word
 * takes and one spare voice (for the delete and update attempts, so a server that lets B delete
 * cannot take the shared voice away from the other files). Without a second identity every test is
 * skipped, saying which option would judge it.
 */
import { AUDIO_FORMATS } from '../src/checks/audio.ts';
import { requestLine } from '../src/checks/exchange.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  accessTokenLifetime,
  ClientDiagnostic,
  cannotObserve,
  check,
  checkStep,
  covers,
  type Exchange,
  freshEnough,
  loggedOutSince,
  observe,
  recordedLogout,
  type SpeakClient,
  type SpeakContext,
  type StreamedRequest,
} from '../src/harness/index.ts';
import {
  generateTake,
  generateVoice,
  getItem,
  type Take,
  type Voice,
  waitUntilDone,
} from './support/items.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';
import { openIssuedConnection } from './support/websocket-url.ts';

const sharedVoice = useSharedVoice();

const NO_SECOND_IDENTITY = 'the run has no second identity (customer B) to check isolation with';
const SECOND_IDENTITY_REMEDY =
  '--second-email/--second-password or --second-token (env SPEAK_SECOND_EMAIL/SPEAK_SECOND_PASSWORD or SPEAK_SECOND_TOKEN, config secondEmail/secondPassword/secondToken)';

const customerB = once((speak: SpeakContext) => speak.loginSecond(), { evidence: false });

/** B's session; skips the test (not judged, naming the option) when the run has no second identity. */
async function asB(speak: SpeakContext): Promise<SpeakClient> {
  if (!speak.config.second) cannotObserve(NO_SECOND_IDENTITY, SECOND_IDENTITY_REMEDY);
  const b = await customerB(speak);
  if (!b) return cannotObserve(NO_SECOND_IDENTITY, SECOND_IDENTITY_REMEDY);
  return b;
}

/** A's private take: its text carries the run id, so a leak of it in any body is recognisable. */
const takeText = (speak: SpeakContext) => `Note ${speak.config.runId}.`;
const aTake = once(
  async (speak: SpeakContext) => {
    const voice = await sharedVoice(speak);
    return (await generateTake(speak, { voice_id: voice.voice_id, text: takeText(speak) })).take;
  },
  { evidence: false },
);
const aTakeReady = once(
  async (speak: SpeakContext) => {
    const take = await aTake(speak);
    return (await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take })).final;
  },
  { evidence: false },
);
/** A's take that B tries to delete (not the one the other checks read). */
const aSpareTake = once(
  async (speak: SpeakContext) => {
    const voice = await sharedVoice(speak);
    return (await generateTake(speak, { voice_id: voice.voice_id, text: 'Hi.' })).take;
  },
  { evidence: false },
);
/** A's voice that B tries to delete and update: never the run's shared voice. */
const aSpareVoice = once(
  async (speak: SpeakContext) => {
    const gender = speak.model.genders[0] ?? 'female';
    const body = { name: speak.prefix('isolation-voice'), gender, model: speak.model.name };
    // Only the fields the contract's VoiceGenerate table lists: a server may refuse any other
    // (latitude strict-request-fields), and the security checks must not rest on a wire fact.
    return (await generateVoice(speak, body)).voice;
  },
  { evidence: false },
);

prefetch(async (speak: SpeakContext) => {
  if (!speak.config.second) return;
  await Promise.all([aTake(speak), aSpareTake(speak), aSpareVoice(speak)]);
});

/** What of A's must never show in an answer to B: ids B did not send, names, the take's text. */
function privateMarks(o: { take?: Take; voice?: Voice }): string[] {
  return [o.take?.text, o.voice?.name, o.voice?.voice_id].filter(
    (mark): mark is string => typeof mark === 'string' && mark.length >= 6,
  );
}

/**
 * B's request for A's item must be refused: a 4xx other than 401 (403 and 404 alike). 401 says B's
 * valid token is invalid (a client would refresh and retry for ever); a 2xx or 3xx hands A's item
 * over; a 5xx is no refusal.
 */
function assertRefusedForB(exchange: Exchange, what: string): void {
  const line = `${requestLine(exchange)} with B's token`;
  const facts = { where: line, expected: '403 or 404 (any 4xx but 401)', actual: exchange.status };
  if (exchange.status === 401) {
    throw new Finding(
      `${line}: ${what}: answered 401, which says B's valid token is invalid (a client refreshes and retries); refuse with 403 or 404`,
      facts,
    );
  }
  if (exchange.status >= 300 && exchange.status < 400) {
    throw new Finding(
      `${line}: ${what}: answered ${exchange.status} (Location ${show(exchange.headers.location ?? 'none')}): B is sent to A's item instead of being refused`,
      facts,
    );
  }
  if (exchange.status < 300) {
    throw new Finding(
      `${line}: ${what}: answered ${exchange.status}: B reached A's item: ${show(exchange.text, 200)}`,
      facts,
    );
  }
  if (exchange.status >= 500) {
    throw new Finding(
      `${line}: ${what}: server error ${exchange.status} instead of a refusal: ${show(exchange.text)}`,
      facts,
    );
  }
}

/** No answer to B carries A's private data (in a refusal's detail, a list, anywhere). */
function assertNoneOfA(exchange: Exchange, marks: readonly string[], what: string): void {
  const leaked = marks.filter((mark) => exchange.text.includes(mark));
  if (leaked.length > 0) {
    throw new Finding(
      `${requestLine(exchange)} with B's token: ${what}: the ${exchange.status} answer carries A's data (${leaked.map((m) => show(m, 60)).join(', ')}): ${show(exchange.text, 200)}`,
      { where: requestLine(exchange), expected: "none of A's data", actual: leaked },
    );
  }
}

/** Items of A's listed in an answer to B (by id), whatever else the list holds. */
function assertListHoldsNoneOfA(exchange: Exchange, ids: readonly string[], what: string): void {
  if (exchange.status < 200 || exchange.status >= 300 || !Array.isArray(exchange.json)) return;
  const listed = (exchange.json as Array<Record<string, unknown>>).filter((item) =>
    ids.includes(String(item?.take_id ?? item?.voice_id ?? '')),
  );
  if (listed.length > 0) {
    throw new Finding(
      `${requestLine(exchange)} with B's token: ${what}: B's list holds ${listed.length} of A's items (${listed
        .map((item) => String(item.take_id ?? item.voice_id))
        .join(', ')})`,
      { where: requestLine(exchange), expected: "none of A's items", actual: listed.length },
    );
  }
}

const path = (kind: 'voices' | 'takes', id: string, tail = '') =>
  `/v1/speak/${kind}/${encodeURIComponent(id)}${tail}`;

covers(['SEC-TAKE-GET-ISOLATED'], "B cannot GET A's take by id", async ({ speak }) => {
  const b = await asB(speak);
  const take = await aTake(speak);
  const exchange = await b.get(path('takes', take.take_id));
  check('SEC-TAKE-GET-ISOLATED', () => assertRefusedForB(exchange, "GET of A's take"));
  check('SEC-TAKE-GET-ISOLATED', () =>
    assertNoneOfA(exchange, [...privateMarks({ take }), take.voice_id], "GET of A's take"),
  );
});

covers(['SEC-VOICE-GET-ISOLATED'], "B cannot GET A's voice by id", async ({ speak }) => {
  const b = await asB(speak);
  const voice = await sharedVoice(speak);
  const exchange = await b.get(path('voices', voice.voice_id));
  check('SEC-VOICE-GET-ISOLATED', () => assertRefusedForB(exchange, "GET of A's voice"));
  check('SEC-VOICE-GET-ISOLATED', () =>
    assertNoneOfA(exchange, [voice.name].filter(Boolean), "GET of A's voice"),
  );
});

covers(['SEC-AUDIO-ISOLATED'], "B gets no 307 to A's audio, in any format", async ({ speak }) => {
  const b = await asB(speak);
  // Ready: every format exists for A, so a refusal cannot be "not ready yet".
  const take = await aTakeReady(speak);
  for (const format of AUDIO_FORMATS) {
    const exchange = await b.get(path('takes', take.take_id, `/${format}`), { maxBytes: 4096 });
    check('SEC-AUDIO-ISOLATED', () => assertRefusedForB(exchange, `the ${format} audio of A's take`));
    check('SEC-AUDIO-ISOLATED', () =>
      assertNoneOfA(exchange, privateMarks({ take }), `the ${format} audio of A's take`),
    );
  }
});

covers(
  ['SEC-LIST-ISOLATED'],
  "B's lists, plain, filtered by A's ids and bounded, hold none of A's items",
  async ({ speak }) => {
    const b = await asB(speak);
    const [take, voice] = await Promise.all([aTake(speak), sharedVoice(speak)]);
    const marks = privateMarks({ take, voice });
    const around = { older: take.timestamp_ms + 60_000, newer: take.timestamp_ms - 60_000 };
    const queries: Array<['takes' | 'voices', Record<string, string | number>]> = [
      ['takes', {}],
      ['takes', { take_id: take.take_id }],
      ['takes', { take_id: `${take.take_id},speakcheck-no-such-take` }],
      ['takes', { length: 100, page: 1, ...around }],
      ['voices', {}],
      ['voices', { voice_id: voice.voice_id }],
      ['voices', { length: 100, page: 1, ...around }],
    ];
    for (const [kind, query] of queries) {
      const exchange = await b.get(`/v1/speak/${kind}`, { query });
      const what = `B's ${kind} list${Object.keys(query).length ? ` (${new URLSearchParams(query as Record<string, string>).toString()})` : ''}`;
      check('SEC-LIST-ISOLATED', () =>
        assertListHoldsNoneOfA(exchange, [take.take_id, voice.voice_id], what),
      );
      // The filter's own ids may be echoed in a refusal; A's names and texts never.
      const filtered = 'take_id' in query || 'voice_id' in query;
      check('SEC-LIST-ISOLATED', () =>
        assertNoneOfA(exchange, filtered ? marks.filter((m) => m !== voice.voice_id) : marks, what),
      );
    }
  },
);

covers(
  ['SEC-DELETE-REFUSED'],
  "B cannot delete A's take or voice; both are still A's afterwards",
  async ({ speak }) => {
    const b = await asB(speak);
    const [take, voice] = await Promise.all([aSpareTake(speak), aSpareVoice(speak)]);
    const takeDelete = await b.delete(path('takes', take.take_id));
    check('SEC-DELETE-REFUSED', () => assertRefusedForB(takeDelete, "DELETE of A's take"));
    const voiceDelete = await b.delete(path('voices', voice.voice_id));
    check('SEC-DELETE-REFUSED', () => assertRefusedForB(voiceDelete, "DELETE of A's voice"));
    await check('SEC-DELETE-REFUSED', async () => {
      const after = await getItem<Take>(speak, 'take', take.take_id).catch((error: unknown) => {
        // Our own failure to read it (throttled, timed out) is not the server losing it.
        if (error instanceof ClientDiagnostic) throw error;
        throw new Finding(
          `after B's DELETE ${path('takes', take.take_id)}, A's take is gone for A: ${(error as Error).message}`,
        );
      });
      if (after.text !== take.text || after.voice_id !== take.voice_id) {
        throw new Finding(`after B's DELETE, A's take changed: ${show(after)}`, { actual: after });
      }
    });
    await check('SEC-DELETE-REFUSED', async () => {
      await getItem<Voice>(speak, 'voice', voice.voice_id).catch((error: unknown) => {
        // Our own failure to read it (throttled, timed out) is not the server losing it.
        if (error instanceof ClientDiagnostic) throw error;
        throw new Finding(
          `after B's DELETE ${path('voices', voice.voice_id)}, A's voice is gone for A: ${(error as Error).message}`,
        );
      });
    });
  },
);

covers(
  ['SEC-UPDATE-REFUSED'],
  "B cannot update A's voice (the only update path; no webhook of B's on A's voice)",
  async ({ speak }) => {
    const b = await asB(speak);
    const voice = await aSpareVoice(speak);
    const exchange = await b.post(path('voices', voice.voice_id), {
      name: speak.prefix('renamed-by-b'),
      description: 'B was here',
    });
    check('SEC-UPDATE-REFUSED', () => assertRefusedForB(exchange, "update of A's voice"));
    await check('SEC-UPDATE-REFUSED', async () => {
      const after = await getItem<Voice>(speak, 'voice', voice.voice_id);
      if (after.name !== voice.name || (after.description ?? null) !== (voice.description ?? null)) {
        throw new Finding(
          `after B's update POST ${path('voices', voice.voice_id)}, A's voice changed: name ${show(voice.name)} → ${show(after.name)}, description ${show(voice.description)} → ${show(after.description)}`,
          { expected: voice.name, actual: after.name },
        );
      }
    });
  },
);

covers(['SEC-FOREIGN-VOICE-TAKE'], "B cannot generate a take with A's voice", async ({ speak }) => {
  const b = await asB(speak);
  const voice = await sharedVoice(speak);
  const exchange = await b.post('/v1/speak/takes/generate', { voice_id: voice.voice_id, text: 'Hi.' });
  const made = (exchange.json as { take_id?: unknown } | undefined)?.take_id;
  // A take B was allowed to make is B's: B removes it (the run's cleanup deletes as A).
  if (typeof made === 'string') await b.delete(path('takes', made)).catch(() => undefined);
  check('SEC-FOREIGN-VOICE-TAKE', () => assertRefusedForB(exchange, "a take with A's voice_id"));
  check('SEC-FOREIGN-VOICE-TAKE', () =>
    assertNoneOfA(exchange, [voice.name].filter(Boolean), "a take with A's voice_id"),
  );
});

/** Refused over the websocket: no audio, no ready take (an error message, a failed take, a close). */
function assertWsRefused(r: StreamedRequest): void {
  const audio = r.frames.filter((f) => f.audio.length > 0).length;
  const ready = r.takeMessages.some((m) => (m as { data?: { status?: unknown } }).data?.status === 'ready');
  if (audio > 0 || ready || r.outcome === 'ended') {
    throw new Finding(
      `B's websocket request with A's voice_id was served (${r.outcome}, ${audio} audio frame(s)${ready ? ', the take ready' : ''}): B synthesized with A's voice`,
      { expected: 'an error message or a failed take', actual: r.outcome },
    );
  }
}

covers(
  ['SEC-WS-FOREIGN-VOICE'],
  "B's websocket: A's voice_id refused, and none of A's stream on it",
  async ({ speak }) => {
    const b = await asB(speak);
    const voice = await sharedVoice(speak);
    const timeouts = {
      firstMessageMs: speak.config.timeouts.requestMs,
      endOfTakeMs: speak.config.timeouts.readyMs,
    };
    // Each customer's own URL, asked for again (by that customer) should it go stale before the upgrade.
    const open = (client: SpeakClient) => openIssuedConnection(speak, { client });
    const bConn = await checkStep('SEC-WS-FOREIGN-VOICE', () => open(b));
    try {
      const aConn = await open(speak.api);
      try {
        const [mine, theirs] = await Promise.all([
          aConn.generate({ voice_id: voice.voice_id, text: 'Hi.' }, { requestId: 'a-1', timeouts }),
          bConn.generate({ voice_id: voice.voice_id, text: 'Hi.' }, { requestId: 'b-1', timeouts }),
        ]);
        if (mine.takeId) speak.track('take', mine.takeId);
        if (theirs.takeId) await b.delete(path('takes', theirs.takeId)).catch(() => undefined);
        check('SEC-WS-FOREIGN-VOICE', () => assertWsRefused(theirs));
        check('SEC-WS-FOREIGN-VOICE', () => {
          const foreign = bConn.strayFrames.filter((f) => String(f.metadata.request_id) !== 'b-1');
          const aTakeSeen =
            mine.takeId !== undefined &&
            [
              ...bConn.connectionMessages.map((m) => m.text),
              ...theirs.takeMessages.map((m) => JSON.stringify(m)),
            ].some((text) => text.includes(mine.takeId!));
          if (foreign.length > 0 || aTakeSeen) {
            throw new Finding(
              `B's websocket carried A's stream: ${foreign.length} frame(s) of other requests${aTakeSeen ? `, and A's take ${mine.takeId}` : ''}`,
              { expected: 'nothing of A', actual: foreign.length },
            );
          }
        });
      } finally {
        aConn.close();
      }
    } finally {
      bConn.close();
    }
  },
);

covers(
  ['SEC-REFRESH-OTHER-EMAIL'],
  "A's refresh token with B's email never yields B's session",
  async ({ speak }) => {
    await asB(speak);
    const second = speak.config.second!;
    if (second.email === undefined)
      cannotObserve(
        'customer B is given as a token (--second-token): no email of B to present',
        '--second-email and --second-password instead of --second-token',
      );
    if (speak.config.email === undefined)
      cannotObserve(
        'the run signs in with a permanent token (--token): no refresh token of A to present',
        '--email and --password instead of --token',
      );
    // Before the refresh: waiting for the voice after it could outlive the access token it gave.
    const voice = await sharedVoice(speak);
    const a = await speak.login();
    const refresh = a.tokens()!.refresh;
    const exchange = await speak.anon.post('/auth/refresh', { refresh_token: refresh, email: second.email });
    const access = (exchange.json as { access_token?: unknown } | undefined)?.access_token;
    await check('SEC-REFRESH-OTHER-EMAIL', async () => {
      if (exchange.status >= 400 || typeof access !== 'string' || access === '') {
        observe(
          'security.refresh-other-email',
          "POST /auth/refresh with A's refresh token and B's email was refused ({status})",
          {
            values: { status: exchange.status },
          },
        );
        return;
      }
      // A token pair: it must act as A (the email only names whose refresh token it is), never as B.
      const probe = await speak.anon.get(path('voices', voice.voice_id), {
        headers: { authorization: `Bearer ${access}` },
      });
      if (probe.status !== 200) {
        throw new Finding(
          `POST /auth/refresh with A's refresh token and B's email answered ${exchange.status} with a token pair that does not act as A (GET ${path('voices', voice.voice_id)} with it answered ${probe.status}): a refresh token of A's was turned into another user's session`,
          { where: 'POST /auth/refresh', expected: "refused, or A's session", actual: probe.status },
        );
      }
    });
  },
);

covers(
  ['SEC-LOGOUT-SCOPED'],
  "A's logout revokes A's refresh token only: B's tokens still work",
  ({ speak }) => scopedLogout(speak, 0),
);

/**
 * SEC-LOGOUT-SCOPED once; again (at most twice more) when B's refusal follows a logout of B's by the
 * run elsewhere since B's login: a server that logs out everywhere ended it, which the contract
 * allows ("revokes that refresh token"), so it says nothing of A's logout.
 */
async function scopedLogout(speak: SpeakContext, attempt: number): Promise<void> {
  await asB(speak);
  if (speak.config.email === undefined)
    cannotObserve(
      'the run signs in with a permanent token (--token): A has no refresh token to log out',
      '--email and --password instead of --token',
    );
  const bSinceMs = Date.now();
  const [a, b] = await Promise.all([speak.login(), speak.loginSecond()]);
  const aRefresh = a.tokens()!.refresh;
  const bTokens = b!.tokens();
  const logout = await recordedLogout(speak.config.email, () =>
    speak.anon.post('/auth/logout', { refresh_token: aRefresh }),
  );
  await checkStep('SEC-LOGOUT-SCOPED', () => {
    if (logout.status >= 300)
      throw new Finding(
        `POST /auth/logout with A's refresh token answered ${logout.status}: ${show(logout.text)}`,
      );
  });
  const again = await speak.anon.post('/auth/refresh', {
    refresh_token: aRefresh,
    email: speak.config.email,
  });
  check('SEC-LOGOUT-SCOPED', () => {
    if (again.status < 400)
      throw new Finding(
        `after A's logout, POST /auth/refresh with A's refresh token answered ${again.status}, expected a refusal`,
      );
  });
  if (!bTokens) return; // B signs in with a permanent token: nothing of B's to revoke by mistake
  // B's access token may have passed the lifetime it shows in our own waits (A's logout and
  // refresh throttled): refused then, it proves nothing; B's refresh token below still judges.
  if (freshEnough(accessTokenLifetime(bTokens.access))) {
    const bUse = await speak.anon.get('/v1/speak/models', {
      headers: { authorization: `Bearer ${bTokens.access}` },
    });
    check('SEC-LOGOUT-SCOPED', () => {
      if (bUse.status !== 200)
        throw new Finding(
          `after A's logout, B's access token answered ${bUse.status} on GET /v1/speak/models: A's logout revoked B's session`,
          {
            expected: 200,
            actual: bUse.status,
          },
        );
    });
  } else
    observe(
      'security.second-access-token-outlived',
      "B's access token passed the lifetime it shows before it could be tried (the run's own waits): B's session is judged by its refresh token",
      { caught: true },
    );
  const bRefresh = await speak.anon.post('/auth/refresh', {
    refresh_token: bTokens.refresh,
    email: speak.config.second!.email,
  });
  if (bRefresh.status >= 300 && attempt < 2 && loggedOutSince(speak.config.second?.email ?? '', bSinceMs)) {
    observe(
      'security.second-ended-elsewhere',
      "B's refresh was refused after the run logged out another session of B's elsewhere (this server logs out everywhere, which is allowed): the scenario starts over",
    );
    return scopedLogout(speak, attempt + 1);
  }
  check('SEC-LOGOUT-SCOPED', () => {
    if (bRefresh.status >= 300)
      throw new Finding(
        `after A's logout, B's refresh token answered ${bRefresh.status} on POST /auth/refresh: A's logout revoked B's session`,
        {
          expected: 200,
          actual: bRefresh.status,
        },
      );
  });
}
