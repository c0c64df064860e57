import type { Requirement } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('takes');

/** speak-v1.md: Resources (Take, TakeGenerate, info), Endpoints (Takes), States and transitions, Limits. */
export const requirements: Requirement[] = [
  r(
    'TAKE-GENERATE-RETURNS-TAKE',
    'Endpoints: Takes',
    'MUST',
    'POST /v1/speak/takes/generate with a TakeGenerate body (text, voice_id) returns a Take.',
  ),
  r(
    'TAKE-GENERATE-WAITING',
    'States and transitions',
    'MUST',
    'An accepted take generation returns status `waiting`.',
  ),
  r(
    'TAKE-GENERATE-INFO-NULL',
    'States and transitions; Endpoints: Takes',
    'MUST',
    'The generated take has `info` null.',
  ),
  r(
    'TAKE-LISTED-AT-ONCE',
    'States and transitions',
    'MUST',
    'On acceptance the take appears in the take list.',
  ),
  r(
    'TAKE-GET-OBJECT',
    'Endpoints: Takes',
    'MUST',
    'GET /v1/speak/takes/{take_id} returns one Take (not an array).',
  ),
  r(
    'TAKE-FIELD-TYPES',
    'Resources: Take',
    'MUST',
    'Take fields: take_id string, voice_id string, text string, override_language string or null, style array of string or null, prosody object or null, status_webhook/done_webhook URL or null, status string, timestamp_ms integer, info null or object.',
  ),
  r('TAKE-TIMESTAMP-MS', 'Resources: Take', 'MUST', '`timestamp_ms` is milliseconds since the epoch.'),
  r(
    'TAKE-ECHOES-REQUEST',
    'Resources: Take',
    'MUST',
    'The take carries the `voice_id`, `text`, `prosody`, `style` and `override_language` it was generated with.',
  ),
  r(
    'TAKE-STATUS-ORDER',
    'States and transitions',
    'MUST',
    'A take moves forward only: waiting → started → progress_50 → ready (with progress_25/progress_75 between, wire-facts); error and timeout are terminal; a status never goes back.',
  ),
  r(
    'TAKE-STATUS-VALUES',
    'Fields and values',
    'INFO',
    'Status values: waiting, started, progress_25, progress_50, progress_75, ready, error, timeout; done = ready | error | timeout.',
    'wire-facts',
  ),
  r(
    'TAKE-READY-BOUND',
    'States and transitions',
    'MUST',
    "A take reaches `ready` (the service's done state) through worker progress; the wait is bounded by --ready-timeout (a bound chosen by speakcheck, 60 s unless set).",
  ),
  r(
    'TAKE-PROGRESS-SEEN',
    'States and transitions',
    'INFO',
    '`started` and `progress_50` (multi-part text) are shown only as the order of websocket status messages; which intermediate states REST polling observes is reported.',
  ),
  r('TAKE-INFO-NULL-BEFORE-READY', 'Resources: Take', 'MUST', '`info` is null until the take is ready.'),
  r('TAKE-INFO-AT-READY', 'States and transitions', 'MUST', 'At `ready`, `info` is filled.'),
  r(
    'TAKE-INFO-FIELDS',
    'Resources: Take (info)',
    'MUST',
    '`info` has duration (integer), audio_rate (integer, sample rate in Hz) and normalized_text (array of string: the text split into sentences or parts, so non-empty).',
  ),
  r(
    'TAKE-INFO-AUDIO-RATE',
    'Resources: Take (info)',
    'MUST',
    "`info.audio_rate` is the sample rate in Hz of the take's audio (the wav's sample rate).",
  ),
  r(
    'TAKE-INFO-DURATION-SAMPLES',
    'Fields and values',
    'INFO',
    '`TakeInfo.duration` is a count of samples; seconds = duration / audio_rate (speak-v1.md: unit not shown).',
    'wire-facts',
  ),
  r(
    'TAKE-PROSODY-ACCEPTED',
    'Resources: TakeGenerate; Limits',
    'MUST',
    'A take with a simple prosody whose fields are integers from -10 to 10 (bounds included) is accepted.',
  ),
  r(
    'TAKE-OVERRIDE-LANGUAGE',
    'Resources: Take',
    'MUST',
    'A take with `override_language` set to a language code of the model is accepted and returns it.',
  ),
  r(
    'TAKE-MULTILINGUAL-TEXT',
    'Resources: Take',
    'MUST',
    'With `override_language` null the service pronounces each word in its own language: a multilingual, non-ASCII text is accepted and reaches ready.',
  ),
  r(
    'TAKE-BATCH',
    'Paths and defaults',
    'INFO',
    '`POST /v1/speak/takes/generate` also accepts a JSON array of TakeGenerate bodies and answers an array of Takes in the same order.',
    'wire-facts',
  ),
  r(
    'TAKE-USER-DATA',
    'Fields and values',
    'INFO',
    'TakeGenerate may carry `user_data` (a string of at most 256 characters, or a number), returned on the Take.',
    'wire-facts',
  ),
  r(
    'TAKE-DELETE',
    'Paths and defaults',
    'INFO',
    '`DELETE /v1/speak/takes/{take_id}` answers `true`; the take no longer appears in lists; unknown → 404.',
    'wire-facts',
  ),
];
