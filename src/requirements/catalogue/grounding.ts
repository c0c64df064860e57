import type { StandardQuote } from '../types.ts';

/**
 * The sentence (or table row) of speak-v1.md each MUST and SHOULD rests on, verbatim (markdown as in
 * the contract): one that requires it, never one that leaves the matter open ("not shown").
 * test/requirements/grounding.test.ts finds every one in spec/speak-v1.md and applies the rule
 * of src/requirements/grounding-rule.ts: a MUST or SHOULD has a quote here or a standard in
 * STANDARD_QUOTES below (or both); what neither requires is INFO. The reports show the grounding
 * with the requirement.
 */
export const QUOTES: Readonly<Record<string, string>> = {
  'AUTH-BEARER-REQUIRED':
    'Every request needs `Authorization: Bearer <ACCESS_TOKEN>`, except the `/version` endpoint.',
  'AUTH-INVALID-TOKEN-401':
    '| Access token invalid or expired on any request | HTTP 401. The client refreshes the token and retries. |',
  'AUTH-EXPIRED-TOKEN-401':
    '| Access token invalid or expired on any request | HTTP 401. The client refreshes the token and retries. |',
  'AUTH-LOGIN-NO-TOKEN': 'The login call carries no token.',
  'AUTH-LOGIN-OK':
    'Login: POST `/auth/login` with an email and a password returns `access_token` and `refresh_token`.',
  'AUTH-TOKEN-PAIR-SHAPE': 'Object with `access_token` (string) and `refresh_token` (string).',
  'AUTH-LOGIN-FAIL-401': 'A failed login returns status 401.',
  'AUTH-ERROR-DETAIL': 'Error responses are JSON with a `detail` field.',
  'AUTH-ACCESS-TOKEN-WORKS':
    'Unless noted, a request carries the header `Authorization: Bearer <ACCESS_TOKEN>`.',
  'AUTH-REFRESH-PAIR':
    'Refresh: POST `/auth/refresh` with `refresh_token` (and `email`) returns a new `access_token` and a new `refresh_token`.',
  'AUTH-REFRESH-ROTATES':
    'Refresh: POST `/auth/refresh` with `refresh_token` (and `email`) returns a new `access_token` and a new `refresh_token`.',
  'AUTH-REFRESH-WITH-BEARER': 'The refresh call may also carry the bearer header.',
  'AUTH-REFRESH-CHAIN': 'Refreshing repeatedly allows use without the password.',
  'AUTH-LOGOUT-REVOKES':
    'Logout: POST `/auth/logout` with `refresh_token` revokes that refresh token. Afterwards no new access token can be obtained with it.',
  'MODELS-LIST': '| GET | /v1/speak/models | none | array of Model |',
  'MODELS-AT-LEAST-ONE': 'A user has access to one or more **models**.',
  'MODELS-GET': '| GET | /v1/speak/models/{name} | none | one Model |',
  'MODELS-LIST-GET-AGREE':
    '| name | string | Identifier used when a model is referenced, for example in voice generation and in the websocket URL request. |',
  'MODEL-FIELD-TYPES': '| displayname | string | Human-readable name. |',
  'MODEL-GENDERS-USABLE': '| genders | array of string | Allowed voice genders for the model. |',
  'MODEL-LANGUAGES-USABLE': '| languages | array of string | Language codes the model supports. |',
  'MODEL-SIMPLE-PROSODY': 'Every model supports the simple type.',
  'MODEL-STYLES-USABLE': '| styles | array of array of string | Style names offered by the model. |',
  'VOICE-GENERATE-RETURNS-VOICE':
    '| POST | /v1/speak/voices/generate | VoiceGenerate | Voice, normally with status `waiting` |',
  'VOICE-GENERATE-WAITING': 'A newly generated voice is returned with `waiting`.',
  'VOICE-READY-BOUND': 'After a few seconds a fetch by `voice_id` returns `ready`.',
  'VOICE-GET-OBJECT': '| GET | /v1/speak/voices/{voice_id} | none | one Voice (not an array) |',
  'VOICE-LIST': '| GET | /v1/speak/voices | optional query parameters below | array of Voice |',
  'VOICE-FIELD-TYPES': '| voice_id | string | Assigned by the service. |',
  'VOICE-TIMESTAMP-MS': '| timestamp_ms | integer | Milliseconds since the epoch. |',
  'VOICE-ECHOES-REQUEST':
    'A **voice** is created for a model, by name and gender, with optional default prosody.',
  'VOICE-DEFAULT-STYLE-UNSET':
    '| default_style | array of string or null | Returned as an empty array or null when not set. |',
  'VOICE-DEFAULT-PROSODY-ECHO':
    '| default_prosody | prosody object or null | Used by later take generation when the take gives no prosody. |',
  'VOICE-DEFAULT-PROSODY-ADOPTED':
    '| default_prosody | prosody object | no | Adopted by later takes when their `prosody` is null or omitted. |',
  'VOICE-EXAMPLE-TAKE-AUDIO':
    "| example_take_id | string | Identifier of an example take of the voice. Its audio is fetched like any take's audio. |",
  'TAKE-GENERATE-RETURNS-TAKE':
    '| POST | /v1/speak/takes/generate | TakeGenerate | Take, normally with status `waiting` and `info` null |',
  'TAKE-GENERATE-WAITING': 'The create call returns at once with status `waiting`.',
  'TAKE-GENERATE-INFO-NULL':
    '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
  'TAKE-LISTED-AT-ONCE':
    '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
  'TAKE-GET-OBJECT': '| GET | /v1/speak/takes/{take_id} | none | one Take |',
  'TAKE-FIELD-TYPES': '| take_id | string | Assigned by the service. |',
  'TAKE-TIMESTAMP-MS': '| timestamp_ms | integer | Milliseconds since the epoch. |',
  'TAKE-ECHOES-REQUEST': '| text | string | Text to speak. |',
  'TAKE-STATUS-ORDER': '| started | worker progress | same | progress_50 | Appears for multi-part text. |',
  'TAKE-READY-BOUND':
    '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
  'TAKE-INFO-NULL-BEFORE-READY': '| info | null or object | Null until the take is ready. |',
  'TAKE-INFO-AT-READY':
    '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
  'TAKE-INFO-FIELDS': '| normalized_text | array of string (the text split into sentences or parts) |',
  'TAKE-INFO-AUDIO-RATE': '| audio_rate | integer (sample rate in Hz) |',
  'TAKE-PROSODY-ACCEPTED': '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
  'TAKE-OVERRIDE-LANGUAGE':
    '| override_language | string or null | Language code. When null, the service pronounces each word in its own language. When set, one language is assumed for the whole text and loan words may be mispronounced. |',
  'TAKE-MULTILINGUAL-TEXT': 'When null, the service pronounces each word in its own language.',
  'LIST-ID-FILTER':
    '| voice_id (voices) or take_id (takes) | comma-separated list of identifiers | Return only these. |',
  'LIST-LENGTH': '| length | integer | Page size. |',
  'LIST-PAGES-PARTITION': '| page | integer | Page number. |',
  'LIST-OLDER':
    '| older | integer | Timestamp in milliseconds since the epoch. Restricts results to older items. |',
  'LIST-NEWER':
    '| newer | integer | Timestamp in milliseconds since the epoch. Restricts results to newer items. |',
  'LIST-ORACLE': 'Query parameters of the list, for voices and for takes alike:',
  'AUDIO-307': 'The audio endpoints answer with HTTP 307.',
  'AUDIO-SIGNED-LOCATION':
    'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
  'AUDIO-SIGNED-NO-AUTH':
    'A backend may read `Location` and hand it to a browser, which can use it without the header until it expires.',
  'AUDIO-ALL-FORMATS-READY': 'In `ready`, audio in every format can be fetched.',
  'AUDIO-CONTAINER': '| GET | /v1/speak/takes/{take_id}/mp3 | none | 307 redirect |',
  'AUDIO-FORMATS-SAME-AUDIO': 'It produces audio that can be fetched in several formats.',
  'AUDIO-WAV-BEFORE-READY':
    'Before `ready`, only the `wav` format can be fetched, and it is streamed while it is generated.',
  'AUDIO-ONLY-WAV-BEFORE-READY': 'Only `wav` is available before the take is `ready`.',
  'AUDIO-TAMPERED-REJECTED':
    'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
  'ERR-JSON-DETAIL': 'Error responses are JSON with a `detail` field.',
  'ERR-INVALID-BODY-4XX': '| text | string | yes |',
  'ERR-PROSODY-OUT-OF-RANGE': '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
  'ERR-PROSODY-REFUSED': '| pace, pitch, expression (simple prosody) | integers from -10 to 10 |',
  'ERR-UNKNOWN-STYLE': "| style | array of string or null | Names from the model's styles. |",
  // The only way a take comes into being is the accepted POST; voices have no state table.
  'ERR-NOTHING-CREATED':
    '| (none) | POST takes/generate | accepted | waiting | `info` is null; the take appears in the take list. |',
  'ERR-CONTENT-TYPE':
    'All requests and responses with a body use JSON, except audio and websocket binary messages.',
  'ERR-MALFORMED-JSON': 'Request bodies are JSON with `content-type: application/json`.',
  'DOCS-INTERACTIVE-HTML':
    'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
  'DOCS-REDOC-HTML':
    'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
  'DOCS-OPENAPI-VALID':
    'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
  'DOCS-OPENAPI-PATHS':
    'An interactive reference and a machine-readable definition are published at `{base_url}/v1/speak/docs`, `{base_url}/v1/speak/redoc` and `{base_url}/v1/speak/openapi.json`.',
  'VERSION-NO-TOKEN': 'A `/version` endpoint exists and needs no access token.',
  'VERSION-MAJOR-MINOR':
    'The `/version` endpoint reports a major and a minor version number and needs no token.',
  'VERSION-MAJOR-MATCHES-PATH': 'The interface version is part of the path: `/v1/speak/...`.',
  'VERSION-PATH-PREFIX':
    'The interface version is part of the path: `/v1/speak/...`. The authentication endpoints are outside this prefix.',
  'API-JSON-BODIES':
    'All requests and responses with a body use JSON, except audio and websocket binary messages.',
  'WS-URL-ENDPOINT':
    '| GET | /v1/speak/websocket | `model` (string, required; a model name) | JSON object with `websocket_url` (string) |',
  'WS-URL-MODEL-HELD': 'The URL addresses a worker node that holds the requested model.',
  'WS-URL-SECRET-NOT-TOKEN':
    'The URL contains a secret with a limited lifetime, distinct from the access token.',
  'WS-URL-TAMPERED-REFUSED':
    'The websocket connection is authorised by the secret inside the websocket URL and not by the bearer header.',
  'WS-URL-SECRET-VARIES':
    'The URL contains a secret with a limited lifetime, distinct from the access token.',
  'WS-URL-EXPIRED-REFUSED': 'The URL from the websocket address endpoint expires after 1 hour.',
  'WS-CONNECT-NO-BEARER':
    'The websocket connection is authorised by the secret inside the websocket URL and not by the bearer header.',
  'WS-SAME-CONNECTION': 'The same node streams back the audio over that connection.',
  'WS-NO-DISCONNECT-MID-REQUEST': 'A disconnect does not happen while a request is being processed.',
  'WS-SERIALIZED':
    'Because one connection is shared, requests over one websocket are handled one after another.',
  'WS-TEXT-TAKE':
    "**Text messages** carry the whole Take structure, sent whenever the take's `status` changes.",
  'WS-MULTIPART-PROGRESS':
    '| started | worker progress | same | progress_50 | Appears for multi-part text. |',
  'WS-STATUS-ORDER':
    '| waiting | worker progress | shown only as the order of status messages on a websocket | started | A status message is sent. |',
  'WS-READY-INFO':
    '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
  'WS-FRAME-METADATA':
    'Every audio message carries a `part_id` (integer), and in chunks mode also a `chunk_id` (integer).',
  'WS-FRAME-IDS-COMPLETE':
    'Message order on the wire is not guaranteed. The receiver rebuilds the order from `part_id` and `chunk_id`.',
  'WS-MODE-PARTS':
    '| parts (default) | Each part is one binary message holding a complete wav file with its header. |',
  'WS-MODE-PARTS-DEFAULT':
    '| parts (default) | Each part is one binary message holding a complete wav file with its header. |',
  'WS-MODE-CHUNKS':
    '| chunks | Each part is sent as small chunks. Only the first chunk of a part has the wav header, whose length covers the whole part. The chunks are concatenated on reception. Latency is lower. |',
  // Lower latency only holds when a player can start a part before it is complete: chunk 0 first.
  'WS-CHUNK0-BEFORE-PART-END':
    'Only the first chunk of a part has the wav header, whose length covers the whole part. The chunks are concatenated on reception. Latency is lower.',
  'WS-CHUNK-END-MARKER': 'In chunks mode an empty chunk ends each part.',
  'WS-END-OF-TAKE': 'The end of the stream for a take is an audio message with no audio data.',
  'WS-TAKE-IN-REST': 'A **take** is one text-to-speech job made with a voice.',
  'WS-AUDIO-MATCHES-REST':
    'Audio can be downloaded over HTTP through a redirect, or streamed over a websocket connected directly to a worker.',
  'WS-PCM-MATCHES-REST':
    'Audio can be downloaded over HTTP through a redirect, or streamed over a websocket connected directly to a worker.',
  'WS-RANDOM-TEXTS': 'The text is split into parts.',
  'WEBHOOK-POST-JSON': 'When the result is ready, the service sends an HTTP POST to that URL.',
  'WEBHOOK-DONE-CALLED': 'When the result is ready, the service sends an HTTP POST to that URL.',
  'WEBHOOK-DONE-ONCE':
    '| progress_50 | worker progress | same | ready | `info` is filled. The done webhook is called. |',
  'WEBHOOK-DONE-BODY-TAKE': 'The body has the same structure as the Voice or Take response.',
  'WEBHOOK-DONE-BODY-EQUALS-GET': 'The body has the same structure as the Voice or Take response.',
  'WEBHOOK-DONE-AUDIO-FETCHABLE': 'In `ready`, audio in every format can be fetched.',
  'WEBHOOK-DONE-ARRIVAL-BOUND': 'When the result is ready, the service sends an HTTP POST to that URL.',
  'WEBHOOK-STATUS-CALLED':
    "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
  'WEBHOOK-STATUS-ORDERED':
    "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
  'WEBHOOK-STATUS-AGREES-POLLING':
    "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
  'WEBHOOK-STATUS-AGREES-WEBSOCKET':
    "It is called by POST, with the Take structure in the body, each time the take's progress changes.",
  'WEBHOOK-VOICE-DONE':
    'A voice or a take may carry `done_webhook` (a URL). When the result is ready, the service sends an HTTP POST to that URL.',
  // Issue 31: waited out in --expiry full (the acceptance profile); a URL that never expires breaks "time-limited".
  'AUDIO-SIGNED-EXPIRES':
    'The `Location` header holds a time-limited signed URL from which the audio is streamed or stored.',
};

const RFC_9110 = 'RFC 9110';
const rfc9110 = (clause: string, anchor: string, quote: string): StandardQuote => ({
  name: RFC_9110,
  clause,
  quote,
  url: `https://www.rfc-editor.org/rfc/rfc9110#${anchor}`,
});

/** RFC 9110 (HTTP Semantics), in its own words: what a status class says about who erred. */
export const RFC_9110_CLIENT_ERROR = rfc9110(
  '§15.5',
  'name-client-error-4xx',
  'The 4xx (Client Error) class of status code indicates that the client seems to have erred.',
);
export const RFC_9110_SERVER_ERROR = rfc9110(
  '§15.6',
  'name-server-error-5xx',
  'The 5xx (Server Error) class of status code indicates that the server is aware that it has erred or is incapable of performing the requested method.',
);
export const RFC_9110_UNAUTHORIZED = rfc9110(
  '§15.5.2',
  'name-401-unauthorized',
  'The 401 (Unauthorized) status code indicates that the request has not been applied because it lacks valid authentication credentials for the target resource.',
);
export const RFC_9110_BAD_REQUEST = rfc9110(
  '§15.5.1',
  'name-400-bad-request',
  'The 400 (Bad Request) status code indicates that the server cannot or will not process the request due to something that is perceived to be a client error (e.g., malformed request syntax, invalid request message framing, or deceptive request routing).',
);
export const RFC_9110_UNPROCESSABLE_CONTENT = rfc9110(
  '§15.5.21',
  'name-422-unprocessable-content',
  'The 422 (Unprocessable Content) status code indicates that the server understands the content type of the request content (hence a 415 (Unsupported Media Type) status code is inappropriate), and the syntax of the request content is correct, but it was unable to process the contained instructions.',
);

/** "A client error is never a 5xx": the client erred (4xx), the server did not (5xx). */
const CLIENT_ERROR_NOT_5XX = [RFC_9110_CLIENT_ERROR, RFC_9110_SERVER_ERROR] as const;

/**
 * The named external standards a MUST or SHOULD rests on, each in the standard's own words, where
 * speak-v1.md is silent (its Errors section: "the error for unknown identifiers or invalid bodies:
 * not shown") but a standard every server of this kind answers to is not. Add an entry per
 * requirement; a requirement may carry a speak-v1.md quote too.
 */
export const STANDARD_QUOTES: Readonly<Record<string, readonly StandardQuote[]>> = {
  // The contract's errors table gives 401 for an invalid or expired token; a missing one is 401 by HTTP.
  'AUTH-BEARER-REQUIRED': [RFC_9110_UNAUTHORIZED],
  'ERR-INVALID-BODY-4XX': CLIENT_ERROR_NOT_5XX,
  'ERR-UNKNOWN-ID-4XX': CLIENT_ERROR_NOT_5XX,
  'ERR-MALFORMED-JSON': CLIENT_ERROR_NOT_5XX,
  'ERR-PROSODY-OUT-OF-RANGE': CLIENT_ERROR_NOT_5XX,
  'ERR-PROSODY-REFUSED': [RFC_9110_CLIENT_ERROR],
  'ERR-NOTHING-CREATED': [RFC_9110_BAD_REQUEST, RFC_9110_UNPROCESSABLE_CONTENT],
};
