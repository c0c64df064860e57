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
import {
  AMZ_SIGNATURE_PARAM,
  expiryParam,
  judgeTamperedRefusal,
  type SignedRedirect,
  stretchExpiry,
  tamperSignature,
} from '../src/checks/redirect.ts';
import { distinctRuns } from '../src/checks/status.ts';
import {
  against,
  ClientDiagnostic,
  cannotObserve,
  check,
  checkStep,
  covers,
  freshEnough,
  notObserved,
  observe,
  type SpeakContext,
  signedUrlLifetime,
} from '../src/harness/index.ts';
import { type FetchedAudio, fetchAudio, signedRedirect } from './support/audio.ts';
import { beforeReadyTake, streamEndedInProgress, THROTTLED_STATUS } from './support/audio-before-ready.ts';
import { generateTake, type Take, waitUntilDone } from './support/items.ts';
import { tooFastRemedy } from './support/long-text.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';

const TEXT = 'Audio comes in five formats. Each one must carry the same speech.';
/** A plain ready voice to make takes with: the run's shared one. */
const voice = useSharedVoice();

/** The long take whose audio is requested before it is ready (support/audio-before-ready.ts). */
const streaming = beforeReadyTake(voice);

const readyTake = once(async (speak: SpeakContext): Promise<Take> => {
  const { take } = await generateTake(speak, { voice_id: (await voice(speak)).voice_id, text: TEXT });
  return (await waitUntilDone<Take>(speak, 'take', take.take_id, { first: take })).final;
});

const fetched = new Map(
  AUDIO_FORMATS.map((format) => [
    format,
    once(
      async (speak: SpeakContext): Promise<FetchedAudio & { parsed: ParsedAudio; decoded: DecodedAudio }> => {
        const take = await readyTake(speak);
        const result = await fetchAudio(speak, take.take_id, format);
        const where = `signed ${format} URL of take ${take.take_id.slice(0, 8)}`;
        // Decoded beside the header parse: the header proves the container, the decode the sound.
        const [parsed, decoded] = await Promise.all([
          against('AUDIO-CONTAINER', () => assertContainer(format, result.audio.body, where)),
          against('AUDIO-CONTAINER', () => decodeAudio(result.audio.body)),
        ]);
        return { ...result, parsed, decoded };
      },
    ),
  ]),
);
/** Each format fetched once (307 → signed URL without Authorization → 200), container checked. */
function audioOf(speak: SpeakContext, format: AudioFormat) {
  return fetched.get(format)!(speak);
}

// Every format at once: a server that encodes lazily encodes them side by side.
prefetch(
  readyTake,
  streaming,
  ...AUDIO_FORMATS.map((format) => (speak: SpeakContext) => audioOf(speak, format)),
);

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
    async ({ speak }) => {
      await readyTake(speak);
      // Each finding of the fetch names its requirement (support/audio.ts); the rest is the format's availability.
      const { audio, parsed, decoded } = await checkStep(
        [
          'AUDIO-ALL-FORMATS-READY',
          'AUDIO-307',
          'AUDIO-SIGNED-LOCATION',
          'AUDIO-SIGNED-NO-AUTH',
          'AUDIO-CONTAINER',
        ],
        () => audioOf(speak, format),
      );
      observe(
        'audio.format',
        '{format}: {bytes} bytes, {container}/{codec}, {duration} s, {sampleRate} Hz; decodes to {decoded} s',
        {
          values: {
            format,
            container: parsed.container ?? null,
            codec: parsed.codec ?? null,
            sampleRate: parsed.sampleRate ?? null,
          },
          particulars: {
            bytes: audio.body.length,
            duration: parsed.durationSeconds?.toFixed(3) ?? 'undefined',
            decoded: decoded.durationSeconds.toFixed(3),
          },
        },
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
    async ({ speak }) => {
      const { audio, decoded } = await audioOf(speak, format);
      check('AUDIO-CONTENT-TYPE', () =>
        assertContentType(format, audio.headers['content-type'], `signed ${format} URL`),
      );
      const wav = parseWav((await audioOf(speak, 'wav')).audio.body, 'wav');
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
    async ({ speak }) => {
      const take = await readyTake(speak);
      const { audio, decoded } = await audioOf(speak, format);
      const info = take.info!;
      check('AUDIO-DURATION-MATCHES-INFO', () => {
        if (format === 'wav')
          assertDurationIsSampleCount(info, parseWav(audio.body, 'wav'), `take ${take.take_id.slice(0, 8)}`);
        assertDurationClose(
          format,
          decoded.durationSeconds,
          info.duration / info.audio_rate,
          `${format} (decoded) vs info`,
        );
        observe(
          'audio.duration-against-info',
          '{format}: decodes to {decoded} s against info {info} s ({samples} samples at {rate} Hz)',
          {
            values: { format, rate: info.audio_rate },
            particulars: {
              decoded: decoded.durationSeconds.toFixed(3),
              info: (info.duration / info.audio_rate).toFixed(3),
              samples: info.duration,
            },
          },
        );
      });
    },
  );
}

covers(
  ['AUDIO-AMZ-SIGNATURE', 'AUDIO-SIGNED-LIFETIME'],
  'signature parameter and advertised lifetime (reported)',
  async ({ speak }) => {
    const { signed } = await audioOf(speak, 'wav');
    const params = [...signed.location.searchParams.keys()];
    const expires =
      signed.location.searchParams.get('X-Amz-Expires') ??
      signed.location.searchParams.get('expires') ??
      signed.location.searchParams.get('Expires');
    observe(
      'audio.signed-url',
      'signed URL parameters: {params}; signature in {signatureParam}; expiry parameter {expires}',
      {
        values: { params: params.join(', '), signatureParam: signed.signatureParam },
        particulars: { expires: show(expires) },
      },
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

covers(
  ['AUDIO-TAMPERED-REJECTED'],
  'a signed URL with a tampered signature is refused',
  async ({ speak }) => {
    const take = await readyTake(speak);
    await judgeTampering(speak, take.take_id, {
      what: 'the signature changed',
      tamper: (fresh) => tamperSignature(fresh.location, fresh.signatureParam).href,
      observeRefusal: (refusal) =>
        observe('audio.tampered-signature', 'a tampered signature: {refusal}', { values: { refusal } }),
    });
    // The expiry, when present, is covered by the signature too. Which parameter carries it is read
    // from a URL as issued (the one the file fetched its wav with).
    const { signed } = await audioOf(speak, 'wav');
    const expiresParam = expiryParam(signed.location);
    if (expiresParam === undefined) return;
    await judgeTampering(speak, take.take_id, {
      what: `${expiresParam} stretched`,
      tamper: (fresh) => stretchExpiry(fresh.location, expiresParam),
      observeRefusal: (refusal) =>
        observe('audio.expiry-stretched', '{param} stretched: {refusal}', {
          values: { param: expiresParam, refusal },
        }),
    });
  },
);

/** One way of tampering with a signed URL, and the observation its refusal is. */
interface Tampering {
  /** The tampering in words, for a reason it could not be judged. */
  what: string;
  tamper: (fresh: SignedRedirect) => string;
  observeRefusal: (refusal: string) => void;
}

/**
 * A URL newly issued (a URL used already, which a server may make one-shot, or one the run's waits
 * carried past an expiry the run cannot read would be refused for that), its tampered copy fetched,
 * then the URL itself: only when that is served is the tampered copy's refusal the tampering's doing
 * (the way suites/support/upgrade.ts judges a tampered websocket URL). Never with Authorization.
 */
async function judgeTampering(speak: SpeakContext, takeId: string, t: Tampering): Promise<void> {
  // A new 307 each time, and when it reached the run (its stated lifetime counts from then).
  const issue = async () => {
    const redirect = signedRedirect(await speak.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/wav`));
    return { ...redirect, receivedAtMs: Date.now() };
  };
  let fresh = await issue();
  const tampered = await speak.api.fetchSigned(t.tamper(fresh), {
    receivedAtMs: fresh.receivedAtMs,
    // The copy's own expiry may be the part tampered with: the issued URL's is the one that counts.
    expiresAtMs: signedUrlLifetime(fresh.location, { receivedAtMs: fresh.receivedAtMs })?.expiresAtMs,
    reissue: async () => {
      fresh = await issue();
      return t.tamper(fresh);
    },
  });
  // Not reissued: the control is the very URL whose copy was refused.
  const untampered = await speak.api.fetchSigned(fresh.location.href);
  check('AUDIO-TAMPERED-REJECTED', () => {
    const judged = judgeTamperedRefusal(tampered, untampered, t.what);
    if (judged.kind === 'not-observed') {
      const stale = !freshEnough(signedUrlLifetime(fresh.location, { receivedAtMs: fresh.receivedAtMs }));
      const why = stale ? `${judged.reason} (by then past the lifetime the URL shows)` : judged.reason;
      return notObserved('AUDIO-TAMPERED-REJECTED', why, judged.wouldJudge);
    }
    t.observeRefusal(judged.refusal);
  });
}

/**
 * What goes in the Authorization header sent to a signed URL: never the run's bearer token (a token
 * is never sent to a signed URL); S3 refuses the second auth mechanism whatever the header says.
 */
const DECOY_AUTHORIZATION = 'Bearer speakcheck-decoy-not-a-token';

covers(
  ['AUDIO-SIGNED-WITH-AUTH-REJECTED'],
  'a signed URL fetched with an Authorization header (reported)',
  async ({ speak }) => {
    const take = await readyTake(speak);
    // A URL of its own, asked for right before: one used already (a server may make them one-shot)
    // or one the run's waits carried past its lifetime would be refused for that, not for the header.
    for (let attempt = 1; ; attempt++) {
      const { location } = signedRedirect(
        await speak.api.get(`/v1/speak/takes/${encodeURIComponent(take.take_id)}/wav`),
      );
      const receivedAtMs = Date.now();
      const exchange = await speak.anon.request('GET', location.href, {
        headers: { authorization: DECOY_AUTHORIZATION },
      });
      // Still fresh once answered, so fresh when sent: a refusal is the header's.
      const stale = exchange.status >= 400 && !freshEnough(signedUrlLifetime(location, { receivedAtMs }));
      if (stale && attempt < 3) continue;
      if (stale)
        cannotObserve(
          `the signed URL went past the lifetime it shows before its answer came, ${attempt} times (the run's waits on the server's back-pressure): its refusal says nothing about the header`,
          'a run against a server that rate-limits less, or whose signed URLs live longer',
        );
      observe(
        'audio.signed-url-with-authorization',
        exchange.status === 401
          ? 'signed URL with Authorization answered {status}: the decoy token itself may be what was refused, not the second auth mechanism'
          : 'signed URL with Authorization answered {status}',
        { values: { status: exchange.status } },
      );
      check('AUDIO-SIGNED-WITH-AUTH-REJECTED', () => {
        if (exchange.status < 400)
          throw new Finding(
            `the signed URL accepted an Authorization header too (${exchange.status}); S3 refuses a second auth mechanism`,
          );
      });
      return;
    }
  },
);

covers(
  ['AUDIO-ONLY-WAV-BEFORE-READY'],
  'before ready, another format than wav is not delivered',
  async ({ speak }) => {
    const { others, take } = await streaming(speak);
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
        else
          observe('audio.before-ready', '{format}: 307, then its signed URL answered {status} {when}', {
            values: { format, status: signed.status },
            particulars: { when },
          });
        continue;
      }
      // Delivered means audio bytes served: a 2xx with a body that is not a JSON message. A 202 or 204,
      // a JSON "not ready", a redirect not followed or a 5xx delivers no audio.
      const servedAudio =
        redirect.status >= 200 &&
        redirect.status < 300 &&
        redirect.body.length > 0 &&
        !/json/i.test(String(redirect.headers['content-type'] ?? ''));
      if (servedAudio && statusAtAnswer === THROTTLED_STATUS) {
        unsure.push(format);
        continue;
      }
      if (servedAudio && statusAtAnswer !== 'ready') {
        delivered.push(`${format}: ${redirect.status}, ${redirect.body.length} bytes ${when}`);
        continue;
      }
      observe('audio.before-ready', '{format} answered {status} {body} {when}', {
        values: { format, status: redirect.status },
        particulars: { body: show(redirect.text), when },
      });
    }
    // The take's status read failing (e.g. throttled past its bound) is our missing side: audio
    // delivered then proves nothing, and alone it leaves the check not concluded (issue 37).
    check('AUDIO-ONLY-WAV-BEFORE-READY', () => {
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
    });
  },
);

covers(
  ['AUDIO-WAV-BEFORE-READY', 'AUDIO-307', 'AUDIO-SIGNED-LOCATION'],
  'before ready, wav is fetchable and streams to the complete audio while it is generated',
  async ({ speak }) => {
    const { take, wavRedirect, statusAtWav, streamed, progressive } = await streaming(speak);
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
      if (progressive.kind === 'before-ready')
        observe('audio.progressive-before-ready', '{message}', {
          particulars: { message: progressive.message },
        });
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
    observe('audio.streamed-wav', 'streamed wav: {samples} samples (declared data size {declared})', {
      particulars: { samples: streamedWav.samples, declared: streamedWav.declaredDataBytes ?? null },
    });
  },
);

covers(
  ['AUDIO-WAV-GROWS'],
  'the wav stream is read while the take is generated (reported)',
  async ({ speak }) => {
    const { statusAtWav, streamed, streamEndedAt, polled } = await streaming(speak);
    if (!streamed) throw new Finding('no wav stream was opened');
    check('AUDIO-WAV-GROWS', () => {
      observe(
        'audio.wav-while-in-progress',
        'wav requested while {status}; the stream took {ms} ms for {bytes} bytes; the take was seen done after {doneMs} ms ({statuses})',
        {
          particulars: {
            status: statusAtWav,
            ms: streamed.ms.toFixed(0),
            bytes: streamed.body.length,
            doneMs: polled.ms,
            statuses: distinctRuns(polled.statuses).join(' → '),
          },
          caught: true,
        },
      );
      const inProgress = streamEndedInProgress(streamEndedAt, polled);
      if (inProgress) {
        throw new Finding(
          `the wav stream ended while the take was still in progress (a poll sent ${inProgress.afterMs} ms or more after the stream's end saw it ${show(inProgress.status)}): it may not have grown with the generation`,
        );
      }
    });
  },
);
