import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('takes');

/** speak-v1.md: Resources (Take, TakeGenerate, info), Endpoints (Takes), States and transitions, Limits. */
export const requirements: RequirementDeclaration[] = [
  r(
    'TAKE-GENERATE-RETURNS-TAKE',
    'Endpoints: Takes',
    'MUST',
    'POST /v1/speak/takes/generate with a TakeGenerate body (text, voice_id) returns a Take.',
    {
      quote:
        '| POST | /v1/speak/takes/generate | TakeGenerate | Take, normally with status `waiting` and `info` null |',
    },
  ),
  r(
    'TAKE-GENERATE-WAITING',
    'States and transitions',
    'MUST',
    'An accepted take generation returns status `waiting`.',
    {
      quote: 'The create call returns at once with status `waiting`.',
    },
  ),
  r(
    'TAKE-GENERATE-INFO-NULL',
    'States and transitions; Endpoints: Takes',
    'MUST',
    'The generated take has `info` null.',
    {
      quote:
        '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
    },
  ),
  r(
    'TAKE-LISTED-AT-ONCE',
    'States and transitions',
    'MUST',
    'On acceptance the take appears in the take list.',
    {
      quote:
        '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
    },
  ),
  r(
    'TAKE-GET-OBJECT',
    'Endpoints: Takes',
    'MUST',
    'GET /v1/speak/takes/{take_id} returns one Take (not an array).',
    {
      quote: '| GET | /v1/speak/takes/{take_id} | none | one Take |',
    },
  ),
  r(
    'TAKE-FIELD-TYPES',
    'Resources: Take',
    'MUST',
    'Take fields: take_id string, voice_id string, text string, override_language string or null, style array of string or null, prosody object or null, status_webhook/done_webhook URL or null, status string, timestamp_ms integer, info null or object.',
    {
      quote: '| take_id | string | Assigned by the service. |',
    },
  ),
  r('TAKE-TIMESTAMP-MS', 'Resources: Take', 'MUST', '`timestamp_ms` is milliseconds since the epoch.', {
    quote: '| timestamp_ms | integer | Milliseconds since the epoch. |',
  }),
  r(
    'TAKE-ECHOES-REQUEST',
    'Resources: Take',
    'MUST',
    'The take carries the `voice_id`, `text`, `prosody`, `style` and `override_language` it was generated with.',
    {
      quote: '| text | string | Text to speak. |',
    },
  ),
  r(
    'TAKE-STATUS-ORDER',
    'States and transitions',
    'MUST',
    'A take moves forward only: waiting → started → progress_50 → ready (with progress_25/progress_75 between, wire-facts); error and timeout are terminal; a status never goes back.',
    {
      quote: '| started | worker progress | same | progress_50 | Appears for multi-part text. |',
    },
  ),
  r(
    'TAKE-STATUS-VALUES',
    'Fields and values',
    'INFO',
    'Status values: waiting, started, progress_25, progress_50, progress_75, ready, error, timeout; done = ready | error | timeout.',
    {
      source: 'wire-facts',
      sdkQuote:
        'Status values: `waiting`, `started`, `progress_25`, `progress_50`, `progress_75`, `ready`, `error`, `timeout`.',
    },
  ),
  r(
    'TAKE-READY-BOUND',
    'States and transitions',
    'MUST',
    "A take reaches `ready` (the service's done state) through worker progress; the wait is bounded by --ready-timeout (a bound chosen by speakcheck, 45 s unless set; the time the server's Retry-After made the run or the polls wait is not counted).",
    {
      quote:
        '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
      readyBoundOf: 'take',
    },
  ),
  r(
    'TAKE-PROGRESS-SEEN',
    'States and transitions',
    'INFO',
    '`started` and `progress_50` (multi-part text) are shown only as the order of websocket status messages; which intermediate states REST polling observes is reported.',
  ),
  r('TAKE-INFO-NULL-BEFORE-READY', 'Resources: Take', 'MUST', '`info` is null until the take is ready.', {
    quote: '| info | null or object | Null until the take is ready. |',
  }),
  r('TAKE-INFO-AT-READY', 'States and transitions', 'MUST', 'At `ready`, `info` is filled.', {
    quote: '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
  }),
  r(
    'TAKE-INFO-FIELDS',
    'Resources: Take (info)',
    'MUST',
    '`info` has duration (integer), audio_rate (integer, sample rate in Hz) and normalized_text (array of string: the text split into sentences or parts, so non-empty).',
    {
      quote: '| normalized_text | array of string (the text split into sentences or parts) |',
    },
  ),
  r(
    'TAKE-INFO-AUDIO-RATE',
    'Resources: Take (info)',
    'MUST',
    "`info.audio_rate` is the sample rate in Hz of the take's audio (the wav's sample rate).",
    {
      quote: '| audio_rate | integer (sample rate in Hz) |',
    },
  ),
  r(
    'TAKE-INFO-DURATION-SAMPLES',
    'Fields and values',
    'INFO',
    '`TakeInfo.duration` is a count of samples; seconds = duration / audio_rate (speak-v1.md: unit not shown).',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'TAKE-PROSODY-ACCEPTED',
    'Resources: TakeGenerate; Limits',
    'MUST',
    'A take with a simple prosody whose fields are integers from -10 to 10 (bounds included) is accepted.',
    {
      quote: '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
    },
  ),
  r(
    'TAKE-OVERRIDE-LANGUAGE',
    'Resources: Take',
    'MUST',
    'A take with `override_language` set to a language code of the model is accepted and returns it.',
    {
      quote:
        '| override_language | string or null | Language code. When null, the service pronounces each word in its own language. When set, one language is assumed for the whole text and loan words may be mispronounced. |',
    },
  ),
  r(
    'TAKE-MULTILINGUAL-TEXT',
    'Resources: Take',
    'MUST',
    'With `override_language` null the service pronounces each word in its own language: a multilingual, non-ASCII text is accepted and reaches ready.',
    {
      quote: 'When null, the service pronounces each word in its own language.',
    },
  ),
  r(
    'TAKE-BATCH',
    'Paths and defaults',
    'INFO',
    '`POST /v1/speak/takes/generate` also accepts a JSON array of TakeGenerate bodies and answers an array of Takes in the same order.',
    {
      source: 'wire-facts',
      sdkQuote:
        '`POST /v1/speak/takes/generate` also accepts a JSON array of TakeGenerate bodies (batch) and then answers with an array of Takes, in the same order.',
    },
  ),
  r(
    'TAKE-USER-DATA',
    'Fields and values',
    'INFO',
    'TakeGenerate may carry `user_data` (a string of at most 256 characters, or a number), returned on the Take.',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'TAKE-DELETE',
    'Paths and defaults',
    'INFO',
    '`DELETE /v1/speak/takes/{take_id}` answers `true`; the take no longer appears in lists; unknown → 404.',
    {
      source: 'wire-facts',
      sdkQuote:
        'Delete: `DELETE /v1/speak/voices/{voice_id}` and `DELETE /v1/speak/takes/{take_id}`; response body `true`; 404 when unknown. A deleted item no longer appears in lists.',
    },
  ),
];
