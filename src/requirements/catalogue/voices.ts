import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';

const r = requirementsIn('voices');

/** speak-v1.md: Resources (Voice, VoiceGenerate), Endpoints (Voices), States and transitions (voice). */
export const requirements: RequirementDeclaration[] = [
  r(
    'VOICE-GENERATE-RETURNS-VOICE',
    'Endpoints: Voices',
    'MUST',
    'POST /v1/speak/voices/generate with a VoiceGenerate body (name, gender, model) returns a Voice.',
    {
      quote: '| POST | /v1/speak/voices/generate | VoiceGenerate | Voice, normally with status `waiting` |',
    },
  ),
  r(
    'VOICE-GENERATE-WAITING',
    'States and transitions',
    'MUST',
    'A newly generated voice is returned with status `waiting`.',
    {
      quote: 'A newly generated voice is returned with `waiting`.',
    },
  ),
  r(
    'VOICE-READY-BOUND',
    'States and transitions',
    'MUST',
    "After a few seconds a fetch by voice_id returns `ready` (the wait is bounded by --ready-timeout: a bound chosen by speakcheck, 45 s unless set; the time the server's Retry-After made the run or the polls wait is not counted).",
    {
      quote: 'After a few seconds a fetch by `voice_id` returns `ready`.',
      readyBoundOf: 'voice',
    },
  ),
  r(
    'VOICE-GET-OBJECT',
    'Endpoints: Voices',
    'MUST',
    'GET /v1/speak/voices/{voice_id} returns one Voice (not an array).',
    {
      quote: '| GET | /v1/speak/voices/{voice_id} | none | one Voice (not an array) |',
    },
  ),
  r(
    'VOICE-LIST',
    'Endpoints: Voices',
    'MUST',
    'GET /v1/speak/voices returns an array of Voice that holds the generated voice.',
    {
      quote: '| GET | /v1/speak/voices | optional query parameters below | array of Voice |',
    },
  ),
  r(
    'VOICE-FIELD-TYPES',
    'Resources: Voice',
    'MUST',
    'Voice fields: voice_id string, name string, model string, gender string, default_style array of string or null, default_prosody prosody or null, example_take_id string, example_take null or object, status_webhook/done_webhook URL or null, status string, timestamp_ms integer.',
    {
      quote: '| voice_id | string | Assigned by the service. |',
    },
  ),
  r('VOICE-TIMESTAMP-MS', 'Resources: Voice', 'MUST', '`timestamp_ms` is milliseconds since the epoch.', {
    quote: '| timestamp_ms | integer | Milliseconds since the epoch. |',
  }),
  r(
    'VOICE-ECHOES-REQUEST',
    'Resources: Voice',
    'MUST',
    'The voice carries the `name` and `gender` it was generated with.',
    {
      quote: 'A **voice** is created for a model, by name and gender, with optional default prosody.',
    },
  ),
  r(
    'VOICE-MODEL-SPECIFIC',
    'Resources: Voice',
    'INFO',
    'The returned `model` may be a more specific model version name than the one requested; reported (and whether it starts with the requested name).',
  ),
  r(
    'VOICE-DEFAULT-STYLE-UNSET',
    'Resources: Voice',
    'MUST',
    '`default_style` is returned as an empty array or null when not set.',
    {
      quote: '| default_style | array of string or null | Returned as an empty array or null when not set. |',
    },
  ),
  r(
    'VOICE-DEFAULT-PROSODY-ECHO',
    'Resources: Voice; Resources: VoiceGenerate',
    'MUST',
    'A voice generated with `default_prosody` returns it (null when none was given).',
    {
      quote:
        '| default_prosody | prosody object or null | Used by later take generation when the take gives no prosody. |',
    },
  ),
  r(
    'VOICE-DEFAULT-PROSODY-ADOPTED',
    'Resources: VoiceGenerate; Resources: Take',
    'MUST',
    '`default_prosody` is adopted by later takes when their `prosody` is null or omitted (audible: on a voice with default pace −10 a take without prosody lasts at least 1.1 × the same text with pace 0, on a voice with default pace +10 at most 1/1.1 of it; the ratio 1.1 is a threshold chosen by speakcheck).',
    {
      quote:
        '| default_prosody | prosody object | no | Adopted by later takes when their `prosody` is null or omitted. |',
    },
  ),
  r(
    'VOICE-EXAMPLE-TAKE-AUDIO',
    'Resources: Voice',
    'MUST',
    "`example_take_id` identifies an example take of the voice; its audio is fetched like any take's audio.",
    {
      quote:
        "| example_take_id | string | Identifier of an example take of the voice. Its audio is fetched like any take's audio. |",
    },
  ),
  r(
    'VOICE-EXAMPLE-TAKE-NULL',
    'Resources: Voice',
    'INFO',
    '`example_take` is null in all shown responses; its shape is otherwise not shown; reported.',
  ),
  r(
    'VOICE-UPDATE',
    'Paths and defaults',
    'INFO',
    'Update: `POST /v1/speak/voices/{voice_id}` with a partial body answers the JSON literal `true`; the change shows on GET.',
    {
      source: 'wire-facts',
      sdkQuote:
        'Update a voice: `POST /v1/speak/voices/{voice_id}` with a partial body (any of `name`, `gender`, `description`, `default_style`, `default_prosody`); the response body is the JSON literal `true`.',
    },
  ),
  r(
    'VOICE-DELETE',
    'Paths and defaults',
    'INFO',
    'Delete: `DELETE /v1/speak/voices/{voice_id}` answers `true`; the voice no longer appears in lists; unknown → 404.',
    {
      source: 'wire-facts',
      sdkQuote:
        'Delete: `DELETE /v1/speak/voices/{voice_id}` and `DELETE /v1/speak/takes/{take_id}`; response body `true`; 404 when unknown. A deleted item no longer appears in lists.',
    },
  ),
  r(
    'VOICE-DESCRIPTION',
    'Fields and values',
    'INFO',
    'VoiceGenerate may carry `description` (returned on the voice).',
    {
      source: 'wire-facts',
    },
  ),
  r(
    'VOICE-PARTIAL-PROSODY',
    'Resources: Prosody (simple type)',
    'INFO',
    'A `default_prosody` with only some of pace, pitch and expression: the contract defines the three fields and says nothing of partial objects; whether the server echoes, completes or refuses it is reported.',
  ),
];
