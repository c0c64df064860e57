import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('audio');

/** speak-v1.md: Endpoints (audio), Audio rules, States and transitions, Errors, Limits; wire-facts: Signed audio URLs. */
export const requirements: RequirementDeclaration[] = [
  r(
    'AUDIO-307',
    'Audio rules 1; Endpoints: Takes; Errors',
    'MUST',
    'GET /v1/speak/takes/{take_id}/{wav|mp3|m4a|flac|webm} answers HTTP 307 (a redirect, not an error; not 302/303, not the audio itself).',
    {
      quote: 'The audio endpoints answer with HTTP 307.',
    },
  ),
  r(
    'AUDIO-SIGNED-LOCATION',
    'Audio rules 1–3',
    'MUST',
    'The `Location` header holds a signed URL (absolute, so a backend can hand it to a browser) recognisable by a signature query parameter.',
    {
      quote:
        'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
    },
  ),
  r(
    'AUDIO-SIGNED-NO-AUTH',
    'Audio rules 2–3',
    'MUST',
    'The signed URL delivers the audio without the `Authorization` header.',
    {
      quote:
        'A backend may read `Location` and hand it to a browser, which can use it without the header until it expires.',
    },
  ),
  r(
    'AUDIO-ALL-FORMATS-READY',
    'States and transitions',
    'MUST',
    'In `ready`, audio in every format (wav, mp3, m4a, flac, webm) can be fetched.',
    {
      quote: 'In `ready`, audio in every format can be fetched.',
    },
  ),
  r(
    'AUDIO-CONTAINER',
    'Endpoints: Takes',
    'MUST',
    'Each format endpoint delivers audio in that container (parsed: WAVE, MPEG layer 3, MP4/M4A, FLAC, WebM).',
    {
      quote: '| GET | /v1/speak/takes/{take_id}/mp3 | none | 307 redirect |',
    },
  ),
  r(
    'AUDIO-CONTENT-TYPE',
    'Endpoints: Takes',
    'INFO',
    "The signed URL serves the audio with the format's Content-Type. (INFO: the Content-Type of the audio is HTTP custom: speak-v1.md does not state it.)",
  ),
  r(
    'AUDIO-FORMATS-SAME-AUDIO',
    'Resources: Take',
    'SHOULD',
    "Every format carries the same take audio: each format's duration matches the wav's (tolerances chosen by speakcheck: 50 ms; lossy codecs 120 ms for encoder priming/padding).",
    {
      quote: 'It produces audio that can be fetched in several formats.',
    },
  ),
  r(
    'AUDIO-DURATION-MATCHES-INFO',
    'Fields and values',
    'INFO',
    'With duration read as samples (wire-facts), each format lasts duration / audio_rate seconds (within the same tolerance) and the wav holds exactly `duration` samples.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'AUDIO-WAV-BEFORE-READY',
    'Audio rules 4; States and transitions',
    'MUST',
    'Before `ready`, `wav` can be fetched: it is streamed while it is generated (its first body bytes arrive while the take is still in progress; the body ends as a complete wav of the take). Not judged (blocked, with the reason) when the take is too quick for that to be seen.',
    {
      quote:
        'Before `ready`, only the `wav` format can be fetched, and it is streamed while it is generated.',
    },
  ),
  r(
    'AUDIO-ONLY-WAV-BEFORE-READY',
    'Audio rules 4; States and transitions',
    'MUST',
    'Only `wav` is available before the take is `ready`: another format requested before ready is not delivered.',
    {
      quote: 'Only `wav` is available before the take is `ready`.',
    },
  ),
  r(
    'AUDIO-WAV-GROWS',
    'Signed audio URLs',
    'INFO',
    'For wav before ready the SDK keeps reading for up to 5 minutes: the stream grows while the take is generated; reported (first byte before ready, total bytes).',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'AUDIO-TAMPERED-REJECTED',
    'Audio rules 1',
    'MUST',
    'The Location is a signed URL: the same URL with a tampered signature is rejected (not served: an error status, which one observed; the contract shows none).',
    {
      quote:
        'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
    },
  ),
  r(
    'AUDIO-AMZ-SIGNATURE',
    'Signed audio URLs',
    'INFO',
    'The SDK recognises a signed URL by the query parameter `X-Amz-Signature`; with another parameter it would send Authorization to it.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'AUDIO-SIGNED-WITH-AUTH-REJECTED',
    'Signed audio URLs',
    'INFO',
    'Like S3, a presigned request that also carries an Authorization header is rejected ("only one auth mechanism allowed").',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'AUDIO-SIGNED-LIFETIME',
    'Limits; Signed audio URLs',
    'INFO',
    'A signed audio URL has a limited lifetime; the SDK caches it 10 minutes, so it lives at least that long; the advertised expiry (X-Amz-Expires or similar) is reported.',
  ),
  r(
    'AUDIO-SIGNED-EXPIRES',
    'Audio rules 1; Limits',
    'MUST',
    'A signed audio URL is time-limited: fetched again after its lifetime (its X-Amz-Expires from X-Amz-Date, or --signed-url-lifetime) plus a margin, it is refused (not served: an error status, which one observed; the contract shows none). Judged where the run waits the lifetime out: up to --max-expiry-wait, or any lifetime within --max-time with --expiry full (the acceptance profile).',
    {
      // Issue 31: waited out in --expiry full (the acceptance profile); a URL that never expires breaks "time-limited".
      quote:
        'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
    },
  ),
];
