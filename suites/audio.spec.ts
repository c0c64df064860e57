/**
 * Audio (speak-v1.md Endpoints → Takes, Audio rules, States and transitions; wire-facts Signed
 * audio URLs): every format answers 307 to a signed absolute URL that works without
 * Authorization and delivers that container; durations agree; wav streams before ready while
 * other formats are not available; a tampered URL is refused.
 */
import {
  AUDIO_FORMATS,
  type AudioFormat,
  assertContainer,
  assertContentType,
  assertDurationClose,
  assertDurationIsSampleCount,
  assertWavWhole,
  type ParsedAudio,
  parseWav,
} from '../src/checks/audio.ts';
import { assertDecodesCompletely, type DecodedAudio, decodeAudio } from '../src/checks/decode.ts';
import { Finding, show } from '../src/checks/finding.ts';
import { AMZ_SIGNATURE_PARAM, assertTamperedRejected, tamperSignature } from '../src/checks/redirect.ts';
import { distinctRuns, isDone } from '../src/checks/status.ts';
import {
  against,
  ClientDiagnostic,
  cannotObserve,
  check,
  checkStep,
  covers,
  type Exchange,
  notObserved,
  observe,
  signedUrlLifetime,
  useSpeak,
} from '../src/harness/index.ts';
import { type FetchedAudio, fetchAudio, signedRedirect, signedUrlAgain } from './support/audio.ts';
import { generateTake, getItem, type Take, waitUntilDone } from './support/items.ts';
import { longText, tooFastRemedy } from './support/long-text.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';

const speak = useSpeak();

const TEXT = 'Audio comes in five formats. Each one must carry the same speech.';
/** A plain ready voice to make takes with: the run's shared one. */
const voice = useSharedVoice(speak);

/** Every format the contract serves except wav: none may be delivered before ready. */
const NOT_BEFORE_READY = AUDIO_FORMATS.filter((format) => format !== 'wav');

const readyTake = once(async (): Promise<Take> => {
  const { take } = await generateTake(speak, { voice_id: (await voice()).voice_id, text: TEXT });
  return (await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take })).final;
});

const fetched = new Map(
  AUDIO_FORMATS.map((format) => [
    format,
    once(async (): Promise<FetchedAudio & { parsed: ParsedAudio; decoded: DecodedAudio }> => {
      const take = await readyTake();
      const result = await fetchAudio(speak, take.take_id, format);
      const where = `signed ${format} URL of take ${take.take_id.slice(0, 8)}`;
      // Decoded beside the header parse: the header proves the container, the decode the sound.
      const [parsed, decoded] = await Promise.all([
        against('AUDIO-CONTAINER', () => assertContainer(format, result.audio.body, where)),
        against('AUDIO-CONTAINER', () => decodeAudio(result.audio.body)),
      ]);
      return { ...result, parsed, decoded };
    }),
  ]),
);
/** Each format fetched once (307 → signed URL without Authorization → 200), container checked. */
function audioOf(format: AudioFormat) {
  return fetched.get(format)!();
}

// Every format at once: a server that encodes lazily encodes them side by side.
prefetch(readyTake, () => streaming(), ...AUDIO_FORMATS.map((format) => () => audioOf(format)));

for (const format of AUDIO_FORMATS) {
  covers(
    [
      'AUDIO-307',
      'AUDIO-SIGNED-LOCATION',
      'AUDIO-SIGNED-NO-AUTH',
      'AUDIO-ALL-FORMATS-READY',
      'AUDIO-CONTAINER',
    ],
    `${format}: 307 to an absolute signed URL that delivers ${format} without Authorization`,
    async () => {
      await readyTake();
      // Each finding of the fetch names its requirement (support/audio.ts); the rest is the format's availability.
      const { audio, parsed, decoded } = await checkStep(
        [
          'AUDIO-ALL-FORMATS-READY',
          'AUDIO-307',
          'AUDIO-SIGNED-LOCATION',
          'AUDIO-SIGNED-NO-AUTH',
          'AUDIO-CONTAINER',
        ],
        () => audioOf(format),
      );
      observe(
        `${format}: ${audio.body.length} bytes, ${parsed.container}/${parsed.codec}, ${parsed.durationSeconds?.toFixed(3)} s, ${parsed.sampleRate} Hz; decodes to ${decoded.durationSeconds.toFixed(3)} s`,
      );
      const where = `signed ${format} URL`;
      // The header proves the container, the full decode the sound: a body cut short fails here.
      check('AUDIO-CONTAINER', () => {
        if (format === 'wav') assertWavWhole(audio.body, parseWav(audio.body, where), where);
        assertDecodesCompletely(format, decoded, parsed.durationSeconds, audio.body.length, where);
      });
    },
  );

  covers(
    ['AUDIO-CONTENT-TYPE', 'AUDIO-FORMATS-SAME-AUDIO'],
    `${format}: Content-Type and the same duration as the wav`,
    async () => {
      const { audio, decoded } = await audioOf(format);
      check('AUDIO-CONTENT-TYPE', () =>
        assertContentType(format, audio.headers['content-type'], `signed ${format} URL`),
      );
      const wav = parseWav((await audioOf('wav')).audio.body, 'wav');
      // The decoded sound, not the header's claim: a cut-short body with an intact header differs here.
      check('AUDIO-FORMATS-SAME-AUDIO', () =>
        assertDurationClose(
          format,
          decoded.durationSeconds,
          wav.samples / wav.sampleRate,
          `${format} (decoded) vs wav`,
        ),
      );
    },
  );

  covers(
    ['AUDIO-DURATION-MATCHES-INFO'],
    `${format}: duration matches info.duration / audio_rate (reported)`,
    async () => {
      const take = await readyTake();
      const { audio, decoded } = await audioOf(format);
      const info = take.info!;
      if (format === 'wav')
        assertDurationIsSampleCount(info, parseWav(audio.body, 'wav'), `take ${take.take_id.slice(0, 8)}`);
      assertDurationClose(
        format,
        decoded.durationSeconds,
        info.duration / info.audio_rate,
        `${format} (decoded) vs info`,
      );
      observe(
        `${format}: decodes to ${decoded.durationSeconds.toFixed(3)} s against info ${(info.duration / info.audio_rate).toFixed(3)} s (${info.duration} samples at ${info.audio_rate} Hz)`,
      );
    },
  );
}

covers(
  ['AUDIO-AMZ-SIGNATURE', 'AUDIO-SIGNED-LIFETIME'],
  'signature parameter and advertised lifetime (reported)',
  async () => {
    const { signed } = await audioOf('wav');
    const params = [...signed.location.searchParams.keys()];
    const expires =
      signed.location.searchParams.get('X-Amz-Expires') ??
      signed.location.searchParams.get('expires') ??
      signed.location.searchParams.get('Expires');
    observe(
      `signed URL parameters: ${params.join(', ')}; signature in ${signed.signatureParam}; expiry parameter ${show(expires)}`,
    );
    if (signed.signatureParam !== AMZ_SIGNATURE_PARAM) {
      throw new Finding(
        `the signature is in ${signed.signatureParam}, not ${AMZ_SIGNATURE_PARAM}: the SDK would send Authorization to this URL`,
      );
    }
    const seconds = Number(signed.location.searchParams.get('X-Amz-Expires'));
    if (Number.isFinite(seconds) && seconds > 0 && seconds < 600) {
      throw new Finding(`X-Amz-Expires=${seconds} s, shorter than the 10 minutes the SDK caches signed URLs`);
    }
  },
);

covers(['AUDIO-TAMPERED-REJECTED'], 'a signed URL with a tampered signature is refused', async () => {
  const { signed } = await audioOf('wav');
  const take = await readyTake();
  // The URL was fetched at the file's start: once stale (the run's waits), a refusal would prove
  // nothing about the signature. A fresh one is asked for and tampered the same way.
  const again = async () => {
    const fresh = signedRedirect(
      await speak.api.get(`/v1/speak/takes/${encodeURIComponent(take.take_id)}/wav`),
    );
    return { fresh, href: tamperSignature(fresh.location, fresh.signatureParam).href };
  };
  const tampered = tamperSignature(signed.location, signed.signatureParam);
  const exchange = await speak.api.fetchSigned(tampered.href, {
    expiresAtMs: signedUrlLifetime(signed.location)?.expiresAtMs,
    reissue: async () => (await again()).href,
  });
  // Refused is not served: the status is the server's (or its blob store's) choice, observed.
  observe(`a tampered signature: ${assertTamperedRejected(exchange)}`);
  // The expiry, when present, is covered by the signature too.
  const expiresParam = ['X-Amz-Expires', 'expires', 'Expires'].find((p) =>
    signed.location.searchParams.has(p),
  );
  if (expiresParam) {
    const stretched = new URL(signed.location.href);
    stretched.searchParams.set(
      expiresParam,
      String(Number(stretched.searchParams.get(expiresParam)) + 1_000_000),
    );
    const stretch = (url: URL) => {
      const copy = new URL(url.href);
      copy.searchParams.set(expiresParam, String(Number(copy.searchParams.get(expiresParam)) + 1_000_000));
      return copy.href;
    };
    const refusal = assertTamperedRejected(
      await speak.api.fetchSigned(stretched.href, {
        // Its own expiry parameter was stretched: the original's lifetime is the one that counts.
        expiresAtMs: signedUrlLifetime(signed.location)?.expiresAtMs,
        reissue: async () => stretch((await again()).fresh.location),
      }),
    );
    observe(`${expiresParam} stretched: ${refusal}`);
  }
});

covers(
  ['AUDIO-SIGNED-WITH-AUTH-REJECTED'],
  'a signed URL fetched with an Authorization header (reported)',
  async () => {
    const { signed } = await audioOf('wav');
    const access = speak.api.tokens()?.access ?? 'speakcheck-token';
    const exchange = await speak.anon.request('GET', signed.location.href, {
      headers: { authorization: `Bearer ${access}` },
    });
    observe(`signed URL with Authorization answered ${exchange.status}`);
    if (exchange.status < 400)
      throw new Finding(
        `the signed URL accepted an Authorization header too (${exchange.status}); S3 refuses a second auth mechanism`,
      );
  },
);

/** One request for a format other than wav while the take may still be generated. */
interface EarlyFetch {
  format: string;
  redirect: Exchange;
  /** The signed URL, followed right away when the answer was a redirect. */
  signed?: Exchange;
  /** The take's status read the moment the audio answer's headers arrived (or after a direct answer). */
  statusAtAnswer: string;
}

/** What statusNow says when the read was throttled past its bound: our missing data, not the server's. */
const THROTTLED_STATUS = 'unknown (throttled)';

/** Whether a status from statusNow is no status at all (the read failed). */
const unreadable = (status: string) => status === 'unknown' || status === THROTTLED_STATUS;

/** The take's status now; `unknown` when it cannot be read (the take tests judge that). */
async function statusNow(takeId: string): Promise<string> {
  return getItem<Take>(speak, 'take', takeId).then(
    (t) => t.status,
    (error: unknown) =>
      error instanceof ClientDiagnostic && error.kind === 'throttled' ? THROTTLED_STATUS : 'unknown',
  );
}

/**
 * GET `format` and, on a redirect, its signed URL at once: a server may answer 307 for every format
 * before ready and refuse at the signed URL until then ("The audio endpoints answer with HTTP 307").
 * The take's status is read as soon as the answer that could carry audio starts (its headers): audio
 * is judged by the take's state at the time of that fetch, not by the state at the end of the run.
 */
async function fetchEarly(takeId: string, format: string): Promise<EarlyFetch> {
  const redirect = await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
  if (redirect.status !== 307 || !redirect.headers.location)
    return { format, redirect, statusAtAnswer: await statusNow(takeId) };
  let statusAtHeaders: Promise<string> | undefined;
  const signed = await speak.api.fetchSigned(redirect.headers.location, {
    receivedAtMs: Date.now(),
    reissue: signedUrlAgain(speak, takeId, format),
    // A server that (wrongly) streams this format like wav keeps the body open until the take is
    // done: read it as long as a take may take, or the defect shows up as a timeout of our own.
    timeoutMs: speak.config.timeouts.readyMs,
    onHeaders: () => {
      statusAtHeaders = statusNow(takeId);
    },
  });
  return { format, redirect, signed, statusAtAnswer: await (statusAtHeaders ?? statusNow(takeId)) };
}

/**
 * How long the take must still be generating after its wav was requested before a first body byte
 * that comes only once the take is ready counts against the server: a stream needs a moment to
 * start, and a take that ends within it proves nothing either way. At least this long, and at least
 * a few of the server's own round trips (the wav redirect's), so a distant server gets its latency.
 */
const STREAM_START_GRACE_MS = 250;
const STREAM_START_ROUND_TRIPS = 3;
/** The long text once, then repeated: a server too fast to observe gets a longer take. */
const REPEATS = [1, 3, 9, 15] as const;

/** When the first byte of the wav arrived against the take's status timeline. */
type Progressive =
  | { kind: 'before-ready'; message: string }
  | { kind: 'after-ready'; message: string }
  | { kind: 'not-observable'; reason: string };

/** One status read of the take: when it was sent, what it answered. */
interface StatusRead {
  sentAt: number;
  status: string;
}

/**
 * Reads the take's status back to back (each read once the previous one answered) until one was
 * sent after the wav's first byte arrived, or the take is done: the timeline the byte is judged on.
 */
async function statusTimeline(takeId: string, firstByteAt: () => number | undefined): Promise<StatusRead[]> {
  const reads: StatusRead[] = [];
  const bound = Date.now() + speak.config.timeouts.readyMs;
  for (;;) {
    const sentAt = Date.now();
    const status = await statusNow(takeId);
    reads.push({ sentAt, status });
    const byte = firstByteAt();
    if ((byte !== undefined && sentAt >= byte) || isDone(status) || unreadable(status) || sentAt > bound)
      return reads;
  }
}

/**
 * Judges the first body byte of the wav against the status timeline. Before ready when a status
 * read sent after that byte still showed the take in progress; after ready (a failure) when the
 * take was still generating a grace after the request and no byte came before it was ready;
 * otherwise the take was too quick for the difference to be seen.
 */
function progressiveOf(
  requestedAt: number,
  firstByteAt: number | undefined,
  reads: readonly StatusRead[],
  roundTripMs: number,
): Progressive {
  const grace = Math.round(Math.max(STREAM_START_GRACE_MS, STREAM_START_ROUND_TRIPS * roundTripMs));
  const inProgress = reads.filter((r) => !isDone(r.status) && !unreadable(r.status));
  const afterByte = inProgress.find((r) => firstByteAt !== undefined && r.sentAt >= firstByteAt);
  const byteAt = firstByteAt !== undefined ? `${firstByteAt - requestedAt} ms` : 'never';
  if (afterByte)
    return {
      kind: 'before-ready',
      message: `the first wav bytes arrived ${byteAt} after the request, while the take was still ${afterByte.status}`,
    };
  const last = inProgress[inProgress.length - 1];
  const generating = last ? last.sentAt - requestedAt : 0;
  if (last && generating >= grace)
    return {
      kind: 'after-ready',
      message: `the take was still ${last.status} ${generating} ms after its wav was requested, but the first byte of the wav came only once it was ready (after ${byteAt}): the wav is not streamed while it is generated`,
    };
  return {
    kind: 'not-observable',
    reason: `the take was seen generating for ${generating} ms (less than ${grace} ms) after its wav was requested, and its first wav byte came (after ${byteAt}) when it was ready: too fast to tell a stream from a body held until ready`,
  };
}

/**
 * One long take: wav requested first, then every other format, each followed at once; then the
 * take's status. Only when it is still not ready are all requests known to have come before ready;
 * a server fast enough to finish first is given the same text 3, 9, then 15 times over (4470
 * characters: under the 5000 the reference accepts) (a take
 * ready too soon proves nothing either way). The signed wav URL is read while the take's status is
 * read back to back, the first body byte timed against it (a take too quick to tell whether the wav
 * streams is also retried longer), then polled to its end.
 */
const streaming = once(async () => {
  for (const repeat of REPEATS) {
    const text = longText(repeat);
    const { take } = await generateTake(speak, { voice_id: (await voice()).voice_id, text });
    const path = `/v1/speak/takes/${encodeURIComponent(take.take_id)}`;
    const wavRedirect = await speak.api.get(`${path}/wav`);
    const others: EarlyFetch[] = [];
    for (const format of NOT_BEFORE_READY) others.push(await fetchEarly(take.take_id, format));
    const afterRequests = await getItem<Take>(speak, 'take', take.take_id);
    const last = repeat === REPEATS[REPEATS.length - 1];
    if (afterRequests.status === 'ready' && !last) {
      observe(
        `a take of ${text.length} characters was ready before its audio requests were answered; trying a longer one`,
      );
      continue;
    }
    const location = wavRedirect.status === 307 ? wavRedirect.headers.location : undefined;
    // When the signed request actually left: the run's own waits before it (the limiter, a 429's
    // hold) are not the server's, or a held request would make a streaming wav look buffered.
    let requestedAt = Date.now();
    let firstByteAt: number | undefined;
    const [streamed, { reads, polled }] = await Promise.all([
      location
        ? speak.api.fetchSigned(location, {
            reissue: signedUrlAgain(speak, take.take_id, 'wav'),
            timeoutMs: speak.config.timeouts.readyMs,
            onSend: () => {
              requestedAt = Date.now();
            },
            onFirstByte: () => {
              firstByteAt = Date.now();
            },
          })
        : Promise.resolve(undefined),
      (async () => {
        const reads = location ? await statusTimeline(take.take_id, () => firstByteAt) : [];
        return { reads, polled: await waitUntilDone<Take>(speak, 'take', take.take_id) };
      })(),
    ]);
    const progressive = progressiveOf(requestedAt, firstByteAt, reads, wavRedirect.ms);
    if (progressive.kind === 'not-observable' && !last && streamed?.status === 200) {
      observe(`${progressive.reason}; trying a longer take`);
      continue;
    }
    return {
      take,
      others,
      afterOthers: afterRequests,
      wavRedirect,
      statusAtWav: afterRequests.status,
      streamed,
      polled,
      progressive,
    };
  }
  throw new Error('unreachable: the last attempt always returns');
});

covers(
  ['AUDIO-ONLY-WAV-BEFORE-READY'],
  'before ready, another format than wav is not delivered',
  async () => {
    const { others, take } = await streaming();
    const early = others.filter((o) => o.statusAtAnswer !== 'ready');
    if (early.length === 0)
      return notObserved(
        'AUDIO-ONLY-WAV-BEFORE-READY',
        'even a take of 15 times the long text was ready before the harness could ask for the other formats: "before ready" could not be observed',
        tooFastRemedy('audio'),
      );
    const delivered: string[] = [];
    /** Audio delivered when the take's status could not be read: no evidence of "before ready". */
    const unsure: string[] = [];
    for (const { format, redirect, signed, statusAtAnswer } of others) {
      const when = `while the take was ${statusAtAnswer}`;
      if (signed) {
        const gotAudio = signed.status >= 200 && signed.status < 300 && signed.body.length > 0;
        if (gotAudio && statusAtAnswer === THROTTLED_STATUS) unsure.push(format);
        else if (gotAudio && statusAtAnswer !== 'ready')
          delivered.push(`${format}: 307, then its signed URL delivered ${signed.body.length} bytes ${when}`);
        else observe(`${format}: 307, then its signed URL answered ${signed.status} ${when}`);
        continue;
      }
      if ((redirect.status < 400 || redirect.status >= 500) && statusAtAnswer === THROTTLED_STATUS) {
        unsure.push(format);
        continue;
      }
      if ((redirect.status < 400 || redirect.status >= 500) && statusAtAnswer !== 'ready') {
        delivered.push(`${format}: ${redirect.status} ${show(redirect.text)} ${when}`);
        continue;
      }
      observe(`${format} answered ${redirect.status} ${show(redirect.text)} ${when}`);
    }
    // The take's status read failing (e.g. throttled past its bound) is our missing side: audio
    // delivered then proves nothing, and alone it leaves the check not concluded (issue 37).
    if (delivered.length === 0 && unsure.length > 0)
      throw new ClientDiagnostic(
        'throttled',
        `${unsure.join(', ')} delivered audio, but the take's status could not be read at that moment: "before ready" is not known`,
        `${speak.config.baseUrl}/v1/speak/takes/${encodeURIComponent(take.take_id)}`,
      );
    if (delivered.length > 0) {
      throw new Finding(`before ready, only wav may be fetched, but: ${delivered.join('; ')}`, {
        expected: 'no audio but wav before ready',
        actual: delivered,
      });
    }
  },
);

covers(
  ['AUDIO-WAV-BEFORE-READY', 'AUDIO-307', 'AUDIO-SIGNED-LOCATION'],
  'before ready, wav is fetchable and streams to the complete audio while it is generated',
  async () => {
    const { take, wavRedirect, statusAtWav, streamed, progressive } = await streaming();
    if (statusAtWav === 'ready') {
      // None of the three could be observed before ready: not judged, not failed.
      cannotObserve(
        'even a take of 15 times the long text was ready before its wav was requested: "before ready" could not be observed',
        tooFastRemedy('audio'),
      );
    }
    // A wav request before ready that is not redirected is refused: wav could not be fetched
    // (AUDIO-WAV-BEFORE-READY) and the endpoint did not answer 307 (AUDIO-307), both failed.
    if (wavRedirect.status !== 307)
      check('AUDIO-WAV-BEFORE-READY', () => {
        throw new Finding(
          `GET wav of a take in ${statusAtWav} answered ${wavRedirect.status} ${show(wavRedirect.text, 200)}: before ready the wav can be fetched`,
          { expected: 307, actual: wavRedirect.status },
        );
      });
    // The redirect's finding names AUDIO-307 or AUDIO-SIGNED-LOCATION (support/audio.ts).
    await checkStep(['AUDIO-307', 'AUDIO-SIGNED-LOCATION'], () => signedRedirect(wavRedirect));
    // Not judged at all when the take was too quick for "streamed while generated" to be seen (the
    // redirect checks above stand: they were observed).
    if (streamed?.status === 200 && progressive.kind === 'not-observable')
      return notObserved('AUDIO-WAV-BEFORE-READY', progressive.reason, tooFastRemedy('audio'));
    const streamedWav = await checkStep('AUDIO-WAV-BEFORE-READY', () => {
      if (streamed?.status !== 200) {
        throw new Finding(
          `the signed wav URL of a take in ${statusAtWav} answered ${streamed?.status}: ${show(streamed?.text)}`,
        );
      }
      return parseWav(streamed.body, 'streamed wav');
    });
    // "Streamed while it is generated": its first bytes come before the take is ready.
    check('AUDIO-WAV-BEFORE-READY', () => {
      if (progressive.kind === 'after-ready')
        throw new Finding(progressive.message, { expected: 'first wav bytes before ready' });
      if (progressive.kind === 'before-ready') observe(progressive.message);
    });
    const { audio } = await fetchAudio(speak, take.take_id, 'wav');
    const finishedWav = parseWav(audio.body, 'finished wav');
    check('AUDIO-WAV-BEFORE-READY', () => {
      if (streamedWav.samples !== finishedWav.samples) {
        throw new Finding(
          `the wav streamed before ready holds ${streamedWav.samples} samples, the finished take's wav ${finishedWav.samples}: the stream ended early or differs`,
          { expected: finishedWav.samples, actual: streamedWav.samples },
        );
      }
    });
    observe(
      `streamed wav: ${streamedWav.samples} samples (declared data size ${streamedWav.declaredDataBytes})`,
    );
  },
);

covers(['AUDIO-WAV-GROWS'], 'the wav stream is read while the take is generated (reported)', async () => {
  const { statusAtWav, streamed, polled } = await streaming();
  if (!streamed) throw new Finding('no wav stream was opened');
  observe(
    `wav requested while ${statusAtWav}; the stream took ${streamed.ms.toFixed(0)} ms for ${streamed.body.length} bytes; the take was seen done after ${polled.ms} ms (${distinctRuns(polled.statuses).join(' → ')})`,
  );
  if (streamed.ms + 250 < polled.ms) {
    throw new Finding(
      `the wav stream ended ${polled.ms - Math.round(streamed.ms)} ms before the take was done: it may not have grown with the generation`,
    );
  }
});
