import { Finding } from '../src/checks/finding.ts';
import { assertSignedRedirect } from '../src/checks/redirect.ts';
import { distinctRuns } from '../src/checks/status.ts';
import {
  assertChunksSooner,
  assertFramesWellFormed,
  assertModeShape,
  assertNoStrays,
  assertNoStreamFindings,
  assertPcmIdentical,
  assertRequestEnded,
  assertRequestIdEcho,
  assertSameAudio,
  assertStreamClean,
  durationTolerance,
  formatMs,
  wavSamples,
} from '../src/checks/websocket.ts';
import {
  modeRequirement,
  requirementOfEnding,
  streamFindingsByRequirement,
} from '../src/checks/websocket-findings.ts';
import {
  assertChunkZeroBeforePartEnd,
  assertChunkZeroFirst,
  assertPartsAreSentences,
  CHUNKED_PART_REMEDY,
  chunkZeroAfterPartEnd,
  chunkZeroNotFirst,
  framesByPart,
  noChunkedPart,
  partTailPeaks,
} from '../src/checks/websocket-parts.ts';
import {
  assertAudioStreamed,
  assertDurationInSamples,
  assertMultipartProgress,
  assertReadyTake,
  assertStartedAnnounced,
  assertTakeInRest,
  assertTakeMessagesOfRequest,
  assertTakeMessagesSent,
  type TakeAudioInfo,
  takeStatuses,
} from '../src/checks/websocket-take.ts';
import {
  assertAddressAnswered,
  assertAddressRefused,
  assertNoTokenInUrl,
  assertSecretVaries,
  assertUrlLifetime,
  changingParts,
  partName,
  tamper,
  visibleExpiryMs,
} from '../src/checks/websocket-url.ts';
import {
  against,
  cannotObserve,
  check,
  checkStep,
  covers,
  expectJson,
  expectSchema,
  fetchWebsocketUrl,
  notObserved,
  observe,
  SpeakStreamConnection,
} from '../src/harness/index.ts';
import { signedUrlAgain } from './support/audio.ts';
import { prefetch } from './support/scenarios.ts';
import { judgeStatusOrder } from './support/status-order.ts';
import { expectUpgradesRefused } from './support/upgrade.ts';
import { field } from './support/values.ts';
import {
  MESSAGE_WAIT_MS,
  ONE_SENTENCE,
  observePartsModeChunkIds,
  THREE_SENTENCES,
  takeInMode,
  useWebsocketStreams,
} from './support/websocket-streams.ts';
import { renewingConnect, reuseRefusal } from './support/websocket-url.ts';

const streams = useWebsocketStreams();

/** What would show the order of a websocket take's statuses: Take messages of two statuses or more. */
const WS_ORDER =
  'a take streamed with Take messages of two statuses (started, ready): a longer text, a slower server';

/** One three-sentence take per mode on its own connection, shared by the framing and REST tests. */
const scenario = { parts: takeInMode(streams, 'parts'), chunks: takeInMode(streams, 'chunks') };

// Both start once the file's login is done: their syntheses overlap each other and the address and
// secret tests below instead of starting at the first test that awaits them.
prefetch(scenario.parts, scenario.chunks);

// ---------------------------------------------------------------------------------------------
// Address and secret

covers(
  ['WS-URL-ENDPOINT', 'WS-URL-SECRET-NOT-TOKEN'],
  'GET /v1/speak/websocket?model=M answers websocket_url without the access token in it',
  async ({ speak }) => {
    const url = await checkStep('WS-URL-ENDPOINT', async () => {
      const exchange = await speak.api.get('/v1/speak/websocket', { query: { model: speak.model.name } });
      assertAddressAnswered(exchange, `/v1/speak/websocket?model=${speak.model.name}`);
      const body = expectJson(exchange);
      expectSchema('WebsocketUrl', body, 'the websocket address');
      return String(field(body, 'websocket_url'));
    });
    check('WS-URL-SECRET-NOT-TOKEN', () => {
      const tokens = speak.api.tokens();
      const secrets = [tokens?.access, tokens?.refresh, speak.config.token].filter((s): s is string => !!s);
      assertNoTokenInUrl(url, secrets);
    });
  },
);

covers(
  ['WS-URL-SDK-FORM'],
  'GET /v1/speak/websocket/{model} (SDK form) answers worker_websocket_url',
  async ({ speak }) => {
    const issuedAtMs = Date.now();
    const exchange = await speak.api.get(`/v1/speak/websocket/${encodeURIComponent(speak.model.name)}`);
    await checkStep('WS-URL-SDK-FORM', () => {
      assertAddressAnswered(exchange, `/v1/speak/websocket/${speak.model.name}`);
      expectSchema('WorkerWebsocketUrl', expectJson(exchange), 'the SDK-form websocket address');
    });
    // The SDK URL must work as well as the spec one (renewed in the SDK form should it go stale).
    const url = String(field(exchange.json, 'worker_websocket_url'));
    await check('WS-URL-SDK-FORM', async () => {
      const conn = await SpeakStreamConnection.connect(
        url,
        renewingConnect(speak, issuedAtMs, { form: 'sdk' }),
      );
      await conn.close();
    });
  },
);

covers(
  ['WS-URL-UNKNOWN-MODEL'],
  'the address endpoint without a model or with an unknown one',
  async ({ speak }) => {
    const missing = await speak.api.get('/v1/speak/websocket');
    const unknown = await speak.api.get('/v1/speak/websocket', {
      query: { model: 'speakcheck-no-such-model' },
    });
    const values = {
      missingStatus: missing.status,
      missingText: missing.text.slice(0, 120),
      unknownStatus: unknown.status,
      unknownText: unknown.text.slice(0, 120),
    };
    const said = 'no model → {missingStatus} {missingText}; unknown model → {unknownStatus} {unknownText}';
    observe('websocket.url-model-refusals', said, { values });
    check('WS-URL-UNKNOWN-MODEL', () => assertAddressRefused(missing, 'without model'));
    check('WS-URL-UNKNOWN-MODEL', () => assertAddressRefused(unknown, 'unknown model'));
  },
);

covers(
  ['WS-CONNECT-NO-BEARER'],
  'connects to the URL without any Authorization header',
  async ({ speak }) => {
    // SpeakStreamConnection sends no Authorization unless told to; the upgrade must succeed.
    await check('WS-CONNECT-NO-BEARER', async () => {
      const conn = await streams(speak).connectFresh();
      const open = conn.open;
      await conn.close();
      if (!open) throw new Finding('the connection was not open after the upgrade', { expected: 'open' });
    });
  },
);

covers(['WS-CONNECTION-MESSAGE'], 'connection-level messages on connect', ({ speak }) =>
  streams(speak).withConnection(observeGreeting, { needsVoice: false }),
);

/** What the worker says on connect, if anything (reported); a status message is schema-checked. */
async function observeGreeting(conn: SpeakStreamConnection): Promise<void> {
  const isStatus = (m: { json: unknown }) => field(m.json, 'status') !== undefined;
  const waiting = conn.waitForText(isStatus, MESSAGE_WAIT_MS, 'connection-level status message');
  const greeting = await waiting.catch(() => undefined);
  const said = greeting ? 'sent {greeting}' : 'sent no connection-level message within {waitMs} ms';
  observe('websocket.greeting', `on connect the worker ${said}`, {
    values: { greeted: greeting !== undefined },
    particulars: { greeting: greeting?.text.slice(0, 200) ?? '', waitMs: MESSAGE_WAIT_MS },
  });
  const what = 'the connection-level message';
  if (greeting) check('WS-CONNECTION-MESSAGE', () => expectSchema('WsStatusMessage', greeting.json, what));
}

covers(
  ['WS-URL-SECRET-VARIES', 'WS-URL-TAMPERED-REFUSED'],
  'two URLs differ in their secret; with it removed or altered the URL is refused at the upgrade',
  async ({ speak }) => {
    const url = await fetchWebsocketUrl(speak.api, speak.model.name, 'spec');
    const second = await fetchWebsocketUrl(speak.api, speak.model.name, 'spec');
    // A second URL shows which parts carry the secret: they change from one issue to the next.
    const parts = changingParts(url, second);
    check('WS-URL-SECRET-VARIES', () => {
      assertSecretVaries(parts, url);
      observe('websocket.secret-in', 'the secret is in: {parts}', {
        values: { parts: parts.map(partName).join(', ') },
      });
    });
    if (parts.length === 0)
      cannotObserve(
        'the two issued URLs are identical: the secret cannot be located to alter or remove it',
        'a server that issues a different URL (secret) for each request',
      );
    // Every part in which two URLs differ, removed or altered, must not be upgraded (how it is
    // refused is observed: a router in front of the node may answer 502 or close); `second`, as
    // issued, must then open, so the refusals are the alterations' doing.
    await check('WS-URL-TAMPERED-REFUSED', () =>
      expectUpgradesRefused('WS-URL-TAMPERED-REFUSED', tamper(url, second), async () => second, {
        timeoutMs: speak.config.timeouts.requestMs,
        difference: 'altering the secret',
      }),
    );
  },
);

covers(['WS-URL-LIFETIME'], 'the URL lifetime (1 hour), where the URL shows it', async ({ speak }) => {
  const before = Date.now();
  const url = await fetchWebsocketUrl(speak.api, speak.model.name, 'spec');
  const expiry = visibleExpiryMs(url);
  if (expiry === undefined) {
    const unreadable = 'the websocket URL shows no readable expiry; its lifetime is not known to the harness';
    observe('websocket.url-expiry', unreadable, { values: { readable: false } });
    return;
  }
  observe('websocket.url-expiry', 'the websocket URL expires {s} s after it was issued', {
    values: { readable: true },
    particulars: { s: ((expiry - before) / 1000).toFixed(0) },
  });
  check('WS-URL-LIFETIME', () => assertUrlLifetime(before, expiry));
});

// WS-URL-EXPIRED-REFUSED and WS-OPEN-PAST-EXPIRY wait a lifetime out: suites/expiry.spec.ts.

covers(['WS-URL-NEW-PER-CONNECTION'], 'whether a URL can open a second connection', async ({ speak }) => {
  const url = await fetchWebsocketUrl(speak.api, speak.model.name, 'spec');
  const refusal = await reuseRefusal(speak, url);
  const seen = refusal
    ? 'a URL already used was refused the second time: {error}'
    : 'a URL already used opened a second connection (reuse accepted until it expires)';
  check('WS-URL-NEW-PER-CONNECTION', () =>
    observe('websocket.url-reuse', seen, {
      values: { accepted: refusal === undefined },
      ...(refusal ? { particulars: { error: refusal.message } } : {}),
    }),
  );
});

// ---------------------------------------------------------------------------------------------
// Framing, status messages and audio, per mode

for (const mode of ['parts', 'chunks'] as const) {
  covers(
    [
      'WS-REQUEST-FORMAT',
      'WS-FRAME-FORMAT',
      'WS-FRAME-METADATA',
      'WS-FRAME-IDS-COMPLETE',
      mode === 'parts' ? 'WS-MODE-PARTS' : 'WS-MODE-CHUNKS',
      ...(mode === 'chunks' ? (['WS-CHUNK-END-MARKER'] as const) : []),
      'WS-END-OF-TAKE',
      'WS-NO-DISCONNECT-MID-REQUEST',
      'WS-REQUEST-ID-ECHO',
    ],
    `${mode} mode: frames, ids, WAV headers and end markers`,
    async ({ speak }) => {
      const { conn, r } = await scenario[mode](speak);
      const modeId = modeRequirement(mode);
      check('WS-FRAME-FORMAT', () => assertFramesWellFormed(conn));
      // How the request ended names its requirement (a close mid-request, a missing end, a refusal);
      // a request that ended cleanly observed all three.
      check(['WS-REQUEST-FORMAT', 'WS-END-OF-TAKE', 'WS-NO-DISCONNECT-MID-REQUEST'], () =>
        against(requirementOfEnding(r.outcome), () => assertRequestEnded(r)),
      );
      check('WS-REQUEST-ID-ECHO', () => {
        assertNoStrays(conn);
        assertRequestIdEcho(r);
      });
      check('WS-FRAME-METADATA', () => assertModeShape(r));
      if (mode === 'parts') observePartsModeChunkIds(r);
      // The reassembler's findings, each against the requirement it breaks.
      const byRequirement = streamFindingsByRequirement(r.reassembly.findings, mode);
      // No part in chunks form, no end of part to mark: only a finding against the marker judges it.
      const unmarked = mode === 'chunks' ? noChunkedPart(r) : undefined;
      for (const [id, findings] of byRequirement) {
        if (id === 'WS-CHUNK-END-MARKER' && unmarked && findings.length === 0)
          notObserved(id, unmarked, CHUNKED_PART_REMEDY);
        else check(id, () => assertNoStreamFindings(r, findings));
      }
      check(modeId, () => assertAudioStreamed(r, `${mode} mode`));
    },
  );

  covers(
    ['WS-TEXT-TAKE', 'WS-STATUS-ORDER', 'WS-READY-INFO'],
    `${mode} mode: a Take message on each status change, in order, ready with info`,
    async ({ speak }) => {
      const { voice } = streams(speak);
      const { r } = await scenario[mode](speak);
      await checkStep('WS-TEXT-TAKE', () => {
        assertTakeMessagesSent(r, `${mode} mode`);
        for (const m of r.takeMessages) expectSchema('WsItemMessage', m.raw, `Take message #${m.seq}`);
        for (const m of r.takeMessages) expectSchema('Take', m.data, `the Take of message #${m.seq}`);
      });
      const statuses = takeStatuses(r);
      // A pass is an observation: a stream that showed one status (only `ready`) ordered nothing.
      const where = `websocket take ${r.takeId ?? '?'} (${mode} mode)`;
      judgeStatusOrder('WS-STATUS-ORDER', distinctRuns(statuses), where, WS_ORDER);
      const repeats = statuses.filter((s, i) => i > 0 && s === statuses[i - 1]);
      observe('websocket.mode-statuses', '{mode} mode statuses: {statuses}{repeats}', {
        values: { mode },
        particulars: {
          statuses: statuses.join(' → '),
          repeats: repeats.length ? ` (${repeats.length} repeated)` : '',
        },
      });
      // Every take passes waiting → started on its way to ready (States and transitions: "a status
      // message is sent"), so a stream without `started` left a status change unannounced.
      check('WS-TEXT-TAKE', () => assertStartedAnnounced(statuses, `${mode} mode`));
      check('WS-READY-INFO', () =>
        expectSchema('TakeInfo', assertReadyTake(r).info, 'info of the ready Take'),
      );
      // The whole Take: the one this request made, with the text and voice it was asked for.
      const voiceId = await voice();
      check('WS-TEXT-TAKE', () => assertTakeMessagesOfRequest(r, { text: THREE_SENTENCES, voiceId }));
    },
  );

  covers(
    ['WS-MULTIPART-PROGRESS'],
    `${mode} mode: a take the server sent in several parts shows started, then progress_50, before ready`,
    async ({ speak }) => {
      const { r } = await scenario[mode](speak);
      const statuses = takeStatuses(r);
      // "A part is usually one sentence": a server may merge short sentences, so what makes a take
      // multi-part is the parts it sent, not the sentences of the text.
      const parts = r.reassembly.parts.length;
      if (parts < 2) {
        observe(
          'websocket.single-part',
          '{mode} mode: the three sentences came as {parts} part: no multi-part take to judge ({statuses})',
          { values: { mode }, particulars: { parts, statuses: statuses.join(' → ') } },
        );
        cannotObserve(
          `the server sent the three-sentence take as ${parts} part: it is not a multi-part take`,
          'a server that streams a take of several sentences in several parts (nothing the run can set)',
        );
      }
      check('WS-MULTIPART-PROGRESS', () => assertMultipartProgress(statuses, parts, `${mode} mode`));
    },
  );

  covers(
    ['WS-TAKE-IN-REST', 'WS-AUDIO-MATCHES-REST', 'WS-PCM-MATCHES-REST', 'WS-DURATION-SAMPLES'],
    `${mode} mode: the streamed audio is the REST wav of the same take`,
    async ({ speak }) => {
      const { r } = await scenario[mode](speak);
      assertRequestEnded(r);
      const take = assertReadyTake(r);
      const takeId = String(take.take_id);
      const listed = expectJson(await speak.api.get('/v1/speak/takes', { query: { take_id: takeId } }));
      const fetched = expectJson(await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}`));
      check('WS-TAKE-IN-REST', () => assertTakeInRest(take, listed, fetched));
      const redirect = assertSignedRedirect(
        await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/wav`),
      );
      const wav = await speak.api.fetchSigned(redirect.location.toString(), {
        receivedAtMs: Date.now(),
        reissue: signedUrlAgain(speak, takeId, 'wav'),
      });
      if (wav.status !== 200)
        throw new Finding(`the signed wav URL answered ${wav.status}`, { expected: 200, actual: wav.status });
      const rest = wavSamples(wav.body, `REST wav of take ${takeId}`);
      check('WS-AUDIO-MATCHES-REST', () =>
        assertSameAudio(
          { pcm: r.reassembly.pcm, sampleRate: r.reassembly.sampleRate, blockAlign: rest.blockAlign },
          rest,
          durationTolerance(r, rest),
          `take ${takeId} (${mode} mode)`,
        ),
      );
      check('WS-PCM-MATCHES-REST', () =>
        assertPcmIdentical(r.reassembly.pcm, rest.pcm, rest.blockAlign, `take ${takeId} (${mode} mode)`),
      );
      const info = take.info as TakeAudioInfo;
      check('WS-DURATION-SAMPLES', () => assertDurationInSamples(r.reassembly, info, takeId));
    },
  );
}

covers(
  ['WS-MODE-PARTS-DEFAULT'],
  'a request without `stream` is answered in parts mode',
  async ({ speak }) => {
    const { streamTake, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      const r = await streamTake(conn, ONE_SENTENCE, undefined);
      check('WS-MODE-PARTS-DEFAULT', () => {
        assertFramesWellFormed(conn);
        assertRequestEnded(r);
        assertModeShape(r);
        assertStreamClean(r);
      });
    });
  },
);

covers(['WS-PARTS-ARE-SENTENCES'], 'parts are sentences ending in silence', async ({ speak }) => {
  const { r } = await scenario.parts(speak);
  const take = assertReadyTake(r);
  const sentences = (field(take.info, 'normalized_text') as unknown[] | undefined)?.length;
  const tails = partTailPeaks(r.reassembly.parts, r.reassembly.sampleRate);
  const particulars = {
    parts: r.reassembly.parts.length,
    sentences: String(sentences),
    tails: tails.join(', '),
  };
  const said =
    "{parts} part(s) for {sentences} normalized sentence(s); peak level of each part's last 20 ms: {tails}";
  observe('websocket.part-tails', said, { particulars });
  check('WS-PARTS-ARE-SENTENCES', () => assertPartsAreSentences(sentences, tails));
});

covers(
  ['WS-CHUNKS-LOWER-LATENCY'],
  'chunks mode reaches first audio sooner than parts mode',
  async ({ speak }) => {
    const { streamTake, withConnection } = streams(speak);
    await withConnection(async (conn) => {
      const parts = await streamTake(conn, ONE_SENTENCE, 'parts');
      const chunks = await streamTake(conn, ONE_SENTENCE, 'chunks');
      assertRequestEnded(parts);
      assertRequestEnded(chunks);
      observe(
        'websocket.first-audio-by-mode',
        "one sentence, one connection: time to first audio chunks {chunksAudio}, parts {partsAudio}; time to first playable audio (part 0's header, then its first audio bytes) chunks {chunksPlayable}, parts {partsPlayable}",
        {
          particulars: {
            chunksAudio: formatMs(chunks.timings.firstAudioMs),
            partsAudio: formatMs(parts.timings.firstAudioMs),
            chunksPlayable: formatMs(chunks.timings.firstPlayableMs),
            partsPlayable: formatMs(parts.timings.firstPlayableMs),
          },
        },
      );
      check('WS-CHUNKS-LOWER-LATENCY', () => assertChunksSooner(chunks, parts));
    });
  },
);

covers(
  ['WS-CHUNK0-SENT-FIRST'],
  'chunks mode: is chunk 0 (the header) sent before the rest of its part?',
  async ({ speak }) => {
    const { r } = await scenario.chunks(speak);
    const late = chunkZeroNotFirst(framesByPart(r));
    const gap = (r.timings.firstPlayableMs ?? Number.NaN) - (r.timings.firstAudioMs ?? Number.NaN);
    const particulars = {
      late: late.length ? late.join('; ') : 'chunk 0 arrived first in every part',
      playable: formatMs(r.timings.firstPlayableMs),
      audio: formatMs(r.timings.firstAudioMs),
      gap: Number.isFinite(gap) ? gap.toFixed(1) : '?',
    };
    const said = '{late}; first playable audio {playable} vs first audio {audio} (+{gap} ms)';
    observe('websocket.chunk-order', said, { particulars });
    check('WS-CHUNK0-SENT-FIRST', () => assertChunkZeroFirst(late));
  },
);

covers(
  ['WS-CHUNK0-BEFORE-PART-END'],
  "chunks mode: each part's chunk 0 arrives before the part's last audio chunk",
  async ({ speak }) => {
    const { r } = await scenario.chunks(speak);
    const unseen = noChunkedPart(r);
    if (unseen) return notObserved('WS-CHUNK0-BEFORE-PART-END', unseen, CHUNKED_PART_REMEDY);
    const late = chunkZeroAfterPartEnd(framesByPart(r));
    observe('websocket.chunk-order', '{late}; first playable audio {playable}', {
      particulars: {
        late: late.length ? late.join('; ') : "every part's chunk 0 came before its last audio chunk",
        playable: formatMs(r.timings.firstPlayableMs),
      },
    });
    check('WS-CHUNK0-BEFORE-PART-END', () => assertChunkZeroBeforePartEnd(late));
  },
);
