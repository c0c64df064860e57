import type { RequirementDeclaration } from '../types.ts';
import { requirementsIn } from './requirement.ts';
import {
  CLIENT_ERROR_NOT_5XX,
  RFC_9110_BAD_REQUEST,
  RFC_9110_CLIENT_ERROR,
  RFC_9110_UNPROCESSABLE_CONTENT,
} from './standards.ts';

const r = requirementsIn('errors');

/** speak-v1.md: Errors, Limits, the request-body tables of Resources. */
export const requirements: RequirementDeclaration[] = [
  r(
    'ERR-JSON-DETAIL',
    'Errors',
    'MUST',
    'Error responses are JSON with a `detail` field (a client falls back to the raw response text when the body is not JSON: reported as a failure with that text).',
    {
      quote: 'Error responses are JSON with a `detail` field.',
    },
  ),
  r(
    'ERR-INVALID-BODY-4XX',
    'Resources: TakeGenerate, VoiceGenerate; RFC 9110 §15.5, §15.6',
    'MUST',
    'A generation body that breaks the request tables (missing required field, wrong type, unknown voice or model, gender outside the allowed values) is never answered with a 5xx: the client erred, not the server (RFC 9110). Refused, it is a 4xx. How invalid bodies are handled is not shown, so a server may accept one (coercing 42 to "42" as pydantic\'s lax mode does, or failing the item later; ERR-INVALID-BODY-ACCEPTED reports it): then the answer and a later GET show a valid Take or Voice, nothing stored against its schema.',
    {
      quote: '| text | string | yes |',
      standards: CLIENT_ERROR_NOT_5XX,
    },
  ),
  r(
    'ERR-PROSODY-OUT-OF-RANGE',
    'Limits; Resources: Prosody; RFC 9110 §15.5, §15.6',
    'MUST',
    'pace, pitch and expression are integers from -10 to 10: a prosody number outside the bounds or not an integer is never stored out of bounds. It is refused with a 4xx (never a 5xx), or accepted with every field an integer within -10..10 (clamped), as the answer and a later GET show it.',
    {
      quote: '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
      standards: CLIENT_ERROR_NOT_5XX,
    },
  ),
  r(
    'ERR-PROSODY-REFUSED',
    'Limits; Resources: Prosody; RFC 9110 §15.5',
    'SHOULD',
    'A prosody number outside -10..10 or not an integer is refused with a 4xx rather than clamped: the client erred (RFC 9110), and clamping changes what it asked for without saying so.',
    {
      quote: '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
      standards: [RFC_9110_CLIENT_ERROR],
    },
  ),
  r(
    'ERR-UNKNOWN-STYLE',
    'Resources: Take',
    'SHOULD',
    "A take's `style` holds names from the model's styles: an unknown style name is refused with a 4xx.",
    {
      quote: "| style | array of string or null | Names from the model's styles. |",
    },
  ),
  r(
    'ERR-NOTHING-CREATED',
    'States and transitions; RFC 9110 §15.5.1, §15.5.21',
    'SHOULD',
    'A refused generation (4xx) creates nothing: the take and voice lists hold none of the refused bodies (a take exists from its accepted POST on; a 400/422 says the server did not process the request, RFC 9110). Bodies the server accepted are judged by the other requirements, not here.',
    {
      // The only way a take comes into being is the accepted POST; voices have no state table.
      quote:
        '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
      standards: [RFC_9110_BAD_REQUEST, RFC_9110_UNPROCESSABLE_CONTENT],
    },
  ),
  r(
    'ERR-UNKNOWN-ID-4XX',
    'Errors; RFC 9110 §15.5, §15.6',
    'MUST',
    'An unknown model name, voice_id or take_id (get, audio) is a client error: 4xx with a JSON `detail`, never a 5xx or a success (RFC 9110; which 4xx is not shown: ERR-UNKNOWN-ID-404 reports it).',
    {
      standards: CLIENT_ERROR_NOT_5XX,
    },
  ),
  r(
    'ERR-UNKNOWN-ID-404',
    'Errors',
    'INFO',
    'The error code for unknown identifiers: not shown; 404 expected by the SDK; reported.',
  ),
  r(
    'ERR-INVALID-BODY-CODE',
    'Errors',
    'INFO',
    'The error code for invalid bodies: not shown; reported (400 / 422 ...).',
  ),
  r(
    'ERR-INVALID-BODY-ACCEPTED',
    'Errors',
    'INFO',
    'Whether a server refuses every generation body that breaks the request tables, or accepts some (coerced, or the item failed later): not shown; the bodies accepted are reported.',
  ),
  r('ERR-CONTENT-TYPE', 'Errors', 'SHOULD', 'Error responses declare `Content-Type: application/json`.', {
    quote: 'All requests and responses with a body use JSON, except audio and websocket binary messages.',
  }),
  r(
    'ERR-MALFORMED-JSON',
    'Endpoints; Errors',
    'MUST',
    'A request body declared `application/json` that is not JSON is refused with a 4xx JSON detail, never a 5xx.',
    {
      quote: 'Request bodies are JSON with `content-type: application/json`.',
      standards: CLIENT_ERROR_NOT_5XX,
    },
  ),
  r(
    'ERR-OTHER-CONTENT-TYPE',
    'Endpoints',
    'INFO',
    'Request bodies are JSON with `content-type: application/json`; what a server does with a body under another content type (text/plain, a form) is not shown: reported (a 5xx is reported as a failure).',
  ),
  r(
    'ERR-RATE-LIMIT-OBSERVED',
    'Limits',
    'INFO',
    'Rate limits: not shown. A server may throttle (429, or 503 with Retry-After): the run waits as asked and reports what it saw (429 and 503 counts, Retry-After values, time waited); back-pressure is never a verdict.',
  ),
];
